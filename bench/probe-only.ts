// A child of the benchmark: Pingward's HTTP probe alone (src/checker/probe.ts, no scheduler, no database) against
// TARGET, COUNT probes CONCURRENCY at a time after a warm-up; prints its own CPU for the measured probes as JSON.
import { createProber } from '../src/checker/probe.ts'

const target = process.env.TARGET ?? ''
const count = Number(process.env.COUNT ?? 5000)
const concurrency = Number(process.env.CONCURRENCY ?? 20)

/** `total` probes, `concurrency` at a time; returns how many were not up. */
async function probeMany (prober: ReturnType<typeof createProber>, total: number): Promise<number> {
  let started = 0
  let failed = 0
  const lane = async () => {
    while (started < total) {
      started++
      const result = await prober.probe({ url: target, method: 'GET', expectedStatus: 200, timeoutSeconds: 10 })
      if (!result.isUp) failed++
    }
  }
  await Promise.all(Array.from({ length: concurrency }, lane))
  return failed
}

const prober = createProber({ allowPrivateTargets: true })
await probeMany(prober, Math.min(1000, count)) // JIT, the agent's pools
const cpu = process.cpuUsage()
const started = performance.now()
const failed = await probeMany(prober, count)
const used = process.cpuUsage(cpu)
const seconds = (performance.now() - started) / 1000
await prober.close()
process.stdout.write(JSON.stringify({ probes: count, failed, cpuSeconds: (used.user + used.system) / 1e6, seconds }) + '\n')
