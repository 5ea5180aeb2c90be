// TRUST_PROXY -> Fastify's `trustProxy`: which peers' X-Forwarded-* headers are believed for request.ip,
// .protocol and .host, which rate limits, the origin check and Secure cookies read.
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
 * Unset or "0": forwarded headers are ignored. Fastify 5 refuses a bare hop count, so it becomes a function,
 * right only when nothing but the proxy reaches the server. Ranges are checked so a typo names the variable.
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
