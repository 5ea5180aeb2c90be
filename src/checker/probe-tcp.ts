// One `tcp` check: resolve and policy-check the host as the HTTP probe does, open a connection to the checked
// address within the time limit, close it at once. Never throws.
import { connect, type Socket } from 'node:net'
import type { ProbeResult } from './probe-result.ts'
import { checkDeadline, plainResult, untilAborted } from './probe-deadline.ts'
import { describeNetworkError, oneLine } from '../net/network-errors.ts'
import { pinAddress, type Lookup } from '../net/pinned-lookup.ts'

export interface TcpProbeTarget {
  type: 'tcp'
  /** `tcp://host:port`: a name, an IPv4 address or a bracketed IPv6 address, and a port 1-65535. */
  url: string
  timeoutSeconds: number // for the lookup and the connect together
}

export interface TcpProbeOptions {
  lookup: Lookup
  isAllowed: (ip: string) => boolean
  now: () => number
  signal?: AbortSignal
}

/** Up when a connection to the checked address (IPv4 first, no other tried) opens in time; the lookup counts in its time. */
export async function probeTcp (target: TcpProbeTarget, options: TcpProbeOptions): Promise<ProbeResult> {
  const start = options.now()
  const elapsed = () => Math.max(0, Math.round(options.now() - start))
  const timeoutMs = Math.round(target.timeoutSeconds * 1000)
  if (options.signal?.aborted) return plainResult(false, 0, 'aborted')
  const parsed = parseTcpTarget(target.url)
  if ('failure' in parsed) return plainResult(false, elapsed(), parsed.failure)

  const deadline = checkDeadline(timeoutMs, options.signal)
  let socket: Socket | undefined
  try {
    const pinned = await pinAddress(parsed.host, options.lookup, options.isAllowed, deadline.signal)
    if ('failure' in pinned) return plainResult(false, elapsed(), pinned.failure)
    const opened = connect({ host: pinned.address, port: parsed.port, family: pinned.family })
    socket = opened
    // An error after the check is decided (the socket is destroyed by then) must not reach the process.
    opened.on('error', () => {})
    await untilAborted(new Promise<void>((resolve, reject) => {
      opened.once('connect', resolve)
      opened.once('error', reject)
    }), deadline.signal)
    return plainResult(true, elapsed(), null)
  } catch (err) {
    const ended = deadline.ended()
    if (ended === 'timeout') return plainResult(false, elapsed(), `timeout after ${timeoutMs} ms`)
    if (ended === 'aborted') return plainResult(false, elapsed(), 'aborted')
    return plainResult(false, elapsed(), describeNetworkError(err))
  } finally {
    deadline.done()
    // Nothing is sent: the connection opening was the check.
    socket?.destroy()
  }
}

/** Host and port of `tcp://host:port`, the host read as an http URL's would be, so the policy sees what the HTTP probe would. */
function parseTcpTarget (text: string): { host: URL, port: number } | { failure: string } {
  const invalid = { failure: `invalid tcp target ${JSON.stringify(oneLine(text, 200))}: expected tcp://host:port` }
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return invalid
  }
  if (url.protocol !== 'tcp:') return { failure: `unsupported URL scheme ${url.protocol}` }
  // A tcp:// URL is not special: it keeps any port as written and has no default one.
  const port = Number(url.port)
  if (url.port === '' || port < 1 || url.username || url.password || (url.pathname !== '' && url.pathname !== '/') || url.search || url.hash) {
    return invalid
  }
  try {
    return { host: new URL(`http://${url.hostname}/`), port }
  } catch {
    return invalid
  }
}
