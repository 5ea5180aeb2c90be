// Summarise a .cpuprofile: self time by function and by package.
import { readFileSync } from 'node:fs'
const p = JSON.parse(readFileSync(process.argv[2], 'utf8'))
const byId = new Map<number, any>(p.nodes.map((n: any) => [n.id, n]))
const self = new Map<number, number>()
const dt = p.timeDeltas as number[]
p.samples.forEach((s: number, i: number) => self.set(s, (self.get(s) ?? 0) + (dt[i] ?? 0)))
const total = [...self.values()].reduce((a, b) => a + b, 0)
const fn = new Map<string, number>(); const pkg = new Map<string, number>()
for (const [id, t] of self) {
  const n = byId.get(id); const cf = n.callFrame
  const url = cf.url.replace(/^file:\/\/\/work\/main\//, '')
  const k = `${cf.functionName || '(anon)'} ${url.split('/').slice(-2).join('/')}:${cf.lineNumber}`
  fn.set(k, (fn.get(k) ?? 0) + t)
  const m = /node_modules\/((@[^/]+\/)?[^/]+)/.exec(url)
  const pk = m ? m[1] : url.startsWith('src/') ? 'src' : url.startsWith('node:') ? url : url === '' ? cf.functionName : 'other:' + url.slice(0, 40)
  pkg.set(pk, (pkg.get(pk) ?? 0) + t)
}
const top = (m: Map<string, number>, n: number) => [...m].sort((a, b) => b[1] - a[1]).slice(0, n).map(([k, v]) => `${(100 * v / total).toFixed(1).padStart(5)}% ${k}`).join('\n')
console.log(`total ${(total / 1e6).toFixed(1)} s\n--- packages\n${top(pkg, 25)}\n--- functions\n${top(fn, Number(process.argv[3] ?? 40))}`)
