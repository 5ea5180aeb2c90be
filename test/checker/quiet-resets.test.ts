// A check's connection ends without a new error whose stack is formatted (undici's "reset" after each exchange),
// over HTTP and HTTPS, against real local servers; a connection that fails still fails the check with its cause.
import http from 'node:http'
import https from 'node:https'
import t, { type Test } from 'tap'
import type { Prober } from '../../src/checker/probe.ts'
import { getTarget, testProber } from '../support/prober.ts'
import { caSignedCertificate, listen } from '../support/target-server.ts'

const PROBES = 20
const signed = caSignedCertificate(30)

/** The errors whose stacks were formatted while `run` ran (Node calls Error.prepareStackTrace for each). */
async function stacksFormattedDuring (run: () => Promise<void>): Promise<string[]> {
  const formatted: string[] = []
  const previous = Error.prepareStackTrace
  Error.prepareStackTrace = (error, frames) => {
    formatted.push(String(error))
    return [String(error), ...frames.map((frame) => `    at ${String(frame)}`)].join('\n')
  }
  try {
    await run()
  } finally {
    Error.prepareStackTrace = previous
  }
  return formatted
}

/** PROBES checks of `url` one after another, after one that warms the prober (its pool, its connector). */
async function checksUp (tt: Test, prober: Prober, url: string): Promise<string[]> {
  tt.equal((await prober.probe(getTarget(url))).isUp, true, 'the warm-up check is up')
  let up = 0
  const formatted = await stacksFormattedDuring(async () => {
    for (let i = 0; i < PROBES; i++) if ((await prober.probe(getTarget(url))).isUp) up++
  })
  tt.equal(up, PROBES, 'every check is up')
  return formatted
}

t.test('HTTP checks that pass format no error stack, and each has a connection of its own', async (t) => {
  let connections = 0
  const server = http.createServer((_req, res) => res.end('ok'))
  server.on('connection', () => connections++)
  const { url } = await listen(t, server)
  const formatted = await checksUp(t, testProber(t), url)
  t.same(formatted, [], 'no stack formatted (undici made a new InformationalError per check, formatted by destroy())')
  t.equal(connections, PROBES + 1, 'one connection per check')
})

t.test('HTTPS checks that pass format no error stack either', async (t) => {
  const server = https.createServer({ key: signed.key, cert: signed.cert }, (_req, res) => res.end('ok'))
  const { port } = await listen(t, server, { scheme: 'https' })
  const prober = testProber(t, { tlsCa: signed.ca, lookup: async () => [{ address: '127.0.0.1', family: 4 }] })
  t.same(await checksUp(t, prober, `https://localhost:${port}/`), [])
})

t.test('a connection the server drops mid-answer still fails the check with its cause', async (t) => {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-length': '100' })
    res.write('partial')
    setImmediate(() => res.socket?.destroy())
  })
  const { url } = await listen(t, server)
  const result = await testProber(t).probe(getTarget(url, { keyword: 'never there' }))
  t.match(result, { isUp: false, statusCode: 200, errorMessage: /while reading the body/ })
})

t.test('a refused connection still fails the check with its cause', async (t) => {
  // A port that was just listened on and closed: nothing accepts there.
  const server = http.createServer()
  const { url } = await listen(t, server)
  await new Promise<void>((resolve) => server.close(() => resolve()))
  const result = await testProber(t).probe(getTarget(url))
  t.match(result, { isUp: false, statusCode: null, errorMessage: /^connection refused/ })
})
