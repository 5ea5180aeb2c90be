// The lab (issue 46, lab/): Pingward as a server process, a target and three probe agents in network namespaces, two
// of them with clocks 5 s off. One site cut off -> degraded and no incident; two -> down within an interval plus 15 s,
// one webhook each way; an agent killed -> out of the count after the stale time, coverage told once each way; a
// replayed batch counted once; each site's checks once per slot, their p50 latency the site's delay within 10%.
import t from 'tap'
import { labUnavailable, startLab, type Lab } from '../../lab/lab.ts'
import { slotStartAt, QUORUM_GRACE_MS } from '../../src/locations/quorum.ts'
import { childDatabase, until } from '../helper.ts'
import { firstKey, startPingward } from '../resilience/support.ts'
import { webhookReceiver } from '../support/webhook-receiver.ts'

const SITES = [
  { code: 'lab-a', delayMs: 300, clockSkewMs: -5000 },
  { code: 'lab-b', delayMs: 600 },
  { code: 'lab-c', delayMs: 900, clockSkewMs: 5000 },
]
const CODES = SITES.map((site) => site.code)
const INTERVAL_MS = 60_000
const STALE_MS = 2 * INTERVAL_MS + QUORUM_GRACE_MS

const pick = <T extends object, K extends keyof T>(from: T, keys: K[]) => Object.fromEntries(keys.map((k) => [k, from[k]])) as Pick<T, K>

interface Check { is_up: boolean, status_code: number | null, response_time_ms: number, checked_at: string, error_message: string | null }

const unavailable = labUnavailable()
if (unavailable) t.comment(`the lab is skipped: ${unavailable}`)
// Real minutes: the slots of 1-minute monitors, and a silent site's two intervals plus 30 s.
t.setTimeout(20 * 60_000)

t.test('three sites in network namespaces: quorum, coverage, replays and clocks', { skip: unavailable ?? false }, async (t) => {
  const server = await startPingward(t, { ...(await childDatabase(t, 'pingward-lab-')), ALLOW_PRIVATE_TARGETS: 'true' })
  const key = await firstKey(server)
  const api = async (method: string, path: string, body?: object) => {
    const res = await fetch(`${server.base}/api/v1${path}`, {
      method, headers: { authorization: `Bearer ${key}`, ...(body && { 'content-type': 'application/json' }) }, ...(body && { body: JSON.stringify(body) }),
    })
    const json = await res.json() as { data: any }
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`)
    return json.data
  }
  let secret = ''
  const receiver = await webhookReceiver(t, { verifyWith: () => [secret] })
  secret = (await api('POST', '/notification-channels', {
    name: 'hook',
    type: 'webhook',
    config: { url: `${receiver.url}/hook` },
    all_monitors: true,
    events: ['incident.opened', 'incident.resolved', 'monitor.degraded', 'location.coverage_lost', 'location.coverage_restored'],
  })).secret

  const lab: Lab = await startLab({ server: server.base, apiKey: key, sites: SITES })
  t.teardown(lab.close)
  if (!lab.network.netem) t.comment('this kernel has no netem: a site\'s delay is the target\'s own, and a cut site\'s link is down')
  for (const { code, clockSkewMs } of SITES) {
    const offset = Number(/"offsetMs":(-?\d+)/.exec(lab.agentOutput(code))?.[1])
    t.ok(Math.abs(offset + (clockSkewMs ?? 0)) < 1000, `${code}: the agent takes the server's clock from its hello (offset ${offset} ms)`)
  }

  const monitor = { name: 'Lab', url: lab.targetUrl, locations: CODES, interval_minutes: 1, timeout_seconds: 5 }
  const majority = await api('POST', '/monitors', monitor)
  const all = await api('POST', '/monitors', { ...monitor, name: 'Lab, all three', location_quorum: 3 })
  const statusOf = async (id: string) => (await api('GET', `/monitors/${id}`)).status as string
  const hooksOf = (id: string) => receiver.received.filter((r) => r.payload?.data?.monitor?.id === id).map((r) => r.payload.type as string)
  const checksOf = async (id: string, code: string): Promise<Check[]> => (await api('GET', `/monitors/${id}/checks?location=${code}&limit=100`)).reverse()

  await until(async () => await statusOf(majority.id) === 'up' && await statusOf(all.id) === 'up', 1000)

  lab.impair('lab-a', { lossPercent: 100 })
  await until(async () => await statusOf(majority.id) === 'degraded', 1000)
  t.same(await api('GET', `/monitors/${majority.id}/incidents`), [], 'one site of three cut off: degraded, no incident')

  const cutAt = Date.now()
  lab.impair('lab-b', { lossPercent: 100 })
  await until(async () => await statusOf(majority.id) === 'down', 1000)
  // When the incident started, on the server's record: the check that made the quorum fail.
  const [incident] = await api('GET', `/monitors/${majority.id}/incidents`)
  const downAfterMs = Date.parse(incident.started_at) - cutAt
  t.ok(downAfterMs <= INTERVAL_MS + 15_000, `two of three cut off: down ${downAfterMs} ms after the cut, within an interval plus 15 s`)
  t.match(incident.cause, /^failing from lab-a, lab-b \(2 of 3 locations\)$/)
  t.equal(await statusOf(all.id), 'degraded', 'a quorum of three: two failing are not enough')

  lab.impair('lab-a', { lossPercent: 0 })
  lab.impair('lab-b', { lossPercent: 0 })
  await until(async () => await statusOf(majority.id) === 'up' && await statusOf(all.id) === 'up', 1000)
  await receiver.waitFor(2)
  t.same(hooksOf(majority.id), ['incident.opened', 'incident.resolved'], 'one webhook each way, none for degraded')
  t.same(hooksOf(all.id), [], 'no incident where the quorum never failed')

  await lab.stopAgent('lab-c', 'SIGKILL')
  const lastOfC = new Date((await checksOf(all.id, 'lab-c')).at(-1)!.checked_at).getTime()
  await until(() => hooksOf(all.id).includes('location.coverage_lost'), 1000)
  const lost = receiver.received.find((r) => r.payload?.type === 'location.coverage_lost')!.payload
  t.ok(Date.parse(lost.timestamp) - lastOfC >= STALE_MS, 'the killed agent\'s site leaves the count only after two intervals plus 30 s')
  t.same(lost.data.silent_locations, ['lab-c'])
  t.equal(await statusOf(all.id), 'up', 'a monitor left short of its quorum keeps its status')
  t.equal(await statusOf(majority.id), 'up', 'two fresh sites still make a majority of three')

  await lab.startAgent('lab-c')
  await until(() => hooksOf(all.id).includes('location.coverage_restored'), 1000)
  t.same(hooksOf(all.id), ['location.coverage_lost', 'location.coverage_restored'], 'coverage told once each way')
  t.same(hooksOf(majority.id), ['incident.opened', 'incident.resolved'], 'the majority never lost its coverage')

  // Each site checked each slot once, its clock off or not; a batch of what it sent, sent again, is counted once.
  const origin = new Date(majority.created_at)
  for (const { code, delayMs } of SITES) {
    const checks = await checksOf(majority.id, code)
    const slots = checks.map((check) => slotStartAt(origin, 1, new Date(check.checked_at)).getTime())
    t.equal(new Set(slots).size, slots.length, `${code}: no slot counted twice (${slots.length} checks)`)
    if (code !== 'lab-c') t.equal((slots.at(-1)! - slots[0]) / INTERVAL_MS + 1, slots.length, `${code}: no slot missed`)
    const latencies = checks.filter((check) => check.is_up).map((check) => check.response_time_ms).sort((a, b) => a - b)
    const p50 = latencies[Math.floor(latencies.length / 2)]
    t.ok(Math.abs(p50 - delayMs) <= delayMs / 10, `${code}: p50 latency ${p50} ms, its delay ${delayMs} ms within 10%`)

    const replay = checks.map((check, index) => ({
      monitor_id: majority.id,
      slot_at: new Date(slots[index]).toISOString(),
      ...pick(check, ['is_up', 'status_code', 'response_time_ms', 'checked_at', 'error_message']),
    }))
    const res = await fetch(`${server.base}/api/v1/agent/results`, {
      method: 'POST', headers: { authorization: `Bearer ${lab.tokens.get(code)}`, 'content-type': 'application/json' }, body: JSON.stringify({ results: replay }),
    })
    t.same((await res.json() as { data: object }).data, { recorded: 0, late: 0, duplicates: replay.length, unassigned: 0 }, `${code}: a replayed batch counted once`)
    const replayedUpTo = Date.parse(checks.at(-1)!.checked_at)
    t.equal((await checksOf(majority.id, code)).filter((check) => Date.parse(check.checked_at) <= replayedUpTo).length, checks.length, `${code}: no row added`)
  }
})
