// `npm run lab -- --server URL --key KEY [--site CODE[:DELAY_MS]]...`: the lab by hand (docs/locations.md), driven by
// lines on stdin until `quit` or Ctrl-C; as root, on a machine that allows network namespaces.
import { parseArgs } from 'node:util'
import { createInterface } from 'node:readline'
import { labUnavailable, startLab, type Lab } from './lab.ts'

const USAGE = `usage: npm run lab -- --server URL --key KEY [--site CODE[:DELAY_MS]]...

  --server URL   the Pingward API, as this machine reaches it (http://127.0.0.1:3000)
  --key KEY      an API key of an organization's admin: the sites become its agent locations
  --site CODE    a site, and the delay its checks of the target take (default: lab-a:40 lab-b:80 lab-c:120)

then, on stdin:
  cut CODE | heal CODE          every packet of the site toward the target lost, or none
  delay CODE MS | loss CODE PCT the site's delay or loss (any loss between 0 and 100 takes netem)
  kill CODE | start CODE        the site's agent dies, or starts again
  quit
`

const COMMANDS: Record<string, (lab: Lab, code: string, value: number) => Promise<void> | void> = {
  cut: (lab, code) => lab.impair(code, { lossPercent: 100 }),
  heal: (lab, code) => lab.impair(code, { lossPercent: 0 }),
  delay: (lab, code, ms) => lab.impair(code, { delayMs: ms }),
  loss: (lab, code, percent) => lab.impair(code, { lossPercent: percent }),
  kill: (lab, code) => lab.stopAgent(code, 'SIGKILL'),
  start: (lab, code) => lab.startAgent(code),
}

async function main (): Promise<void> {
  const { values } = parseArgs({ options: { server: { type: 'string' }, key: { type: 'string' }, site: { type: 'string', multiple: true } } })
  if (!values.server || !values.key) {
    process.stderr.write(USAGE)
    process.exit(2)
  }
  const unavailable = labUnavailable()
  if (unavailable) throw new Error(`the lab cannot run here: ${unavailable}`)
  const sites = (values.site ?? ['lab-a:40', 'lab-b:80', 'lab-c:120']).map((site) => {
    const [code, delay] = site.split(':')
    return { code, delayMs: Number(delay ?? 0) }
  })
  const lab = await startLab({ server: values.server, apiKey: values.key, sites })
  const codes = sites.map((site) => site.code)
  process.stdout.write(`lab: ${codes.join(', ')} are up, each with its agent; the target is ${lab.targetUrl}\n` +
    (lab.network.netem ? '' : 'lab: this kernel has no netem: a delay is the target\'s own, and a loss is 0% or 100% (the link taken down)\n') +
    `lab: check it from them: POST /api/v1/monitors {"name": "Lab", "url": "${lab.targetUrl}", "locations": ${JSON.stringify(codes)}, "interval_minutes": 1}\n`)
  let closing: Promise<void> | undefined
  const close = () => { closing ??= lab.close().then(() => process.exit(0)) }
  process.once('SIGINT', close).once('SIGTERM', close)
  for await (const line of createInterface({ input: process.stdin })) {
    const [command, code, value] = line.trim().split(/\s+/)
    if (command === 'quit') break
    if (!command) continue
    try {
      if (!COMMANDS[command] || !code) throw new Error(`not understood: ${line}`)
      await COMMANDS[command](lab, code, Number(value))
      process.stdout.write(`lab: ${line.trim()}: done\n`)
    } catch (err) {
      process.stdout.write(`lab: ${(err as Error).message}\n`)
    }
  }
  close()
}

main().catch((err: Error) => {
  process.stderr.write(`${err.message}\n`)
  process.exit(1)
})
