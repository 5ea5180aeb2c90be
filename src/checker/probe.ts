// One HTTP(S) check of a monitor: pinned addresses, bounded time, bounded body, manual redirects, never throws.
import type { HttpMethod } from '../domain/vocabulary.ts'
import { performance } from 'node:perf_hooks'
import { Agent, type Dispatcher } from 'undici'
import { isPrivateAddress } from '../net/address-policy.ts'
import { defaultLookup, pinAddress, type Lookup } from './pinned-lookup.ts'
import { describeNetworkError, oneLine } from './probe-errors.ts'

export interface ProbeTarget {
  url: string
  method: HttpMethod
  expectedStatus: number // 100-599
  timeoutSeconds: number // 1-60, for the WHOLE exchange incl. redirects and reading the body
}

interface ProbeResult {
  isUp: boolean // true exactly when a final response arrived with statusCode === expectedStatus
  /**
   * Status of the response that ended the check: the final one, or a redirect that was not followed
   * (too many, unusable Location); null when none did (DNS, refused target, connect, TLS, reset, timeout).
   */
  statusCode: number | null
  responseTimeMs: number // integer ms from the start until the final response's headers (or the failure)
  errorMessage: string | null // null when up; else one line saying what happened
}

export interface ProbeOptions {
  allowPrivateTargets: boolean
  /** DNS lookup, injectable for tests (default: node:dns/promises lookup with {all:true}). Returns all addresses. */
  lookup?: Lookup
  /** Max bytes of body read and discarded (default 1 MiB); the rest is not read (connection destroyed). */
  maxBodyBytes?: number
  now?: () => number // ms clock for timing, default performance.now
  /** Which addresses may be connected to; default `(ip) => allowPrivateTargets || !isPrivateAddress(ip)`. For tests. */
  isAllowedAddress?: (ip: string) => boolean
}

export interface Prober {
  /**
   * Never rejects. When `signal` aborts, resolves at once with a failed result whose errorMessage is
   * "aborted" (statusCode null), which the caller is expected not to record.
   */
  probe (target: ProbeTarget, signal?: AbortSignal): Promise<ProbeResult>
  /** Waits for in-flight probes and releases the sockets; later probes fail with "prober closed". */
  close (): Promise<void>
}

export const USER_AGENT = 'Pingward/0.1 (+https://github.com/pingward/pingward)'
const MAX_REDIRECTS = 5
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308])
const TIMEOUT = Symbol('timeout')
const ABORTED = Symbol('aborted')

export function createProber (options: ProbeOptions): Prober {
  const lookup = options.lookup ?? defaultLookup
  const isAllowed = options.isAllowedAddress ?? ((ip: string) => options.allowPrivateTargets || !isPrivateAddress(ip))
  const maxBodyBytes = options.maxBodyBytes ?? 1024 * 1024
  const now = options.now ?? (() => performance.now())
  // Every request says "connection: close" (reset: true), so no socket outlives its check; undici's own
  // timeouts are pushed beyond the longest check so that the per-check deadline alone decides.
  const agent = new Agent({ headersTimeout: 0, bodyTimeout: 0, connect: { timeout: 61_000 } })
  let closed = false

  async function probe (target: ProbeTarget, signal?: AbortSignal): Promise<ProbeResult> {
    const start = now()
    const elapsed = () => Math.max(0, Math.round(now() - start))
    const timeoutMs = Math.round(target.timeoutSeconds * 1000)
    const failed = (statusCode: number | null, message: string): ProbeResult =>
      ({ isUp: false, statusCode, responseTimeMs: elapsed(), errorMessage: oneLine(message) })
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
        const response = await agent.request({
          origin: `${url.protocol}//${ip}:${port}`,
          path: url.pathname + url.search,
          method,
          headers: { host: url.host, 'user-agent': USER_AGENT, accept: '*/*' },
          body: method === 'POST' || method === 'PUT' || method === 'PATCH' ? '' : null,
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
          // Like browsers: 303 turns anything but HEAD into GET, 301/302 turn POST into GET.
          if ((statusCode === 303 && method !== 'HEAD') || ((statusCode === 301 || statusCode === 302) && method === 'POST')) method = 'GET'
          url = next
          continue
        }
        const responseTimeMs = elapsed()
        // Read (never kept) up to the cap so the server sees a normal client; past the cap undici destroys
        // the connection. The deadline also ends a trickling body; the status has already decided the result.
        if (maxBodyBytes > 0) await response.body.dump({ limit: maxBodyBytes }).catch(() => {})
        else response.body.destroy() // dump() would take 0 as its 128 KiB default
        const isUp = statusCode === target.expectedStatus
        return { isUp, statusCode, responseTimeMs, errorMessage: isUp ? null : `expected status ${target.expectedStatus}, got ${statusCode}` }
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
    }
  }

  return {
    probe,
    async close () {
      closed = true
      await agent.close()
    },
  }
}

/** Names where a later hop failed: only the origin, since paths and queries may carry secrets. */
function after (hop: number, url: URL): string {
  return hop === 0 ? '' : ` (after ${hop} redirect${hop === 1 ? '' : 's'}, at ${url.origin})`
}

function firstHeader (value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value
}
