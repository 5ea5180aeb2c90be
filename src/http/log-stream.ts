// The API process's log stream: pino lines batched into writes of about 4 KB, flushed at least every second.
import pino from 'pino'

/** Bytes of log lines gathered before one write(2); bench/results.md gives what larger batches would save. */
export const LOG_BATCH_BYTES = 4096

export interface LogStream {
  stream: ReturnType<typeof pino.destination>
  /** Writes everything batched before the call; `done` runs once it is written. */
  flush: (done: () => void) => void
}

/**
 * No line is dropped: the batch has no size limit, the timer flushes a quiet server within `flushMs`, and pino
 * flushes synchronously when the process exits.
 */
export function batchedLogStream ({ dest = 1, flushMs = 1000 }: { dest?: number | string, flushMs?: number } = {}): LogStream {
  // periodicFlush: sonic-boom's own timer (unref'd, cleared when the stream closes).
  const stream = pino.destination({ dest, sync: false, minLength: LOG_BATCH_BYTES, periodicFlush: flushMs })
  return {
    stream,
    // sonic-boom's flush() during a write only waits for that write: what came after it stays in the
    // batch. A second flush, once the first is done, writes that too.
    flush: (done) => { stream.flush(() => { stream.flush(() => done()) }) },
  }
}
