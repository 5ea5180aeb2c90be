// What one HTTP probe costs a native prober: Prometheus' blackbox_exporter (when it is on the machine) probing the
// checker's local target, beside Pingward's probe alone (bench/probe-only.ts) against the same target, same run.
import { accessSync, constants, writeFileSync } from 'node:fs'
import { delimiter, join } from 'node:path'
import { freePort } from '../test/support/target-server.ts'
import { processStats, startNode, startProcess, waitForHttp } from './processes.ts'

interface ProbeCost {
  probes: number
  failed: number
  cpuMsPerProbe: number
}

export interface ProbeAnchorResult {
  /** Absent when no blackbox_exporter was found; `missing` then says where it was looked for. */
  blackbox?: ProbeCost & { binary: string }
  missing?: string
  pingwardProbe: ProbeCost
  concurrency: number
}

export interface ProbeAnchorOptions {
  target: string
  probes: number
  concurrency: number
  logDir: string
  log: (line: string) => void
}

const NAMES = ['blackbox_exporter', 'prometheus-blackbox-exporter'] // upstream's release, Debian's package

/** BLACKBOX_EXPORTER, else the first of NAMES on PATH. */
function findBlackbox (): string | undefined {
  const candidates = process.env.BLACKBOX_EXPORTER
    ? [process.env.BLACKBOX_EXPORTER]
    : (process.env.PATH ?? '').split(delimiter).filter(Boolean).flatMap((dir) => NAMES.map((name) => join(dir, name)))
  return candidates.find((file) => {
    try { accessSync(file, constants.X_OK); return true } catch { return false }
  })
}

// One module as close to Pingward's check as the exporter allows: GET, IPv4, 200 expected, 10 s timeout.
const CONFIG = `modules:
  http_200:
    prober: http
    timeout: 10s
    http:
      preferred_ip_protocol: ip4
      valid_status_codes: [200]
`

/** Runs `task` `total` times, `concurrency` at a time; returns how many times it answered false. */
export async function inLanes (total: number, concurrency: number, task: () => Promise<boolean>): Promise<number> {
  let started = 0
  let failed = 0
  const lane = async () => {
    while (started < total) {
      started++
      if (!await task()) failed++
    }
  }
  await Promise.all(Array.from({ length: concurrency }, lane))
  return failed
}

/** `total` GET requests of `url`, `concurrency` at a time; returns how many did not report probe_success 1. */
const probeThrough = (url: string, total: number, concurrency: number) =>
  inLanes(total, concurrency, async () => /^probe_success 1$/m.test(await (await fetch(url)).text()))

/** The exporter's CPU over `probes` probes of the target, after a warm-up; its /probe handling included. */
async function measureBlackbox (binary: string, options: ProbeAnchorOptions): Promise<ProbeCost> {
  const config = join(options.logDir, 'blackbox.yml')
  writeFileSync(config, CONFIG)
  const port = await freePort()
  const child = startProcess(binary, [`--config.file=${config}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=error'],
    process.env, { logFile: join(options.logDir, 'blackbox.log') })
  try {
    await waitForHttp(`http://127.0.0.1:${port}/metrics`, child)
    const url = `http://127.0.0.1:${port}/probe?module=http_200&target=${encodeURIComponent(options.target)}`
    await probeThrough(url, Math.min(1000, options.probes), options.concurrency)
    const before = processStats(child.pid).cpuSeconds
    const failed = await probeThrough(url, options.probes, options.concurrency)
    const cpu = processStats(child.pid).cpuSeconds - before
    return { probes: options.probes, failed, cpuMsPerProbe: 1000 * cpu / options.probes }
  } finally {
    await child.stop()
  }
}

/** Pingward's probe in a process of its own, which reports the CPU of its measured probes. */
async function measurePingwardProbe (options: ProbeAnchorOptions): Promise<ProbeCost> {
  let report: { probes: number, failed: number, cpuSeconds: number } | undefined
  const child = startNode('bench/probe-only.ts', {
    TARGET: options.target, COUNT: String(options.probes), CONCURRENCY: String(options.concurrency),
  }, { onLine: (line) => { if (line.startsWith('{')) report = JSON.parse(line) } })
  const code = await child.exited
  if (code !== 0 || !report) throw new Error(`bench/probe-only.ts exited with ${code}`)
  return { probes: report.probes, failed: report.failed, cpuMsPerProbe: 1000 * report.cpuSeconds / report.probes }
}

export async function runProbeAnchor (options: ProbeAnchorOptions): Promise<ProbeAnchorResult> {
  const pingwardProbe = await measurePingwardProbe(options)
  options.log(`  Pingward's probe alone: ${pingwardProbe.cpuMsPerProbe.toFixed(3)} CPU ms per probe (${pingwardProbe.failed} failed)`)
  const binary = findBlackbox()
  if (!binary) {
    const missing = process.env.BLACKBOX_EXPORTER ?? `${NAMES.join(' or ')} on PATH`
    options.log(`  blackbox_exporter: not found (${missing}); no anchor in this run`)
    return { missing, pingwardProbe, concurrency: options.concurrency }
  }
  const blackbox = { ...await measureBlackbox(binary, options), binary }
  options.log(`  blackbox_exporter (${binary}): ${blackbox.cpuMsPerProbe.toFixed(3)} CPU ms per probe (${blackbox.failed} failed)`)
  return { blackbox, pingwardProbe, concurrency: options.concurrency }
}
