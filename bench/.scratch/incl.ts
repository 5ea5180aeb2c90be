// Inclusive time per function (each sample counted once per function on its stack), excluding idle.
import { readFileSync } from 'node:fs'
const p = JSON.parse(readFileSync(process.argv[2], 'utf8'))
const byId = new Map<number, any>(p.nodes.map((n: any) => [n.id, n]))
const parent = new Map<number, number>()
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id)
const dt = p.timeDeltas as number[]
const incl = new Map<string, number>()
let busy = 0
const key = (n: any) => { const cf = n.callFrame; const url = cf.url.replace(/^file:\/\/\/work\/main\//, '').replace(/^node_modules\//, ''); return `${cf.functionName || '(anon)'} ${url.split('/').slice(-3).join('/')}:${cf.lineNumber}` }
p.samples.forEach((s: number, i: number) => {
  const n0 = byId.get(s); if (n0.callFrame.functionName === '(idle)') return
  const t = dt[i] ?? 0; busy += t
  const seen = new Set<string>()
  for (let id: number | undefined = s; id !== undefined; id = parent.get(id)) { const k = key(byId.get(id)); if (!seen.has(k)) { seen.add(k); incl.set(k, (incl.get(k) ?? 0) + t) } }
})
const filter = process.argv[4] ? new RegExp(process.argv[4]) : null
console.log(`busy ${(busy / 1e6).toFixed(2)} s`)
console.log([...incl].filter(([k]) => !filter || filter.test(k)).sort((a, b) => b[1] - a[1]).slice(0, Number(process.argv[3] ?? 60)).map(([k, v]) => `${(100 * v / busy).toFixed(1).padStart(5)}% ${k}`).join('\n'))
