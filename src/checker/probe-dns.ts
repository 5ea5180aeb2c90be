// One `dns` check: ask the resolver (c-ares, the operator's DNS_SERVERS or the system's) for one record type
// of one name, apply the address policy to the answer, then the expected values. Never throws.
import { Resolver } from 'node:dns/promises'
import { isIP } from 'node:net'
import ipaddr from 'ipaddr.js'
import type { DnsRecordType } from '../domain/vocabulary.ts'
import { isPrivateName, privateTargetReason } from '../net/address-policy.ts'
import type { ProbeResult } from './probe-result.ts'
import { checkDeadline, plainResult, untilAborted } from './probe-deadline.ts'
import { oneLine } from '../net/network-errors.ts'
import { HINT } from '../net/pinned-lookup.ts'

export interface DnsProbeTarget {
  type: 'dns'
  /** `dns://name`: a host name; no port, no path, never an IP address. */
  url: string
  recordType: DnsRecordType
  /** Values the answer must all contain; null or empty: any answer with records will do. */
  expected?: string[] | null
  timeoutSeconds: number
}

export interface DnsProbeOptions {
  /** Whether localhost-like names may be asked about (the policy on names); addresses go by isAllowed. */
  allowPrivateTargets: boolean
  isAllowed: (ip: string) => boolean
  servers?: string[]
  now: () => number
  signal?: AbortSignal
}

// c-ares's codes for the resolver's answers, as a person reading the check would name them.
const ANSWER_CODES: Record<string, string> = {
  ENOTFOUND: 'NXDOMAIN',
  ESERVFAIL: 'SERVFAIL',
  EREFUSED: 'REFUSED',
  ENOTIMP: 'NOTIMP',
  EFORMERR: 'FORMERR',
  EBADRESP: 'malformed answer from the resolver',
  ECONNREFUSED: 'connection refused by the resolver',
  EBADNAME: 'not a valid name',
}

/** Up when the answer has records of the type and every expected value, and passes the address policy, so that nobody
 * maps internal DNS through a monitor. */
export async function probeDns (target: DnsProbeTarget, options: DnsProbeOptions): Promise<ProbeResult> {
  const start = options.now()
  const elapsed = () => Math.max(0, Math.round(options.now() - start))
  const timeoutMs = Math.round(target.timeoutSeconds * 1000)
  if (options.signal?.aborted) return plainResult(false, 0, 'aborted')
  const type = target.recordType
  const parsed = parseDnsTarget(target.url)
  if ('failure' in parsed) return plainResult(false, elapsed(), parsed.failure)
  const name = parsed.name
  const failed = (why: string) => plainResult(false, elapsed(), `dns ${type} ${name}: ${why}`)
  if (isIP(parsed.host.hostname.replace(/^\[|\]$/g, '')) !== 0) return failed('an IP address is not a name to ask the resolver about')
  const privateName = options.allowPrivateTargets ? undefined : privateTargetReason(parsed.host)
  if (privateName !== undefined) return failed(`target refused: ${privateName}; ${HINT}`)

  // c-ares retries once (a lost UDP datagram) within the check's time; the deadline ends it in any case.
  const resolver = new Resolver({ timeout: Math.max(1, Math.ceil(timeoutMs / 2)), tries: 2 })
  const deadline = checkDeadline(timeoutMs, options.signal)
  deadline.signal.addEventListener('abort', () => resolver.cancel(), { once: true })
  let answer: string[]
  let responseTimeMs = 0
  let refusal: string | undefined
  try {
    if (options.servers !== undefined) resolver.setServers(options.servers)
    answer = await untilAborted(ask(resolver, name, type), deadline.signal)
    responseTimeMs = elapsed()
    // The policy comes before the expectation, whose message would list the answer.
    if (answer.length > 0) refusal = await untilAborted(policyRefusal(resolver, type, answer, options), deadline.signal)
  } catch (err) {
    const ended = deadline.ended()
    if (ended === 'aborted') return plainResult(false, elapsed(), 'aborted')
    const code = (err as { code?: unknown }).code
    if (ended === 'timeout' || code === 'ETIMEOUT') return failed(`timeout after ${timeoutMs} ms`)
    if (code === 'ENODATA') return failed(`no ${type} records`)
    return failed(typeof code === 'string' ? ANSWER_CODES[code] ?? code : oneLine(String((err as Error).message ?? err), 200))
  } finally {
    deadline.done()
  }
  const down = (why: string) => plainResult(false, responseTimeMs, `dns ${type} ${name}: ${why}`)
  if (answer.length === 0) return down(`no ${type} records`)
  if (refusal !== undefined) return down(refusal)
  const got = new Set(answer.map((value) => comparable(type, value)))
  const missing = (target.expected ?? []).filter((value) => !got.has(comparable(type, value)))
  if (missing.length === 0) return plainResult(true, responseTimeMs, null)
  // A TXT value cannot be judged public or private, so it is shown only where private targets are allowed.
  const seen = type !== 'TXT' || options.allowPrivateTargets
    ? `answer ${shown(type, answer)}`
    : `the answer (${answer.length} ${type} record${answer.length === 1 ? '' : 's'}, shown only when private targets are allowed)`
  return down(`expected ${shown(type, missing)} not in ${seen}`)
}

/** Why the answer fails the address policy (never naming what it holds); undefined when it passes. TXT is not judged. */
async function policyRefusal (resolver: Resolver, type: DnsRecordType, answer: string[], options: DnsProbeOptions): Promise<string | undefined> {
  if (type === 'A' || type === 'AAAA') return answer.every((address) => options.isAllowed(address)) ? undefined : `target refused: the answer holds a private address; ${HINT}`
  if (type === 'TXT' || options.allowPrivateTargets) return undefined
  const names = [...new Set(answer.map((value) => comparable(type, value)))]
  const privateName = `target refused: the answer names a private host; ${HINT}`
  if (names.some(isPrivateName)) return privateName
  const lookups = await Promise.all(names.flatMap((answerName) => [resolver.resolve4(answerName), resolver.resolve6(answerName)])
    .map((asked): Promise<{ addresses: string[], code?: unknown }> => asked.then((addresses) => ({ addresses }), (err: { code?: unknown }) => ({ addresses: [], code: err.code }))))
  if (lookups.some(({ addresses }) => addresses.some((address) => !options.isAllowed(address)))) return privateName
  // No such name, or no address of the family: nothing private to point at. Any other failure leaves the answer unjudged.
  const failed = lookups.find(({ code }) => code !== undefined && code !== 'ENOTFOUND' && code !== 'ENODATA')
  if (failed === undefined) return undefined
  const code = typeof failed.code === 'string' ? ANSWER_CODES[failed.code] ?? failed.code : 'unknown error'
  return `the answer's names could not be checked against the address policy (${code})`
}

/** The answer's values, one string each, in the resolver's order (MX by priority). */
async function ask (resolver: Resolver, name: string, type: DnsRecordType): Promise<string[]> {
  switch (type) {
    case 'A': return await resolver.resolve4(name)
    case 'AAAA': return await resolver.resolve6(name)
    case 'CNAME': return await resolver.resolveCname(name)
    case 'NS': return await resolver.resolveNs(name)
    case 'MX': return (await resolver.resolveMx(name)).sort((a, b) => a.priority - b.priority).map((record) => record.exchange)
    case 'TXT': return (await resolver.resolveTxt(name)).map((strings) => strings.join(''))
  }
}

/** Addresses compared as addresses, names without case or trailing dot, TXT values exactly. */
function comparable (type: DnsRecordType, value: string): string {
  if (type === 'TXT') return value
  if ((type === 'A' || type === 'AAAA') && isIP(value.trim()) !== 0) return ipaddr.parse(value.trim()).toString()
  return value.trim().toLowerCase().replace(/\.$/, '')
}

/** Values for a message: TXT ones quoted (they hold spaces and commas), others as they are. */
function shown (type: DnsRecordType, values: string[]): string {
  return values.map((value) => (type === 'TXT' ? JSON.stringify(value) : value)).join(', ')
}

/** The name of `dns://name` as an http URL reads it (punycode, 127.1 as 127.0.0.1): what is asked and what the policy sees. */
function parseDnsTarget (text: string): { name: string, host: URL } | { failure: string } {
  const invalid = { failure: `invalid dns target ${JSON.stringify(oneLine(text, 200))}: expected dns://name` }
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return invalid
  }
  if (url.protocol !== 'dns:') return { failure: `unsupported URL scheme ${url.protocol}` }
  if (url.hostname === '' || url.port || url.username || url.password || (url.pathname !== '' && url.pathname !== '/') || url.search || url.hash) {
    return invalid
  }
  try {
    const host = new URL(`http://${url.hostname}/`)
    return { name: host.hostname, host }
  } catch {
    return invalid
  }
}
