// Sends a channel's HTTP request: the target policy at connect, one deadline, no redirects, never throws.
import { performance } from 'node:perf_hooks'
import { Agent } from 'undici'
import { isPrivateAddress } from '../net/address-policy.ts'
import { defaultLookup, pinAddress, type Lookup } from '../net/pinned-lookup.ts'
import { describeNetworkError, oneLine } from '../net/network-errors.ts'
import type { HttpRequest, HttpSender, SendResult } from './transport.ts'

export interface HttpSenderOptions {
  allowPrivateTargets: boolean
  /** For the whole exchange: connect, request, response headers and the (bounded) body. */
  timeoutMs?: number
  /** The same for a receiver that keeps timing out; a third of timeoutMs when absent. */
  shortTimeoutMs?: number
  lookup?: Lookup
}

export const SEND_TIMEOUT_MS = 15_000
// A failed answer's start goes into last_error; the rest is drained, up to the cap, so that the connection is reused.
const KEPT_BODY_CHARS = 200
const MAX_BODY_BYTES = 64 * 1024
const TIMEOUT = Symbol('timeout')

export function createHttpSender (options: HttpSenderOptions): HttpSender {
  const lookup = options.lookup ?? defaultLookup
  const isAllowed = (ip: string) => options.allowPrivateTargets || !isPrivateAddress(ip)
  const fullTimeoutMs = options.timeoutMs ?? SEND_TIMEOUT_MS
  const shortTimeoutMs = options.shortTimeoutMs ?? Math.round(fullTimeoutMs / 3)
  // Connections are kept; undici reconnects when a request's Host differs, so one serves only the name it was checked for.
  const agent = new Agent({ headersTimeout: 0, bodyTimeout: 0, connect: { timeout: fullTimeoutMs }, keepAliveTimeout: 4000 })
  let closed = false

  async function send (request: HttpRequest, signal?: AbortSignal, short = false): Promise<SendResult> {
    const start = performance.now()
    const timeoutMs = short ? shortTimeoutMs : fullTimeoutMs
    const result = (statusCode: number | null, error: string | null, retryAfter?: number | Date): SendResult =>
      ({ ok: error === null, statusCode, durationMs: Math.max(0, Math.round(performance.now() - start)), error, retryAfter })
    if (closed) return result(null, 'sender closed')
    let url: URL
    try {
      url = new URL(request.url)
    } catch {
      return result(null, 'invalid URL')
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return result(null, `unsupported URL scheme ${url.protocol}`)
    const deadline = new AbortController()
    const timer = setTimeout(() => deadline.abort(TIMEOUT), timeoutMs)
    const onAbort = () => deadline.abort(signal?.reason)
    signal?.addEventListener('abort', onAbort, { once: true })
    try {
      const pinned = await pinAddress(url, lookup, isAllowed, deadline.signal)
      if ('failure' in pinned) return result(null, pinned.failure)
      const ip = pinned.family === 6 ? `[${pinned.address}]` : pinned.address
      const port = url.port || (url.protocol === 'https:' ? '443' : '80')
      const response = await agent.request({
        origin: `${url.protocol}//${ip}:${port}`,
        path: url.pathname + url.search,
        method: 'POST',
        headers: { ...request.headers, host: url.host },
        body: request.body,
        signal: deadline.signal,
      })
      response.body.on('error', () => {})
      const kept = await readStart(response.body)
      const { statusCode } = response
      if (statusCode >= 200 && statusCode < 300) return result(statusCode, null)
      const retryAfter = parseRetryAfter(response.headers['retry-after'])
      const said = kept ? `: ${oneLine(kept, KEPT_BODY_CHARS)}` : ''
      const what = statusCode >= 300 && statusCode < 400 ? ' (redirects are not followed)' : ''
      return result(statusCode, `HTTP ${statusCode}${what}${said}`, retryAfter)
    } catch (err) {
      if (deadline.signal.reason === TIMEOUT) return { ...result(null, `timeout after ${timeoutMs} ms`), timedOut: true }
      if (signal?.aborted) return result(null, 'aborted')
      return result(null, closed ? 'sender closed' : describeNetworkError(err))
    } finally {
      clearTimeout(timer)
      signal?.removeEventListener('abort', onAbort)
    }
  }

  let closing: Promise<void> | undefined
  return {
    send,
    close () {
      closed = true
      return (closing ??= agent.close())
    },
  }
}

/** The start of a body as text; the rest is read and dropped up to a cap, past which the connection is closed. */
async function readStart (body: AsyncIterable<Buffer> & { destroy: () => void }): Promise<string> {
  let text = ''
  let bytes = 0
  for await (const chunk of body) {
    if (text.length < KEPT_BODY_CHARS) text += chunk.toString('utf8', 0, Math.min(chunk.length, KEPT_BODY_CHARS * 4))
    bytes += chunk.length
    if (bytes > MAX_BODY_BYTES) {
      body.destroy()
      break
    }
  }
  return text
}

/** A Retry-After header as milliseconds (delay seconds) or a Date (an HTTP date); undefined when absent or unreadable. */
export function parseRetryAfter (value: string | string[] | undefined): number | Date | undefined {
  const text = (Array.isArray(value) ? value[0] : value)?.trim()
  if (!text) return undefined
  if (/^\d+$/.test(text)) return Number(text) * 1000
  // An HTTP date starts with its weekday, in all three forms; Date.parse alone would read "-3" as a year.
  if (!/^[a-z]{3,9},?\s/i.test(text)) return undefined
  const at = Date.parse(text)
  return Number.isNaN(at) ? undefined : new Date(at)
}
