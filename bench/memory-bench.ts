// The small-box benchmark: one built server (node dist/server.js, API and checker) with 100 monitors checked
// every minute against a local target, used as a newcomer uses it (the dashboard and Swagger UI, browsed now and
// then): its resident memory from /proc (sampled, and the kernel's high-water mark), the time from spawn to its
// first answer, on a first start (empty database) and a restart.
import { join } from 'node:path'
import { readFileSync } from 'node:fs'
import { freePort } from '../test/support/target-server.ts'
import { Browser, browseOnce, signInWithSetupLink } from './browse.ts'
import { emptyPostgresDatabase } from './database.ts'
import { EXPERIMENT_NODE_ARGS, processStats, startNode, type Child } from './processes.ts'

export interface MemoryRun {
  database: 'embedded' | 'postgresql'
  monitors: number
  /** Milliseconds from spawn to the first 200 of /healthz: on an empty database, then on the same one again. */
  firstStartMs: number
  restartMs: number
  /** The kernel's high-water mark of RSS (VmHWM), MB: of the first start's whole run, of the restart. */
  peakMb: number
  restartPeakMb: number
  /** RSS in the measured window (after the warm-up, browsing now and then), MB. */
  steadyMedianMb: number
  steadyMaxMb: number
  /** Times the dashboard and Swagger UI were browsed (browseOnce), before and during the window. */
  browsed: number
  /** RSS right after listening on the first start (before any monitor), MB. */
  listeningMb: number
  windowSeconds: number
  /** Requests the target saw in the measured window (what 100 monitors a minute offer: 100 per 60 s). */
  targetRequests: number
  /** Exit codes of the two SIGTERM stops (0: graceful). */
  stopCodes: number[]
}

export interface MemoryBenchOptions {
  /** PostgreSQL server to create a database on for the second run; without it, only the embedded run. */
  adminUrl?: string
  dataDir: string
  monitors: number
  warmupSeconds: number
  measureSeconds: number
  /** Looks around the dashboard and Swagger UI this many times before the warm-up, then once every browseEverySeconds. */
  browseRounds: number
  browseEverySeconds: number
  logDir: string
  log: (line: string) => void
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const mb = (bytes: number) => Math.round(bytes / 2 ** 20)

function peakBytes (pid: number): number {
  const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return match ? Number(match[1]) * 1024 : 0
}

/** Starts the server and polls /healthz every 20 ms: resolves with the time from spawn to its first 200. */
async function start (vars: Record<string, string>, logFile: string, onLine?: (line: string) => void): Promise<{ child: Child, base: string, ms: number }> {
  const port = await freePort()
  const base = `http://127.0.0.1:${port}`
  const started = performance.now()
  const child = startNode('src/server.ts', { ...vars, PORT: String(port), HOST: '127.0.0.1' }, { ...(onLine ? { onLine } : { logFile }), nodeArgs: EXPERIMENT_NODE_ARGS })
  while (child.process.exitCode === null && performance.now() - started < 120_000) {
    try {
      if ((await fetch(`${base}/healthz`)).status === 200) return { child, base, ms: Math.round(performance.now() - started) }
    } catch {}
    await sleep(20)
  }
  await child.stop()
  throw new Error(`the server did not answer /healthz (log: ${logFile})`)
}

async function targetRequests (target: string): Promise<number> {
  return ((await (await fetch(`${target}/__stats`)).json()) as { requests: number }).requests
}

async function runOne (
  database: MemoryRun['database'], vars: Record<string, string>, target: string, options: MemoryBenchOptions
): Promise<MemoryRun> {
  const { log } = options
  const env = { ...vars, ALLOW_PRIVATE_TARGETS: 'true', LOG_LEVEL: 'info' }
  const logFile = join(options.logDir, `memory-${database}.log`)
  let key: string | undefined
  let setupUrl: string | undefined
  let lines = ''
  const first = await start(env, logFile, (line) => {
    lines += line + '\n'
    key ??= /\b(sk_[A-Za-z0-9]+)\b/.exec(line)?.[1]
    setupUrl ??= /(http:\/\/\S+\/setup\?token=\S+)/.exec(line)?.[1]
  })
  const pid = first.child.pid
  try {
    const listeningMb = mb(processStats(pid).rssBytes)
    for (let i = 0; i < 100; i++) {
      if (key && setupUrl) break
      await sleep(100)
    }
    if (!key || !setupUrl) throw new Error(`no first key or setup link in the server's output:\n${lines.slice(0, 2000)}`)
    log(`  ${database}: first start answered in ${first.ms} ms, RSS ${listeningMb} MB; creating ${options.monitors} monitors`)
    for (let i = 0; i < options.monitors; i++) {
      const res = await fetch(`${first.base}/api/v1/monitors`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: `m${i}`, url: `${target}/m${i}`, interval_minutes: 1 }),
      })
      if (res.status !== 201) throw new Error(`POST /monitors: ${res.status} ${await res.text()}`)
    }
    const browser = new Browser(first.base)
    await signInWithSetupLink(browser, setupUrl, 'a long enough bench password')
    let browsed = 0
    for (; browsed < options.browseRounds; browsed++) await browseOnce(browser)
    log(`  ${database}: browsed the dashboard and Swagger UI ${browsed} times, RSS ${mb(processStats(pid).rssBytes)} MB`)
    await sleep(options.warmupSeconds * 1000)
    const requestsBefore = await targetRequests(target)
    const samples: number[] = []
    const started = Date.now()
    let nextBrowse = started
    while (Date.now() < started + options.measureSeconds * 1000) {
      if (Date.now() >= nextBrowse) {
        await browseOnce(browser)
        browsed++
        nextBrowse += options.browseEverySeconds * 1000
      }
      samples.push(processStats(pid).rssBytes)
      await sleep(1000)
    }
    const requests = (await targetRequests(target)) - requestsBefore
    const peak = peakBytes(pid)
    samples.sort((a, b) => a - b)
    const firstCode = await first.child.stop()
    const restart = await start(env, logFile)
    const restartPeak = peakBytes(restart.child.pid)
    const restartCode = await restart.child.stop()
    const result: MemoryRun = {
      database,
      monitors: options.monitors,
      firstStartMs: first.ms,
      restartMs: restart.ms,
      peakMb: mb(peak),
      restartPeakMb: mb(restartPeak),
      steadyMedianMb: mb(samples[Math.floor(samples.length / 2)]),
      steadyMaxMb: mb(samples[samples.length - 1]),
      listeningMb,
      browsed,
      windowSeconds: options.measureSeconds,
      targetRequests: requests,
      stopCodes: [firstCode ?? -1, restartCode ?? -1],
    }
    log(`  ${database}: RSS steady median ${result.steadyMedianMb} MB, max ${result.steadyMaxMb} MB, peak ${result.peakMb} MB; ` +
      `restart answered in ${result.restartMs} ms (peak ${result.restartPeakMb} MB); ${requests} checks in ${options.measureSeconds} s; ` +
      `SIGTERM exit codes ${result.stopCodes.join(', ')}`)
    return result
  } finally {
    await first.child.stop()
  }
}

export async function runMemoryBench (options: MemoryBenchOptions): Promise<MemoryRun[]> {
  const targetPort = await freePort()
  const targetServer = startNode('bench/target-server.ts', { PORT: String(targetPort) }, { logFile: join(options.logDir, 'memory-target.log') })
  const target = `http://127.0.0.1:${targetPort}`
  try {
    for (let i = 0; i < 100; i++) {
      try { await targetRequests(target); break } catch { await sleep(100) }
    }
    const runs = [await runOne('embedded', { DATA_DIR: options.dataDir }, target, options)]
    if (options.adminUrl) {
      // Empty: the server migrates it, as on a first start.
      const url = await emptyPostgresDatabase(options.adminUrl, 'pingward_bench_memory')
      runs.push(await runOne('postgresql', { DATABASE_URL: url }, target, options))
    }
    return runs
  } finally {
    await targetServer.stop()
  }
}

export function memoryTable (runs: MemoryRun[]): string[] {
  const lines = [
    '| database | first start: ms to answer, peak RSS MB | RSS listening MB | RSS with 100 monitors, browsed, median / max MB | restart: ms to answer, peak RSS MB | checks in the window | SIGTERM exit | target |',
    '|---|---:|---:|---:|---:|---:|---:|---|',
  ]
  const verdict = (ok: boolean) => ok ? 'met' : '**missed**'
  for (const r of runs) {
    const target = r.database === 'embedded'
      ? `steady <= 200 MB: ${verdict(r.steadyMaxMb <= 200)}; peak <= 300 MB: ${verdict(Math.max(r.peakMb, r.restartPeakMb) <= 300)}; start <= 2 s: ${verdict(r.restartMs <= 2000)}`
      // The target is the running server's (100 monitors checked every minute); the first start's peak, which
      // V8's young generation and the first burst of probes make (bench/results.md), is reported beside it.
      : `steady <= 150 MB: ${verdict(r.steadyMaxMb <= 150)} (first-start peak ${r.peakMb} MB); start <= 2 s: ${verdict(r.restartMs <= 2000)}`
    lines.push(`| ${r.database} | ${r.firstStartMs}, ${r.peakMb} | ${r.listeningMb} | ${r.steadyMedianMb} / ${r.steadyMaxMb} | ` +
      `${r.restartMs}, ${r.restartPeakMb} | ${r.targetRequests} in ${r.windowSeconds} s | ${r.stopCodes.join(', ')} | ${target} |`)
  }
  return lines
}
