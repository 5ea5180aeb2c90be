// A child of the benchmark: Pingward's HTTP probe alone (the built src/checker/probe.ts, no scheduler, no database) against
// TARGET, COUNT probes CONCURRENCY at a time after a warm-up; prints its own CPU for the measured probes as JSON.
import { inLanes } from './probe-anchor.ts'

// The built prober (dist/, which `npm run bench` builds first), as `npm run worker` runs it: src/ through tsx paid
// more for the same probe (480 against 400 µs a probe on one machine, bench/results.md).
const built: string = '../dist/checker/probe.js'
const { createProber } = await import(built) as typeof import('../src/checker/probe.ts')

const target = process.env.TARGET ?? ''
const count = Number(process.env.COUNT ?? 5000)
const concurrency = Number(process.env.CONCURRENCY ?? 20)

/** `total` probes, `concurrency` at a time; returns how many were not up. */
const probeMany = (prober: ReturnType<typeof createProber>, total: number) =>
  inLanes(total, concurrency, async () => (await prober.probe({ url: target, method: 'GET', expectedStatus: 200, timeoutSeconds: 10 })).isUp)

const prober = createProber({ allowPrivateTargets: true })
await probeMany(prober, Math.min(1000, count)) // JIT, the origin's pool
const cpu = process.cpuUsage()
const started = performance.now()
const failed = await probeMany(prober, count)
const used = process.cpuUsage(cpu)
const seconds = (performance.now() - started) / 1000
await prober.close()
process.stdout.write(JSON.stringify({ probes: count, failed, cpuSeconds: (used.user + used.system) / 1e6, seconds }) + '\n')
