// The API benchmark: Pingward and the reference server, driven in turn (never at once) by the same load.
import { join } from 'node:path'
import type { LoadOptions, LoadResult } from './load.ts'
import { freePort } from '../test/support/target-server.ts'
import { EXPERIMENT_NODE_ARGS, machineCpu, processStats, runLoad, startNode, waitForHttp, type Child } from './processes.ts'
import { PAGE_LIMIT, POST_BODY } from './reference-sql.ts'
import type { PageUser, Seeded } from './seed.ts'

export type Endpoint = 'checks' | 'monitor' | 'list' | 'page' | 'create'
type ServerName = 'pingward' | 'reference'

export const ENDPOINT_LABELS: Record<Endpoint, string> = {
  checks: 'GET /monitors/{id}/checks',
  monitor: 'GET /monitors/{id}',
  list: 'GET /monitors',
  page: `GET /monitors?limit=${PAGE_LIMIT}`,
  create: 'POST /monitors',
}

export interface Run extends LoadResult {
  /** CPU time of the server process per request, in microseconds. */
  serverCpuUs: number
  /** CPU time of the whole machine (server, database, load generator, others) per request, in microseconds. */
  machineCpuUs: number
}

export interface ApiBenchOptions {
  database: { DATABASE_URL: string } | { DATA_DIR: string }
  seeded: Seeded
  /** The user of the `page` endpoint (its own 10,000 monitors), when it is measured. */
  pageUser?: PageUser
  endpoints: Endpoint[]
  connections: number
  durationSeconds: number
  warmupSeconds: number
  rounds: number
  logDir: string
  /** Directory for --cpu-prof profiles of Pingward (the reference's go to reference/ in it), when profiling. */
  cpuProfDir?: string
  log: (line: string) => void
}

export type ApiResults = Record<Endpoint, Record<ServerName, Run[]>>

interface Server { name: ServerName, child: Child, base: string }

function loadFor (endpoint: Endpoint, server: Server, options: ApiBenchOptions, connections: number, durationSeconds: number): LoadOptions {
  const { seeded } = options
  const read = { authorization: `Bearer ${seeded.readKey}` }
  const base = { url: server.base, connections, durationSeconds, method: 'GET' as const, headers: read }
  switch (endpoint) {
    case 'checks': return { ...base, paths: seeded.monitorIds.map((id) => `/api/v1/monitors/${id}/checks`) }
    case 'monitor': return { ...base, paths: seeded.monitorIds.map((id) => `/api/v1/monitors/${id}`) }
    case 'list': return { ...base, paths: ['/api/v1/monitors'] }
    case 'page': {
      if (!options.pageUser) throw new Error('the page endpoint needs a pageUser (seedPageUser)')
      // The first page, newest first: the same statement as every later page but for its cursor condition.
      return { ...base, headers: { authorization: `Bearer ${options.pageUser.key}` }, paths: [`/api/v1/monitors?limit=${PAGE_LIMIT}`] }
    }
    case 'create': return {
      ...base, method: 'POST', headers: { authorization: `Bearer ${seeded.writeKey}` }, paths: ['/api/v1/monitors'], body: JSON.stringify(POST_BODY),
    }
  }
}

async function measure (server: Server, load: LoadOptions): Promise<Run> {
  const cpu0 = processStats(server.child.pid).cpuSeconds
  const machine0 = machineCpu()
  const result = await runLoad(load)
  const cpu1 = processStats(server.child.pid).cpuSeconds
  const machine1 = machineCpu()
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(`${server.name} ${load.method} ${load.paths[0]}: ${result.non2xx} non-2xx, ${result.errors} errors (${JSON.stringify(result.statusCodes)})`)
  }
  const perRequest = (seconds: number) => Math.round(seconds * 1e6 / Math.max(1, result.requests))
  return { ...result, serverCpuUs: perRequest(cpu1 - cpu0), machineCpuUs: perRequest((machine1.busy - machine0.busy) / 100) }
}

async function startServer (name: ServerName, options: ApiBenchOptions, seeded: Seeded): Promise<Server> {
  const port = await freePort()
  const logFile = join(options.logDir, `${name}.log`)
  const child = name === 'pingward'
    ? startNode('src/server.ts', {
      ...options.database,
      PORT: String(port),
      CHECKER: 'off',
      LOG_LEVEL: 'info',
      // Far above the load (the maximum), so the limiter counts every request but refuses none.
      RATE_LIMIT_MAX: '1000000',
      // The POSTs give one user some 100,000 monitors, past any sensible limit: no limit, as before it existed.
      MAX_MONITORS_PER_OWNER: '0',
    }, { logFile, nodeArgs: [...EXPERIMENT_NODE_ARGS, ...(options.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${options.cpuProfDir}`] : [])] })
    : startNode('bench/reference-server.ts', {
      ...options.database,
      PORT: String(port),
      REFERENCE_KEY_ID: seeded.readKeyId,
      REFERENCE_WRITE_KEY_ID: seeded.writeKeyId,
      ...(options.pageUser ? { REFERENCE_PAGE_KEY_ID: options.pageUser.keyId } : {}),
    }, { logFile, nodeArgs: options.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${join(options.cpuProfDir, 'reference')}`] : [] })
  const base = `http://127.0.0.1:${port}`
  await waitForHttp(`${base}/healthz`, child)
  return { name, child, base }
}

/** Response bodies of a few requests of every endpoint, with what differs between two creates blanked. */
async function sampleBodies (server: Server, options: ApiBenchOptions): Promise<string[]> {
  const bodies: string[] = []
  for (const endpoint of options.endpoints) {
    const load = loadFor(endpoint, server, options, 1, 1)
    for (const path of load.paths.slice(0, endpoint === 'create' ? 1 : 3)) {
      const res = await fetch(server.base + path, {
        method: load.method, headers: { ...load.headers, ...(load.body ? { 'content-type': 'application/json' } : {}) }, body: load.body,
      })
      const body = await res.text()
      bodies.push(`${endpoint} ${res.status} ${res.headers.get('content-type')} ` + (endpoint === 'create'
        ? body.replace(/"(id|created_at|updated_at)":"[^"]*"/g, '"$1":"?"')
        : body))
    }
  }
  return bodies
}

function compareBodies (pingward: string[], reference: string[]): void {
  for (let i = 0; i < pingward.length; i++) {
    if (pingward[i] !== reference[i]) {
      // From a little before the first byte that differs: the answers share a long prefix.
      let at = 0
      while (pingward[i][at] === reference[i][at]) at++
      const from = Math.max(0, at - 100)
      throw new Error(`Pingward and the reference answer different bytes from byte ${at}:\n  ${pingward[i].slice(from, from + 300)}\n  ${reference[i].slice(from, from + 300)}`)
    }
  }
}

/**
 * PostgreSQL: both servers stay up; per endpoint both are warmed up, then measured in turn (A B A B).
 * PGlite: only one process may open the directory, so each round starts one server, then the other.
 */
export async function runApiBench (options: ApiBenchOptions): Promise<ApiResults> {
  const { seeded, log } = options
  const results = Object.fromEntries(options.endpoints.map((e) => [e, { pingward: [], reference: [] }])) as unknown as ApiResults
  const order: ServerName[] = ['pingward', 'reference']
  const run = async (server: Server, endpoint: Endpoint, round: number) => {
    const r = await measure(server, loadFor(endpoint, server, options, options.connections, options.durationSeconds))
    results[endpoint][server.name].push(r)
    log(`  ${ENDPOINT_LABELS[endpoint].padEnd(26)} ${server.name.padEnd(9)} round ${round + 1}: ${Math.round(r.rps)} req/s, ` +
      `p50 ${r.latencyMs.p50} ms, p99 ${r.latencyMs.p99} ms, server CPU ${r.serverCpuUs} us/req`)
  }
  const warm = (server: Server, endpoint: Endpoint) =>
    runLoad(loadFor(endpoint, server, options, options.connections, options.warmupSeconds))

  if ('DATABASE_URL' in options.database) {
    const servers = [await startServer('pingward', options, seeded), await startServer('reference', options, seeded)]
    try {
      compareBodies(await sampleBodies(servers[0], options), await sampleBodies(servers[1], options))
      for (const endpoint of options.endpoints) {
        for (const server of servers) await warm(server, endpoint)
        for (let round = 0; round < options.rounds; round++) {
          for (const server of servers) await run(server, endpoint, round)
        }
      }
    } finally {
      await Promise.all(servers.map((s) => s.child.stop()))
    }
    return results
  }

  const samples: Partial<Record<ServerName, string[]>> = {}
  for (let round = 0; round < options.rounds; round++) {
    for (const name of order) {
      const server = await startServer(name, options, seeded)
      try {
        samples[name] ??= await sampleBodies(server, options)
        for (const endpoint of options.endpoints) {
          await warm(server, endpoint)
          await run(server, endpoint, round)
        }
      } finally {
        await server.child.stop()
      }
    }
    if (round === 0) compareBodies(samples.pingward!, samples.reference!)
  }
  return results
}
