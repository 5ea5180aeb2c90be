// A strict parser of the Prometheus text exposition format 0.0.4, for tests: it throws on anything a
// Prometheus server would refuse or misread (a malformed line, a sample before its family's TYPE, a family
// split in two, a duplicate series, a histogram whose buckets are not cumulative or lack +Inf, _sum or _count).
// prom-client can write the format but not read it, and no parser package is installed.

export type Labels = Record<string, string>
interface Sample { name: string, labels: Labels, value: number }
export interface Family { name: string, type: string, help?: string, samples: Sample[] }

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*'
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped'])
const SUFFIXES: Record<string, string[]> = {
  counter: [''], gauge: [''], untyped: [''], histogram: ['_bucket', '_sum', '_count'], summary: ['', '_sum', '_count'],
}

// Prometheus reads values with Go's strconv.ParseFloat, which takes NaN and Inf in any case (prom-client
// writes "Nan", for an event-loop mean before its first sample).
function parseValue (text: string, line: string): number {
  if (/^\+?inf(inity)?$/i.test(text)) return Infinity
  if (/^-inf(inity)?$/i.test(text)) return -Infinity
  if (/^nan$/i.test(text)) return NaN
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text)) throw new Error(`not a number: ${JSON.stringify(text)} in ${JSON.stringify(line)}`)
  return Number(text)
}

/** The labels of `{a="x",b="y"}` (the braces' content), with the format's escapes undone. */
function parseLabels (text: string, line: string): Labels {
  const labels: Labels = {}
  let i = 0
  while (i < text.length) {
    const eq = text.indexOf('=', i)
    const name = text.slice(i, eq).trim()
    if (eq < 0 || !LABEL_NAME.test(name) || text[eq + 1] !== '"') throw new Error(`bad label at ${JSON.stringify(text.slice(i))} in ${JSON.stringify(line)}`)
    if (name in labels) throw new Error(`label ${name} twice in ${JSON.stringify(line)}`)
    let value = ''
    let j = eq + 2
    for (; j < text.length && text[j] !== '"'; j++) {
      if (text[j] !== '\\') { value += text[j]; continue }
      const next = text[++j]
      if (next === 'n') value += '\n'
      else if (next === '\\' || next === '"') value += next
      else throw new Error(`bad escape \\${next} in ${JSON.stringify(line)}`)
    }
    if (j >= text.length) throw new Error(`unterminated label value in ${JSON.stringify(line)}`)
    labels[name] = value
    i = j + 1
    if (i < text.length) {
      if (text[i] !== ',') throw new Error(`expected , after label ${name} in ${JSON.stringify(line)}`)
      i++
    }
  }
  return labels
}

const seriesKey = (name: string, labels: Labels) => `${name}{${Object.entries(labels).sort().map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(',')}}`

/** The families of an exposition, by name; throws on the first thing that is not valid. */
export function parsePrometheusText (text: string): Map<string, Family> {
  if (text.length > 0 && !text.endsWith('\n')) throw new Error('the exposition does not end with a newline')
  const families = new Map<string, Family>()
  const helps = new Map<string, string>()
  const seen = new Set<string>()
  let current: Family | undefined
  const finished = new Set<string>()
  const sampleLine = new RegExp(`^(${NAME})(?:\\{(.*)\\})?[ \\t]+(\\S+)(?:[ \\t]+(-?\\d+))?$`)

  for (const line of text.split('\n')) {
    if (line.trim() === '') continue
    const meta = /^#[ \t]+(HELP|TYPE)[ \t]+(\S+)(?:[ \t]+(.*))?$/.exec(line)
    if (meta) {
      const [, kind, name, rest = ''] = meta
      if (!new RegExp(`^${NAME}$`).test(name)) throw new Error(`bad metric name in ${JSON.stringify(line)}`)
      if (kind === 'HELP') {
        if (helps.has(name)) throw new Error(`second HELP for ${name}`)
        helps.set(name, rest.replace(/\\(\\|n)/g, (_m, c: string) => c === 'n' ? '\n' : '\\'))
        if (families.has(name)) families.get(name)!.help = helps.get(name)
        continue
      }
      if (!TYPES.has(rest)) throw new Error(`unknown type in ${JSON.stringify(line)}`)
      if (families.has(name)) throw new Error(`second TYPE for ${name}`)
      if (current) finished.add(current.name)
      current = { name, type: rest, help: helps.get(name), samples: [] }
      families.set(name, current)
      continue
    }
    if (line.startsWith('#')) continue // a comment
    const sample = sampleLine.exec(line)
    if (!sample) throw new Error(`malformed line ${JSON.stringify(line)}`)
    const [, name, labelText, valueText] = sample
    const labels = labelText === undefined ? {} : parseLabels(labelText, line)
    const family = current && SUFFIXES[current.type].some((suffix) => name === current!.name + suffix) ? current : undefined
    if (!family) {
      const owner = [...families.values()].find((f) => SUFFIXES[f.type].some((suffix) => name === f.name + suffix))
      throw new Error(owner ? `${name}: its family ${owner.name} is split` : `${name}: a sample without a TYPE before it`)
    }
    if (finished.has(family.name)) throw new Error(`${name}: its family is split`)
    const key = seriesKey(name, labels)
    if (seen.has(key)) throw new Error(`duplicate series ${key}`)
    seen.add(key)
    if ((family.type === 'histogram' && name.endsWith('_bucket')) !== ('le' in labels)) throw new Error(`${key}: le belongs on (and only on) a histogram's buckets`)
    family.samples.push({ name, labels, value: parseValue(valueText, line) })
  }
  for (const family of families.values()) checkFamily(family)
  return families
}

function checkFamily (family: Family): void {
  if (family.type === 'counter') {
    for (const s of family.samples) if (!(s.value >= 0)) throw new Error(`counter ${seriesKey(s.name, s.labels)} is ${s.value}`)
  }
  if (family.type !== 'histogram') return
  // Per series (the labels without le): cumulative buckets ending at +Inf, which equals _count; a _sum.
  const series = new Map<string, { buckets: Array<[number, number]>, sum?: number, count?: number }>()
  for (const s of family.samples) {
    const { le, ...rest } = s.labels
    const key = seriesKey(family.name, rest)
    const entry = series.get(key) ?? { buckets: [] }
    series.set(key, entry)
    if (s.name.endsWith('_bucket')) entry.buckets.push([parseValue(le, le), s.value])
    else if (s.name.endsWith('_sum')) entry.sum = s.value
    else entry.count = s.value
  }
  for (const [key, { buckets, sum, count }] of series) {
    if (sum === undefined || count === undefined) throw new Error(`${key}: a histogram without _sum or _count`)
    const last = buckets.at(-1)
    if (!last || last[0] !== Infinity) throw new Error(`${key}: no le="+Inf" bucket last`)
    for (let i = 1; i < buckets.length; i++) {
      if (!(buckets[i][0] > buckets[i - 1][0])) throw new Error(`${key}: le not increasing`)
      if (!(buckets[i][1] >= buckets[i - 1][1])) throw new Error(`${key}: buckets not cumulative`)
    }
    if (last[1] !== count) throw new Error(`${key}: +Inf bucket ${last[1]} is not _count ${count}`)
  }
}

/** The value of the one sample named `name` whose labels include `labels`; throws when there is none or several. */
export function sampleValue (families: Map<string, Family>, name: string, labels: Labels = {}): number {
  const matches = [...families.values()].flatMap((f) => f.samples)
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
  if (matches.length !== 1) throw new Error(`${matches.length} samples of ${seriesKey(name, labels)}`)
  return matches[0].value
}
