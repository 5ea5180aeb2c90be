// The bounds of one tcp or dns check: its time limit and the caller's abort, as one signal that says which ended it.
import type { ProbeResult } from './probe-result.ts'
import { oneLine } from '../net/network-errors.ts'

export interface CheckDeadline {
  signal: AbortSignal
  /** What ended the check early, if anything did. */
  ended: () => 'timeout' | 'aborted' | undefined
  /** Clears the timer and the listener on the caller's signal; call it when the check is done. */
  done: () => void
}

export function checkDeadline (timeoutMs: number, callerSignal?: AbortSignal): CheckDeadline {
  const controller = new AbortController()
  let reason: 'timeout' | 'aborted' | undefined
  const end = (why: 'timeout' | 'aborted') => {
    reason ??= why
    controller.abort(new Error(why))
  }
  const timer = setTimeout(() => end('timeout'), timeoutMs)
  const onAbort = () => end('aborted')
  if (callerSignal?.aborted) end('aborted')
  else callerSignal?.addEventListener('abort', onAbort, { once: true })
  return {
    signal: controller.signal,
    ended: () => reason,
    done: () => {
      clearTimeout(timer)
      callerSignal?.removeEventListener('abort', onAbort)
    },
  }
}

/** Settles with `promise`, or rejects as soon as `signal` aborts (a connect or a query is then abandoned by the caller). */
export function untilAborted<T> (promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason)
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason)
    signal.addEventListener('abort', onAbort, { once: true })
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort))
  })
}

/** The result of a check without an HTTP status: up (no message), or down saying why in one line. */
export function plainResult (isUp: boolean, responseTimeMs: number, message: string | null): ProbeResult {
  return { isUp, degraded: false, statusCode: null, responseTimeMs, errorMessage: message === null ? null : oneLine(message) }
}
