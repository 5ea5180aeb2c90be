// Busy time by category: each sample goes to the first category whose pattern matches a frame, innermost first.
import { readFileSync } from 'node:fs'
const p = JSON.parse(readFileSync(process.argv[2], 'utf8'))
const byId = new Map<number, any>(p.nodes.map((n: any) => [n.id, n]))
const parent = new Map<number, number>()
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id)
const cats: Array<[string, RegExp]> = [
  ['gc', /^\(garbage collector\)/],
  ['module loading', /modules\/(esm|cjs)|tsx\/dist|avvio|ajv\/dist\/(core|compile)|compileSchema/],
  ['logging', /pino|sonic-boom|log-controller|request-log|logger-factory/],
  ['auth hook', /plugins\/auth\.ts|findActiveKey|keys\.ts/],
  ['rate limit', /rate-limit|toad-cache/],
  ['errors plugin', /plugins\/errors\.ts/],
  ['validation', /validation\.ts|ajv/],
  ['serialize (fjs)', /serialize fastify|anonymous\d|fast-json-stringify/],
  ['handler+mapping', /repositories\/|routes\//],
  ['drizzle', /drizzle-orm/],
  ['postgres.js', /postgres\/src/],
  ['http write', /writev|_http_outgoing|writePayload|onSendEnd/],
  ['http parse/route', /_http_common|_http_server|find-my-way|route\.js|handle-request|fastify\.js|request\.js/],
  ['fastify hooks', /fastify\/lib\/hooks/],
  ['fastify other', /fastify\//],
  ['net/streams', /node:net|stream_base|streams\//],
]
const key = (n: any) => `${n.callFrame.functionName} ${n.callFrame.url}:${n.callFrame.lineNumber}`
const totals = new Map<string, number>(); let busy = 0
p.samples.forEach((s: number, i: number) => {
  const n0 = byId.get(s); if (n0.callFrame.functionName === '(idle)') return
  const t = p.timeDeltas[i] ?? 0; busy += t
  let cat = 'other'
  outer: for (let id: number | undefined = s; id !== undefined; id = parent.get(id)) { const k = key(byId.get(id)); for (const [c, re] of cats) if (re.test(k)) { cat = c; break outer } }
  totals.set(cat, (totals.get(cat) ?? 0) + t)
})
const reqs = Number(process.argv[3] ?? 0)
console.log(`busy ${(busy / 1e6).toFixed(2)} s` + (reqs ? `, ${(busy / reqs).toFixed(0)} us/req over ${reqs} requests` : ''))
for (const [c, t] of [...totals].sort((a, b) => b[1] - a[1])) console.log(`${(100 * t / busy).toFixed(1).padStart(5)}% ${reqs ? (t / reqs).toFixed(0).padStart(5) + ' us ' : ''}${c}`)
