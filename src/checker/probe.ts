// One check of a monitor: an HTTP(S) one here (pinned addresses, bounded time, bounded body, manual
// redirects, its assertions: status, keyword, response time), a tcp or dns one by their modules. Never throws.
import type { HttpMethod, KeywordMode } from '../domain/vocabulary.ts'
import { performance } from 'node:perf_hooks'
import { buildConnector, Client, type Dispatcher } from 'undici'
import { isSecretHeader } from '../domain/monitor-request.ts'
import { isPrivateAddress } from '../net/address-policy.ts'
import { originPools } from './origin-pools.ts'
import { cachingLookup } from '../net/caching-lookup.ts'
import { pinAddress, type Lookup } from '../net/pinned-lookup.ts'
import { describeNetworkError, oneLine } from '../net/network-errors.ts'
import { USER_AGENT } from '../net/user-agent.ts'
import { probeDns, type DnsProbeTarget } from './probe-dns.ts'
import { probeTcp, type TcpProbeTarget } from './probe-tcp.ts'
import { quietResets } from './quiet-resets.ts'
import { certificateConnector, CONNECT_TIMEOUT_MS, verifyingConnector, type TlsCertificate } from './tls-certificate.ts'
import type { ProbeResult } from './probe-result.ts'

/** What a check of a monitor of each checked type needs (api-contract section 9). */
export type CheckTarget = ProbeTarget | TcpProbeTarget | DnsProbeTarget

export interface ProbeTarget {
  type?: 'site' // the default
  url: string
  method: HttpMethod
  expectedStatus: number // 100-599
  timeoutSeconds: number // 1-60, for the WHOLE exchange incl. redirects and reading the body
  /** Sent on every hop (secret ones only to the first origin); a name here replaces a default in any case; never `host`. */
  requestHeaders?: Record<string, string>
  secretHeaders?: readonly string[]
  /** Sent with methods other than GET and HEAD; null (default): empty for POST, PUT and PATCH, none otherwise. */
  requestBody?: string | null
  /** Looked for in the first maxBodyBytes of the final body, as UTF-8 bytes, case-sensitive; null (default): not looked for. */
  keyword?: string | null
  keywordMode?: KeywordMode // default contains
  /** A check that passes but whose responseTimeMs is greater is degraded; null (default): never. */
  degradedAfterMs?: number | null
}

export interface ProbeOptions {
  allowPrivateTargets: boolean
  /** DNS lookup, for tests; default cachingLookup(). Returns all addresses. */
  lookup?: Lookup
  /** Max bytes of body read (and searched for the keyword) and discarded (default 1 MiB); the rest is not read (connection destroyed). */
  maxBodyBytes?: number
  now?: () => number // ms clock for timing, default performance.now
  tlsCa?: string | Buffer
  /** Which addresses may be connected to (and be a dns answer), for tests. */
  isAllowedAddress?: (ip: string) => boolean
  dnsServers?: string[]
}

export interface Prober {
  /** Never rejects; once `signal` aborts it resolves with errorMessage "aborted", which the caller does not record. */
  probe (target: CheckTarget, signal?: AbortSignal): Promise<ProbeResult>
  /** Waits for in-flight probes and releases the sockets; later probes fail with "prober closed". */
  close (): Promise<void>
}

const DEFAULT_HEADERS: Record<string, string> = { 'user-agent': USER_AGENT, accept: '*/*' }
// Describe the body, so they go with it when a redirect turns the request into a GET (fetch's request-body-header names).
const BODY_HEADERS = new Set(['content-type', 'content-encoding', 'content-language', 'content-location'])
const MAX_REDIRECTS = 5
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308])
const TIMEOUT = Symbol('timeout')
const ABORTED = Symbol('aborted')

export function createProber (options: ProbeOptions): Prober {
  const lookup = options.lookup ?? cachingLookup()
  const isAllowed = options.isAllowedAddress ?? ((ip: string) => options.allowPrivateTargets || !isPrivateAddress(ip))
  const maxBodyBytes = options.maxBodyBytes ?? 1024 * 1024
  const now = options.now ?? (() => performance.now())
  // Every request says "connection: close" (reset: true); undici's own timeouts are off so that the check's deadline decides.
  const pools = originPools({ headersTimeout: 0, bodyTimeout: 0, connect: quietResets(buildConnector({ timeout: CONNECT_TIMEOUT_MS })) })
  // HTTPS goes through a client of its own per hop, whose connector sees the certificate (undici's pool hides the socket).
  const tlsConnector = quietResets(verifyingConnector(options.tlsCa))
  const httpsClients = new Set<Client>()
  // tcp and dns checks in flight, which close() waits for (each is bounded by its own time limit).
  const others = new Set<Promise<ProbeResult>>()
  let closed = false

  function probe (target: CheckTarget, signal?: AbortSignal): Promise<ProbeResult> {
    if (target.type !== 'tcp' && target.type !== 'dns') return probeHttp(target, signal)
    if (closed) return Promise.resolve({ isUp: false, degraded: false, statusCode: null, responseTimeMs: 0, errorMessage: 'prober closed' })
    const running = target.type === 'tcp'
      ? probeTcp(target, { lookup, isAllowed, now, signal })
      : probeDns(target, { allowPrivateTargets: options.allowPrivateTargets, isAllowed, servers: options.dnsServers, now, signal })
    others.add(running)
    return running.finally(() => others.delete(running))
  }

  async function probeHttp (target: ProbeTarget, signal?: AbortSignal): Promise<ProbeResult> {
    const start = now()
    const elapsed = () => Math.max(0, Math.round(now() - start))
    const timeoutMs = Math.round(target.timeoutSeconds * 1000)
    let certificate: TlsCertificate | undefined
    const used: Client[] = []
    const failed = (statusCode: number | null, message: string): ProbeResult =>
      ({ isUp: false, degraded: false, statusCode, responseTimeMs: elapsed(), errorMessage: oneLine(message), ...(certificate && { tls: certificate }) })
    if (closed) return failed(null, 'prober closed')
    if (signal?.aborted) return failed(null, 'aborted')

    const deadline = new AbortController()
    const timer = setTimeout(() => deadline.abort(TIMEOUT), timeoutMs)
    const onAbort = () => deadline.abort(ABORTED)
    signal?.addEventListener('abort', onAbort, { once: true })
    let hop = 0
    let url: URL | undefined
    try {
      url = new URL(target.url)
      let method: Dispatcher.HttpMethod = target.method
      let headers = requestHeaders(target.requestHeaders)
      let body = method === 'GET' || method === 'HEAD'
        ? null
        : target.requestBody ?? (method === 'POST' || method === 'PUT' || method === 'PATCH' ? '' : null)
      // A 3xx can be the expected answer (e.g. "http:// must redirect to https://"), then nothing is followed.
      const follow = target.expectedStatus < 300 || target.expectedStatus > 399
      for (;; hop++) {
        if (url.protocol !== 'http:' && url.protocol !== 'https:') return failed(null, `unsupported URL scheme ${url.protocol}`)
        const pinned = await pinAddress(url, lookup, isAllowed, deadline.signal)
        if ('failure' in pinned) return failed(null, pinned.failure + after(hop, url))
        const ip = pinned.family === 6 ? `[${pinned.address}]` : pinned.address
        const port = url.port || (url.protocol === 'https:' ? '443' : '80')
        // The origin is the checked IP, so undici never resolves the name again (no DNS-rebinding window);
        // the Host header keeps virtual hosting working and undici derives the TLS servername (SNI) from it.
        const origin = `${url.protocol}//${ip}:${port}`
        let dispatcher: Dispatcher = pools.get(origin)
        if (url.protocol === 'https:') {
          const client = new Client(origin, {
            headersTimeout: 0, bodyTimeout: 0, connect: certificateConnector(tlsConnector, (seen) => { certificate ??= seen }),
          })
          httpsClients.add(client)
          used.push(client)
          dispatcher = client
        }
        const response = await dispatcher.request({
          origin,
          path: url.pathname + url.search,
          method,
          headers: { ...headers, host: url.host },
          body,
          reset: true,
          signal: deadline.signal,
        })
        // Destroying an unread body makes it emit an error; nobody else listens, so it must not crash.
        response.body.on('error', () => {})
        const { statusCode } = response
        const location = firstHeader(response.headers.location)
        if (follow && REDIRECT_STATUSES.has(statusCode) && location !== undefined) {
          response.body.destroy()
          if (hop === MAX_REDIRECTS) return failed(statusCode, `too many redirects (more than ${MAX_REDIRECTS})`)
          let next: URL
          try {
            next = new URL(location, url)
          } catch {
            return failed(statusCode, `invalid redirect Location ${JSON.stringify(oneLine(location, 200))}`)
          }
          if (next.protocol !== 'http:' && next.protocol !== 'https:') {
            return failed(statusCode, `redirect to unsupported URL scheme ${next.protocol} (only http and https are followed)`)
          }
          // Like browsers: 303 turns anything but HEAD into GET, 301/302 turn POST into GET; the body goes.
          if ((statusCode === 303 && method !== 'HEAD') || ((statusCode === 301 || statusCode === 302) && method === 'POST')) {
            method = 'GET'
            body = null
            headers = withoutHeaders(headers, (name) => BODY_HEADERS.has(name))
          }
          // Like browsers' fetch: credentials are for the origin they were given for, and once dropped stay dropped.
          if (next.origin !== url.origin) headers = withoutHeaders(headers, (name) => isSecretHeader(name, target.secretHeaders ?? []))
          url = next
          continue
        }
        // The final response: timed at its headers, whatever its body does later.
        const responseTimeMs = elapsed()
        const answered = (isUp: boolean, message: string | null, degraded = false): ProbeResult =>
          ({ isUp, degraded, statusCode, responseTimeMs, errorMessage: message === null ? null : oneLine(message), ...(certificate && { tls: certificate }) })
        // The status comes first: a wrong one is the failure, whatever the body holds.
        if (statusCode !== target.expectedStatus) {
          await discardBody(response.body)
          return answered(false, `expected status ${target.expectedStatus}, got ${statusCode}`)
        }
        if (target.keyword != null) {
          const failure = await keywordFailure(response.body, target.keyword, target.keywordMode ?? 'contains', deadline.signal, timeoutMs)
          if (failure !== null) return answered(false, failure)
        } else {
          await discardBody(response.body)
        }
        const degradedAfterMs = target.degradedAfterMs
        if (degradedAfterMs != null && responseTimeMs > degradedAfterMs) {
          return answered(true, `response took ${responseTimeMs} ms, degraded after ${degradedAfterMs} ms`, true)
        }
        return answered(true, null)
      }
    } catch (err) {
      if (deadline.signal.reason === TIMEOUT) return failed(null, `timeout after ${timeoutMs} ms`)
      if (deadline.signal.reason === ABORTED) return failed(null, 'aborted')
      if (url === undefined) return failed(null, `invalid URL ${JSON.stringify(oneLine(target.url, 200))}`)
      if (closed) return failed(null, 'prober closed')
      return failed(null, describeNetworkError(err) + after(hop, url))
    } finally {
      clearTimeout(timer)
      signal?.removeEventListener('abort', onAbort)
      for (const client of used) {
        httpsClients.delete(client)
        client.destroy().catch(() => {})
      }
    }
  }

  /** Read up to the cap so the server sees a normal client; the status has already decided the result. */
  async function discardBody (body: Dispatcher.ResponseData['body']): Promise<void> {
    if (maxBodyBytes > 0) await body.dump({ limit: maxBodyBytes }).catch(() => {})
    else body.destroy() // dump() would take 0 as its 128 KiB default
  }

  /** Reads the body only until the keyword decides; null when the assertion holds, else why not. Throws when aborted or closed. */
  async function keywordFailure (
    body: Dispatcher.ResponseData['body'], keyword: string, mode: KeywordMode, deadline: AbortSignal, timeoutMs: number
  ): Promise<string | null> {
    const quoted = JSON.stringify(oneLine(keyword, 100))
    const find = keywordFinder(Buffer.from(keyword, 'utf8'))
    let read = 0
    let found = false
    try {
      if (maxBodyBytes > 0) {
        for await (const data of body) {
          const chunk = data as Buffer
          const part = read + chunk.length > maxBodyBytes ? chunk.subarray(0, maxBodyBytes - read) : chunk
          read += part.length
          if (find(part)) {
            found = true
            break
          }
          if (read >= maxBodyBytes) break
        }
      }
    } catch (err) {
      if (deadline.reason === ABORTED || closed) throw err
      // The body ended early: what was read did not decide, so the assertion cannot be said to hold.
      const why = deadline.reason === TIMEOUT ? `timeout after ${timeoutMs} ms` : describeNetworkError(err)
      return `${why} while reading the body: keyword ${quoted} not found in its first ${read} bytes`
    } finally {
      body.destroy() // read as far as needed: the rest is not (for await has done so already when it stopped early)
    }
    if (mode === 'contains') return found ? null : `keyword ${quoted} not found in the first ${size(maxBodyBytes)}`
    return found ? `keyword ${quoted} found in the first ${size(maxBodyBytes)}` : null
  }

  return {
    probe,
    async close () {
      closed = true
      await Promise.all([pools.close(), ...[...httpsClients].map((client) => client.close()), ...others])
    },
  }
}

/** Finds `needle` in a body given chunk by chunk, across chunk boundaries, keeping only needle.length - 1 bytes between them. */
export function keywordFinder (needle: Buffer): (chunk: Buffer) => boolean {
  const keep = needle.length - 1
  let tail = Buffer.alloc(0)
  return (chunk) => {
    // A match that starts in the tail ends within the chunk's first `keep` bytes.
    if (tail.length > 0 && Buffer.concat([tail, chunk.subarray(0, keep)]).includes(needle)) return true
    if (chunk.includes(needle)) return true
    if (keep > 0) {
      // A copy: a view would keep the whole chunk alive.
      tail = chunk.length >= keep ? Buffer.from(chunk.subarray(chunk.length - keep)) : Buffer.concat([tail, chunk]).subarray(-keep)
    }
    return false
  }
}

function requestHeaders (own: Record<string, string> | undefined): Record<string, string> {
  if (own === undefined) return DEFAULT_HEADERS
  const names = new Set(Object.keys(own).map((name) => name.toLowerCase()))
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(DEFAULT_HEADERS)) if (!names.has(name)) headers[name] = value
  for (const [name, value] of Object.entries(own)) if (name.toLowerCase() !== 'host') headers[name] = value
  return headers
}

function withoutHeaders (headers: Record<string, string>, drop: (lowerName: string) => boolean): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !drop(name.toLowerCase())))
}

function size (bytes: number): string {
  if (bytes > 0 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`
  if (bytes > 0 && bytes % 1024 === 0) return `${bytes / 1024} KiB`
  return `${bytes} bytes`
}

/** Names where a later hop failed: only the origin, since paths and queries may carry secrets. */
function after (hop: number, url: URL): string {
  return hop === 0 ? '' : ` (after ${hop} redirect${hop === 1 ? '' : 's'}, at ${url.origin})`
}

function firstHeader (value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value
}
