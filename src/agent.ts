// A probe agent, run wherever its owner puts it: `npm run agent -- --server URL --token TOKEN` (docs/locations.md).
import { parseArgs } from 'node:util'
import closeWithGrace from 'close-with-grace'
import pino from 'pino'
import { startAgent } from './agent/agent.ts'
import { logSerializers } from './runtime/log-redaction.ts'
import { runMain } from './runtime/run-main.ts'

const USAGE = `usage: npm run agent -- --server URL --token TOKEN [--allow-private-targets] [--concurrency N] [--results-file FILE]
   or: pingward agent --server URL --token TOKEN [--allow-private-targets] [--concurrency N] [--results-file FILE]

  --server URL               the Pingward API's address (or PINGWARD_SERVER)
  --token TOKEN              the location's agent token, pwa_... (or PINGWARD_AGENT_TOKEN, kept out of the process list)
  --allow-private-targets    let this agent check private, loopback and link-local addresses (or ALLOW_PRIVATE_TARGETS=true)
  --concurrency N            probes in flight at once, 1 to 10000 (or CHECK_CONCURRENCY; default 200)
  --results-file FILE        results still unsent when the agent stops are written there and sent after its next
                             start (or PINGWARD_AGENT_RESULTS_FILE; default: none, they are lost with the process)
`

async function main (): Promise<void> {
  const { values } = parseArgs({
    options: {
      server: { type: 'string' },
      token: { type: 'string' },
      'allow-private-targets': { type: 'boolean', default: false },
      concurrency: { type: 'string' },
      'results-file': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  })
  const server = values.server ?? process.env.PINGWARD_SERVER
  const token = values.token ?? process.env.PINGWARD_AGENT_TOKEN
  const concurrencyText = values.concurrency ?? process.env.CHECK_CONCURRENCY
  const concurrency = concurrencyText === undefined ? undefined : Number(concurrencyText)
  const badConcurrency = concurrency !== undefined && !(Number.isInteger(concurrency) && concurrency >= 1 && concurrency <= 10_000)
  if (values.help || !server || !token || badConcurrency) {
    if (badConcurrency) process.stderr.write(`--concurrency must be an integer from 1 to 10000, not ${concurrencyText}\n`)
    process.stderr.write(USAGE)
    process.exit(values.help ? 0 : 2)
  }
  const log = pino({ level: process.env.LOG_LEVEL ?? 'info', base: { role: 'agent', pid: process.pid }, serializers: logSerializers })
  const agent = startAgent({
    server,
    token,
    log,
    concurrency,
    allowPrivateTargets: values['allow-private-targets'] || process.env.ALLOW_PRIVATE_TARGETS === 'true',
    resultsFile: values['results-file'] ?? process.env.PINGWARD_AGENT_RESULTS_FILE,
  })
  log.info({ server }, 'agent started')
  closeWithGrace({ delay: 10_000 }, async ({ signal, err }) => {
    if (err) log.error({ err }, 'stopping after an error')
    else log.info({ signal }, 'stopping')
    await agent.stop()
    log.info('agent stopped')
  })
}

runMain('pingward agent', main)
