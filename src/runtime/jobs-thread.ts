// Starts src/jobs-thread.ts, the background jobs on a thread of their own, and speaks to it: its metrics for this
// process's scrape, and the stop that lets its last checks be recorded.
import { Worker } from 'node:worker_threads'
import type { FastifyBaseLogger } from 'fastify'
import type { Metrics, MetricsSnapshot } from './metrics.ts'

export interface JobsThreadData {
  /** Whether the thread keeps instruments (METRICS_TOKEN set): the main thread's scrape sums them in. */
  metrics: boolean
  poolSize: number
}
export type ToJobsThread = { type: 'metrics', id: number } | { type: 'stop' }
export type FromJobsThread = { type: 'started' } | { type: 'metrics', id: number, snapshot: MetricsSnapshot } | { type: 'stopped' }

// The entry beside this file's folder: JavaScript in dist/; in a checkout TypeScript, whose types Node strips (a
// loader such as tsx, registered on this thread, does not reach a new one).
const fromSource = import.meta.url.endsWith('.ts')
const entry = new URL(`../jobs-thread${fromSource ? '.ts' : '.js'}`, import.meta.url)
/** The flags by which Node runs this checkout's TypeScript itself (the tests' child processes take them too). */
export const STRIP_TYPES_ARGV = ['--experimental-strip-types', '--disable-warning=ExperimentalWarning']
const execArgv = fromSource ? [...process.execArgv, ...STRIP_TYPES_ARGV] : undefined

export interface JobsThreadOptions {
  log: FastifyBaseLogger
  metrics?: Metrics
  poolSize: number
  /** The thread's module (tests give another). */
  entry?: URL
  /** Hears the thread's failure; by default it is thrown here, so that the process stops as for an error of its own. */
  onFailure?: (err: Error) => void
}

/** The jobs thread, started. */
export function startJobsThread (options: JobsThreadOptions) {
  const worker = new Worker(options.entry ?? entry, { execArgv, workerData: { metrics: Boolean(options.metrics), poolSize: options.poolSize } satisfies JobsThreadData })
  const replies = new Map<number, (snapshot: MetricsSnapshot | undefined) => void>()
  let alive = true
  // A scrape while the thread is gone (stopping) counts this thread's metrics alone.
  const exited = new Promise<void>((resolve) => worker.once('exit', () => {
    alive = false
    for (const reply of replies.values()) reply(undefined)
    replies.clear()
    resolve()
  }))
  let nextId = 0
  worker.on('message', (message: FromJobsThread) => {
    if (message.type === 'metrics') {
      replies.get(message.id)?.(message.snapshot)
      replies.delete(message.id)
    } else if (message.type === 'stopped') {
      worker.terminate()
    } else {
      options.log.info({ threadId: worker.threadId }, 'jobs running on their own thread')
    }
  })
  worker.on('error', (err) => {
    options.log.error({ err }, 'the jobs thread failed')
    if (options.onFailure) options.onFailure(err)
    else throw err
  })
  options.metrics?.addPeer(() => alive
    ? new Promise((resolve) => {
      const id = ++nextId
      replies.set(id, resolve)
      worker.postMessage({ type: 'metrics', id } satisfies ToJobsThread)
    })
    : Promise.resolve(undefined))
  return {
    stop: async (): Promise<void> => {
      if (alive) worker.postMessage({ type: 'stop' } satisfies ToJobsThread)
      await exited
    },
  }
}
