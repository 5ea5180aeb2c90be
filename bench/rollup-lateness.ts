// Issue 16's second condition on the day build: one checker worker's lateness while its own rollups job builds a
// day of 1/min checks, against the same worker's lateness just before, on the rollups benchmark's database.
import { join } from 'node:path'
import type { Runner } from './database.ts'
import { freePort } from '../test/support/target-server.ts'
import { latenessIn } from './checker-bench.ts'
import { startNode, waitForHttp } from './processes.ts'

export interface BuildLatenessOptions {
  url: string
  db: Runner
  /** The monitors whose day of checks is in the database; the worker checks them, 1/min, due spread over the minute. */
  monitorIds: string[]
  /** The start of the day of checks. */
  day: number
  warmupSeconds: number
  baselineSeconds: number
  logDir: string
  log: (line: string) => void
}

export interface BuildLateness {
  baseline: Awaited<ReturnType<typeof latenessIn>>
  during: Awaited<ReturnType<typeof latenessIn>>
  /** From the job's first built hour of the day to its day row, wall time (the job rests as long as it builds). */
  buildWallSeconds: number
}

const HOUR_MS = 3_600_000
const DAY_MS = 86_400_000
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

async function progress (db: Runner): Promise<{ hour: number, day: number }> {
  const rows = await db.query('select granularity, (extract(epoch from built_until) * 1000)::float8 as until from rollup_progress')
  const of = (granularity: string) => Number(rows.find((row) => row.granularity === granularity)?.until)
  return { hour: of('hour'), day: of('day') }
}

/**
 * Starts a worker with nothing for its rollups job to do, measures its lateness for `baselineSeconds` after a
 * warm-up, then sets the job's progress back to the day: at its next run (within a minute) the job builds the day's
 * 24 hours and the day, as it does at every day's end, and the lateness is measured again over that build.
 */
export async function measureLatenessDuringBuild (options: BuildLatenessOptions): Promise<BuildLateness> {
  const { db, day } = options
  const saved = await progress(db)
  const targetPort = await freePort()
  const target = startNode('bench/target-server.ts', { PORT: String(targetPort) }, { logFile: join(options.logDir, 'lateness-target.log') })
  const start = new Date(Date.now() + 3000)
  let worker: ReturnType<typeof startNode> | undefined
  try {
    await waitForHttp(`http://127.0.0.1:${targetPort}/__stats`, target)
    const monitors = options.monitorIds.length
    await db.query(`
      with due as (select m, (row_number() over ())::int - 1 as idx from unnest($1::uuid[]) m)
      update monitors set url = $2 || '/m' || due.idx, interval_minutes = 1, is_active = true, status = 'up',
        consecutive_failures = 0, consecutive_successes = 1,
        next_check_at = $3::timestamptz + (due.idx::float8 / $4) * interval '60 seconds'
      from due where monitors.id = due.m`, [options.monitorIds, `http://127.0.0.1:${targetPort}`, start.toISOString(), monitors])
    await db.exec(`drop table if exists bench_due;
      create table bench_due as select id as monitor_id, next_check_at as due_at from monitors where next_check_at is not null;
      analyze monitors`)
    // Nothing due for the job: every hour up to the current one built.
    const now = Date.now()
    await db.query('update rollup_progress set built_until = $1::timestamptz where granularity = \'hour\'', [new Date(now - now % HOUR_MS).toISOString()])
    await db.query('update rollup_progress set built_until = $1::timestamptz where granularity = \'day\'', [new Date(now - now % DAY_MS).toISOString()])
    worker = startNode('src/worker.ts', { DATABASE_URL: options.url, ALLOW_PRIVATE_TARGETS: 'true', LOG_LEVEL: 'warn' },
      { logFile: join(options.logDir, 'lateness-worker.log') })
    const baselineFrom = new Date(start.getTime() + options.warmupSeconds * 1000)
    const baselineTo = new Date(baselineFrom.getTime() + options.baselineSeconds * 1000)
    await sleep(baselineTo.getTime() - Date.now())
    await db.query('update rollup_progress set built_until = $1::timestamptz', [new Date(day).toISOString()])
    options.log('  rollups: the worker\'s job builds the day again (it looks every minute)')
    let buildFrom: Date | undefined
    for (;;) {
      await sleep(250)
      const { hour, day: daysBuilt } = await progress(db)
      if (buildFrom === undefined && hour > day) buildFrom = new Date(Date.now() - 250)
      if (daysBuilt >= day + DAY_MS) break
      if (Date.now() - baselineTo.getTime() > 15 * 60_000) throw new Error('the rollups job did not build the day within 15 minutes')
    }
    const buildTo = new Date()
    await worker.stop()
    worker = undefined
    return {
      baseline: await latenessIn(db, start, baselineFrom, baselineTo),
      during: await latenessIn(db, start, buildFrom!, buildTo),
      buildWallSeconds: (buildTo.getTime() - buildFrom!.getTime()) / 1000,
    }
  } finally {
    await worker?.stop()
    await target.stop()
    // As the rollups benchmark seeded it: the monitors unscheduled, the progress where it was.
    await db.query('update monitors set next_check_at = null where id = any($1::uuid[])', [options.monitorIds])
    await db.query('update rollup_progress set built_until = $1::timestamptz where granularity = \'hour\'', [new Date(saved.hour).toISOString()])
    await db.query('update rollup_progress set built_until = $1::timestamptz where granularity = \'day\'', [new Date(saved.day).toISOString()])
  }
}
