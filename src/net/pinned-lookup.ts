// Resolves an outbound target's host once and checks every address, so a probe or a delivery connects only to an address it checked.
import { isIP } from 'node:net'
import { lookup as dnsLookup } from 'node:dns/promises'
import { oneLine } from './network-errors.ts'

export type Lookup = (hostname: string) => Promise<Array<{ address: string, family: 4 | 6 }>>

/** Every address of the name, in the resolver's order. */
export const defaultLookup: Lookup = async (hostname) =>
  (await dnsLookup(hostname, { all: true })).map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }))

/** The checked address to connect to, or why the host may not (or cannot) be connected to. */
export type Pinned = { address: string, family: 4 | 6 } | { failure: string }

export const HINT = 'the operator can allow private targets with ALLOW_PRIVATE_TARGETS=true'

/** Resolves the host and refuses it when ANY address is not allowed: whoever controls its DNS could steer it there. */
export async function pinAddress (url: URL, lookup: Lookup, isAllowed: (ip: string) => boolean, signal: AbortSignal): Promise<Pinned> {
  // The WHATWG parser has already turned 127.1 and 0x7f000001 into 127.0.0.1; IPv6 literals keep their brackets.
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1')
  const literal = isIP(host)
  if (literal !== 0) {
    return isAllowed(host) ? { address: host, family: literal === 6 ? 6 : 4 } : { failure: `target refused: ${host} is a private address; ${HINT}` }
  }
  let addresses: Awaited<ReturnType<Lookup>>
  try {
    addresses = await abortable(lookup(host), signal)
  } catch (err) {
    if (signal.aborted) throw signal.reason
    const code = (err as { code?: unknown }).code
    return { failure: `DNS lookup failed for ${host} (${typeof code === 'string' ? code : oneLine(String((err as Error).message ?? err))})` }
  }
  if (addresses.length === 0) return { failure: `DNS lookup failed for ${host} (no addresses)` }
  // The address itself is not named: that would map internal DNS for whoever may create monitors.
  if (addresses.some(({ address }) => !isAllowed(address))) return { failure: `target refused: ${host} resolves to a private address; ${HINT}` }
  // IPv4 first: a checker host without an IPv6 route would otherwise report dual-stack sites as down.
  return addresses.find(({ family }) => family === 4) ?? addresses[0]
}

/** Settles with `promise`, or rejects with the signal's reason as soon as it aborts (a resolver cannot be cancelled). */
function abortable<T> (promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason)
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason)
    signal.addEventListener('abort', onAbort, { once: true })
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort))
  })
}
