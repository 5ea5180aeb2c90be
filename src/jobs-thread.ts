// The background jobs of an API process on PostgreSQL, on a thread of their own (runtime/jobs-thread.ts starts it):
// checks then start on time however busy the API's requests keep the main thread.
import { parentPort, workerData } from 'node:worker_threads'
import pino from 'pino'
import { logSerializers } from './runtime/log-redaction.ts'
import { loadConfig } from './runtime/config.ts'
import { openDatabase, type DatabaseHandle } from './db/client.ts'
import { isDatabaseUnavailable } from './db/unavailable.ts'
import { pause } from './runtime/pause.ts'
import { startJobs } from './jobs.ts'
import { createMetrics } from './runtime/metrics.ts'
import type { JobsThreadData, ToJobsThread, FromJobsThread } from './runtime/jobs-thread.ts'

async function main (): Promise<void> {
  const port = parentPort!
  const data = workerData as JobsThreadData
  const config = loadConfig()
  const log = pino({ level: config.LOG_LEVEL, base: { role: 'jobs', pid: process.pid }, serializers: logSerializers })
  // Migrated by the main thread before it started this one; it may be away by now (an outage), as for the jobs' loops.
  let database: DatabaseHandle | undefined
  for (let waitMs = 250; !database; waitMs = Math.min(2 * waitMs, 5000)) {
    try {
      database = await openDatabase({ DATABASE_URL: config.DATABASE_URL, DATA_DIR: config.DATA_DIR, poolSize: data.poolSize })
    } catch (err) {
      if (!isDatabaseUnavailable(err)) throw err
      log.warn({ err }, 'jobs: the database is unavailable, trying again')
      await pause(waitMs)
    }
  }
  const metrics = data.metrics ? await createMetrics({ pool: () => database.poolUse(), runtime: false }) : undefined
  const jobs = startJobs({ config, db: database.db, log, metrics })
  const send = (message: FromJobsThread) => port.postMessage(message)
  port.on('message', (message: ToJobsThread) => {
    if (message.type === 'metrics') {
      (metrics?.snapshot() ?? Promise.resolve([])).then((snapshot) => send({ type: 'metrics', id: message.id, snapshot }))
    } else {
      jobs.stop().then(() => database.close()).then(() => {
        metrics?.close()
        send({ type: 'stopped' })
      })
    }
  })
  send({ type: 'started' })
}

// A failure ends the thread; the main thread's 'error' event stops the process, as a failure of in-process jobs would.
main()
