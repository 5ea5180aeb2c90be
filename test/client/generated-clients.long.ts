// Clients generated as a user would, with each generator's default options, from the served document: compiled with
// tsc --strict, then run in Node against a listening app (create, list, patch, checks, delete) with no base URL given
// to the SDK, which takes it from the document's first server.
import { spawn } from 'node:child_process'
import { readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { buildTestApp, childEnv, makeUser, tempDir } from '../helper.ts'
import { freePort } from '../support/target-server.ts'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

interface Run { code: number | null, output: string }

/** The script a package's command line runs, as `npx <package>` would find it. */
function binOf (manifestUrl: string): string {
  const manifest = fileURLToPath(manifestUrl)
  const { bin } = JSON.parse(readFileSync(manifest, 'utf8')) as { bin: string | Record<string, string> }
  return join(dirname(manifest), typeof bin === 'string' ? bin : Object.values(bin)[0])
}

/** Runs a command to its end in `cwd`, without tap's NODE_OPTIONS and coverage; stdout and stderr together. */
function run (cwd: string, command: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    // env -u: tap's process tracking re-adds NODE_OPTIONS to spawns.
    const child = spawn('/usr/bin/env', ['-u', 'NODE_OPTIONS', '-u', 'NODE_V8_COVERAGE', ...command], { cwd, env: childEnv({}) })
    let output = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => { output += chunk })
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => { output += chunk })
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, output }))
  })
}

const TSCONFIG = {
  compilerOptions: {
    strict: true,
    target: 'es2022',
    module: 'esnext',
    moduleResolution: 'bundler',
    lib: ['es2022', 'dom', 'dom.iterable'],
    types: [],
    noEmit: true,
    skipLibCheck: false,
  },
  include: ['*.ts', 'openapi-typescript', 'hey-api'],
}

// The same steps through each client; only the calls differ. Each returns what the test compares.
const PROGRAM = `import createClient from 'openapi-fetch'
import type { paths } from './openapi-typescript/pingward'
import { createMonitor, deleteMonitor, listChecks, listMonitors, updateMonitor } from './hey-api'
import { client } from './hey-api/client.gen'
import { API, KEYS } from './setup'

async function withOpenapiFetch (key: string) {
  const api = createClient<paths>({ baseUrl: API, headers: { authorization: \`Bearer \${key}\` } })
  const site = await api.POST('/api/v1/monitors', { body: { name: 'Homepage', url: 'https://example.com/health' } })
  const beat = await api.POST('/api/v1/monitors', { body: { name: 'Backup', monitor_type: 'heartbeat' } })
  const siteId = site.data!.data.id
  const beatId = beat.data!.data.id
  const listed = await api.GET('/api/v1/monitors')
  const patched = await api.PATCH('/api/v1/monitors/{id}', { params: { path: { id: siteId } }, body: { name: 'Homepage (paused)', is_active: false } })
  const pinged = await fetch(beat.data!.data.ping_url!)
  const checks = await api.GET('/api/v1/monitors/{id}/checks', { params: { path: { id: beatId } } })
  const deleted = [await api.DELETE('/api/v1/monitors/{id}', { params: { path: { id: siteId } } }), await api.DELETE('/api/v1/monitors/{id}', { params: { path: { id: beatId } } })]
  const remaining = await api.GET('/api/v1/monitors')
  return {
    created: [site.response.status, beat.response.status],
    defaults: { interval_minutes: site.data!.data.interval_minutes, method: site.data!.data.method, expected_status: site.data!.data.expected_status },
    ping_url: beat.data!.data.ping_url,
    listed: listed.data!.data.map((monitor) => monitor.name),
    patched: { name: patched.data!.data.name, status: patched.data!.data.status },
    pinged: pinged.status,
    checks: checks.data!.data.map((check) => check.is_up),
    deleted: deleted.map((answer) => answer.response.status),
    remaining: remaining.data!.data.length,
  }
}

async function withHeyApi (key: string) {
  client.setConfig({ auth: key })
  const site = await createMonitor({ body: { name: 'Homepage', url: 'https://example.com/health' } })
  const beat = await createMonitor({ body: { name: 'Backup', monitor_type: 'heartbeat' } })
  const siteId = site.data!.data.id
  const beatId = beat.data!.data.id
  const listed = await listMonitors()
  const patched = await updateMonitor({ path: { id: siteId }, body: { name: 'Homepage (paused)', is_active: false } })
  const pinged = await fetch(beat.data!.data.ping_url!)
  const checks = await listChecks({ path: { id: beatId } })
  const deleted = [await deleteMonitor({ path: { id: siteId } }), await deleteMonitor({ path: { id: beatId } })]
  const remaining = await listMonitors()
  return {
    created: [site.response.status, beat.response.status],
    defaults: { interval_minutes: site.data!.data.interval_minutes, method: site.data!.data.method, expected_status: site.data!.data.expected_status },
    ping_url: beat.data!.data.ping_url,
    listed: listed.data!.data.map((monitor) => monitor.name),
    patched: { name: patched.data!.data.name, status: patched.data!.data.status },
    pinged: pinged.status,
    checks: checks.data!.data.map((check) => check.is_up),
    deleted: deleted.map((answer) => answer.response.status),
    remaining: remaining.data!.data.length,
  }
}

console.log(JSON.stringify({ openapiTypescript: await withOpenapiFetch(KEYS[0]), heyApi: await withHeyApi(KEYS[1]) }))
`

// PUBLIC_URL is where the app listens, so the document's first server is an address this test can reach.
const port = await freePort()
const API = `http://127.0.0.1:${port}`
const { app } = await buildTestApp(t, { env: { PUBLIC_URL: API } })
await app.listen({ host: '127.0.0.1', port })

t.test('openapi-typescript and @hey-api/openapi-ts clients, default options, compiled strictly, work against the server', async (t) => {
  const dir = tempDir(t, 'pingward-clients-')
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'))
  const documentUrl = `${API}/api/v1/openapi.json`

  // As `npx openapi-typescript URL -o FILE` and `npx @hey-api/openapi-ts -i URL -o DIR` run them (docs/api.md).
  const [types, sdk] = await Promise.all([
    run(dir, [process.execPath, binOf(import.meta.resolve('openapi-typescript/package.json')), documentUrl, '-o', 'openapi-typescript/pingward.d.ts']),
    run(dir, [process.execPath, binOf(import.meta.resolve('@hey-api/openapi-ts/package.json')), '-i', documentUrl, '-o', 'hey-api']),
  ])
  t.equal(types.code, 0, 'openapi-typescript generates the types', { output: types.output })
  t.equal(sdk.code, 0, '@hey-api/openapi-ts generates the SDK', { output: sdk.output })
  t.match(readFileSync(join(dir, 'hey-api/client.gen.ts'), 'utf8'), `baseUrl: '${API}'`, 'the SDK\'s base URL is the document\'s first server')

  const keys = [(await makeUser(app)).key, (await makeUser(app)).key]
  writeFileSync(join(dir, 'setup.ts'), `export const API = ${JSON.stringify(API)}\nexport const KEYS = ${JSON.stringify(keys)}\n`)
  writeFileSync(join(dir, 'main.ts'), PROGRAM)
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(TSCONFIG, null, 2))
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module', private: true }))

  const compiled = await run(dir, [process.execPath, 'node_modules/typescript/bin/tsc', '-p', '.'])
  t.equal(compiled.code, 0, 'both compile with tsc --strict', { output: compiled.output })

  const ran = await run(dir, [process.execPath, '--import=tsx', 'main.ts'])
  t.equal(ran.code, 0, 'the program runs to its end', { output: ran.output })
  const results = JSON.parse(ran.output) as Record<string, Record<string, unknown>>
  for (const [name, label] of [['openapiTypescript', 'openapi-typescript types with openapi-fetch'], ['heyApi', '@hey-api/openapi-ts SDK']]) {
    const { ping_url: pingUrl, ...rest } = results[name]
    t.match(pingUrl, new RegExp(`^${API}/ping/`), `${label}: the ping URL starts with PUBLIC_URL`)
    t.same(rest, {
      created: [201, 201],
      defaults: { interval_minutes: 5, method: 'GET', expected_status: 200 },
      listed: ['Backup', 'Homepage'],
      patched: { name: 'Homepage (paused)', status: 'paused' },
      pinged: 200,
      checks: [true],
      deleted: [204, 204],
      remaining: 0,
    }, label)
  }
})
