// TRUST_PROXY -> Fastify's `trustProxy`: which peers' X-Forwarded-For, -Proto and -Host are believed, and
// so where request.ip, request.protocol and request.host come from (rate limits, sign-in limits, the
// dashboard's origin check and Secure cookies all read those three).
import ipaddr from 'ipaddr.js'
import { ConfigError } from '../runtime/config.ts'

/** What Fastify is given: nothing trusted, the addresses and ranges of the proxies, or a hop count as a function. */
export type TrustProxy = false | string[] | ((address: string, hop: number) => boolean)

const validAddress = (text: string): boolean =>
  ipaddr.IPv4.isValidFourPartDecimal(text) || (text.includes(':') && ipaddr.IPv6.isValid(text))

function validRange (text: string): boolean {
  const [address, prefix, extra] = text.split('/')
  if (extra !== undefined || !validAddress(address)) return false
  if (prefix === undefined) return true
  const bits = address.includes(':') ? 128 : 32
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= bits
}

/**
 * Unset (or "0"): forwarded headers are ignored. A number: that many proxies in front, whoever they are.
 * Fastify 5 refuses a bare number (it cannot tell a proxy from a client that connects directly and
 * writes the headers itself), so a hop count becomes the function Fastify used to make of it: it is
 * right only when nothing but the proxy can reach the server (HOST=127.0.0.1, the proxy on the same
 * machine); otherwise name the proxies' addresses. Addresses and CIDR ranges are checked here, so
 * that a typo stops the start with the variable's name instead of proxy-addr's TypeError.
 */
export function trustProxyOption (value: string | undefined): TrustProxy {
  const text = value?.trim() ?? ''
  if (/^\d+$/.test(text)) {
    const hops = Number(text)
    return hops === 0 ? false : (_address, hop) => hop < hops
  }
  if (text === '') return false
  const ranges = text.split(',').map((part) => part.trim())
  const bad = ranges.filter((range) => !validRange(range))
  if (bad.length > 0) {
    throw new ConfigError(`Invalid configuration:\n  TRUST_PROXY=${JSON.stringify(value)}: ${bad.map((b) => JSON.stringify(b)).join(', ')} ` +
      'is not an IP address or CIDR range (expected a hop count like "1", or e.g. "127.0.0.1,10.0.0.0/8")')
  }
  return ranges
}
