// Resilience test support: a private, throwaway PostgreSQL cluster that a test may stop and start (never the
// machine's shared one), and Pingward processes whose output can be awaited.
import { execFile, execFileSync, spawnSync } from 'node:child_process'
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import http from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { ChildProcessWithoutNullStreams } from 'node:child_process'
import { outputWaiter, spawnPingward, type Teardown } from '../helper.ts'
import { freePort } from '../support/target-server.ts'

/** The newest PostgreSQL server binaries on this machine, or undefined. */
function postgresBinaries (): string | undefined {
  const root = '/usr/lib/postgresql'
  if (!existsSync(root)) return undefined
  const versions = readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'initdb')) && existsSync(join(root, v, 'bin', 'pg_ctl')))
  const newest = versions.sort((a, b) => Number(a) - Number(b)).pop()
  return newest && join(root, newest, 'bin')
}

export const SKIP_WITHOUT_POSTGRES = postgresBinaries() ? false : 'no PostgreSQL server binaries in /usr/lib/postgresql/*/bin (initdb, pg_ctl)'

export interface PrivatePostgres {
  /** postgres://postgres@127.0.0.1:PORT/pingward */
  url: string
  stop: () => void
  start: () => void
  /** The same without blocking this process, for a test that drives load meanwhile (spawnSync would stall it). */
  stopAsync: (mode?: 'fast' | 'immediate') => Promise<void>
  startAsync: () => Promise<void>
}

/**
 * initdb + pg_ctl start of a cluster in a temporary directory on a free port, with trust auth on 127.0.0.1.
 * As root, the binaries run as the `postgres` OS user (initdb refuses root). Removed at teardown.
 */
export async function startPrivatePostgres (t: Teardown): Promise<PrivatePostgres> {
  const bin = postgresBinaries()
  if (!bin) throw new Error(String(SKIP_WITHOUT_POSTGRES))
  const dir = mkdtempSync(join(tmpdir(), 'pingward-pg-'))
  const data = join(dir, 'data')
  const port = await freePort()
  const asRoot = process.getuid?.() === 0
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString())
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString())
    chownSync(dir, uid, gid)
  }
  const commandLine = (command: string, args: string[]): [string, string[]] => {
    const quoted = [join(bin, command), ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(' ')
    return asRoot ? ['su', ['postgres', '-s', '/bin/sh', '-c', quoted]] : [join(bin, command), args]
  }
  const run = (command: string, args: string[]) => {
    const result = spawnSync(...commandLine(command, args), { encoding: 'utf8' })
    if (result.status !== 0) throw new Error(`${command} failed (${result.status}): ${result.stderr}${result.stdout}`)
  }
  const runAsync = (command: string, args: string[]) => new Promise<void>((resolve, reject) => {
    execFile(...commandLine(command, args), { encoding: 'utf8' }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${command} failed (${err.code}): ${stderr}${stdout}`))
      else resolve()
    })
  })
  run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8'])
  const options = `-c listen_addresses=127.0.0.1 -p ${port} -k ${dir} -c fsync=off -c max_connections=200`
  const startArgs = ['-D', data, '-o', options, '-l', join(dir, 'log'), '-w', '-t', '60', 'start']
  const stopArgs = (mode: string) => ['-D', data, '-m', mode, '-w', '-t', '60', 'stop']
  const start = () => run('pg_ctl', startArgs)
  const stop = () => run('pg_ctl', stopArgs('fast'))
  start()
  t.teardown(() => {
    try { run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']) } catch { /* already stopped */ }
    rmSync(dir, { recursive: true, force: true })
  })
  run('createdb', ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', 'pingward'])
  return {
    url: `postgres://postgres@127.0.0.1:${port}/pingward`,
    stop,
    start,
    stopAsync: (mode = 'fast') => runAsync('pg_ctl', stopArgs(mode)),
    startAsync: () => runAsync('pg_ctl', startArgs),
  }
}

export interface PingwardProcess {
  child: ChildProcessWithoutNullStreams
  /** http://127.0.0.1:PORT once it listens (servers only). */
  base: string
  output: () => string
  /** Resolves with the first match in stdout+stderr from `from` on; rejects when the process exits first. */
  waitFor: (pattern: RegExp, timeoutMs?: number, from?: number) => Promise<RegExpExecArray>
  exited: Promise<{ code: number | null, signal: NodeJS.Signals | null }>
}

const LISTENING = /"msg":"Server listening at (http:\/\/127\.0\.0\.1:\d+)"/

/** Spawns src/server.ts (or another entry point) and, for a server, waits until it listens. */
export async function startPingward (t: Teardown, vars: Record<string, string>, script = 'src/server.ts'): Promise<PingwardProcess> {
  const child = spawnPingward(script, [], { HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info', ...vars })
  let out = ''
  const { wake, waitFor } = outputWaiter(child, () => out, () => out.slice(-4000))
  const onData = (chunk: string) => { out += chunk; wake() }
  child.stdout.setEncoding('utf8').on('data', onData)
  child.stderr.setEncoding('utf8').on('data', onData)
  const exited = new Promise<{ code: number | null, signal: NodeJS.Signals | null }>((resolve) => {
    child.on('close', (code, signal) => { wake(); resolve({ code, signal }) })
  })
  t.teardown(() => { if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL') })
  const base = script === 'src/server.ts' ? (await waitFor(LISTENING))[1] : ''
  return { child, base, output: () => out, waitFor, exited }
}

/** The key printed on the first start of a server on an empty database. */
export async function firstKey (server: PingwardProcess): Promise<string> {
  return (await server.waitFor(/^ {2}(sk_[0-9A-Za-z]{38})$/m))[1]
}

/** One request of a load: when it was sent and answered, and its status or the error code that ended it. */
export interface Sent {
  path: string
  sentAt: number
  at: number
  status: number | string
  body: string
}

/** A GET on a connection of its own (no keep-alive, so an answer or a refusal is the server's alone). */
export function get (base: string, path: string, headers: Record<string, string> = {}): Promise<Sent> {
  const sentAt = Date.now()
  return new Promise((resolve) => {
    const req = http.get(`${base}${path}`, { agent: false, headers }, (res) => {
      let body = ''
      res.setEncoding('utf8').on('data', (chunk: string) => { body += chunk })
      res.on('end', () => resolve({ path, sentAt, at: Date.now(), status: res.statusCode ?? 0, body }))
      res.on('error', (err: NodeJS.ErrnoException) => resolve({ path, sentAt, at: Date.now(), status: err.code ?? err.message, body }))
    })
    req.on('error', (err: NodeJS.ErrnoException) => resolve({ path, sentAt, at: Date.now(), status: err.code ?? err.message, body: '' }))
  })
}

/**
 * Sends `perSecond` requests a second (open loop: a slow answer does not hold back the next request) until
 * stop(), which resolves with every request once all have ended.
 */
export function steadyLoad (perSecond: number, send: (n: number) => Promise<Sent>) {
  const all: Array<Promise<Sent>> = []
  const timer = setInterval(() => all.push(send(all.length)), 1000 / perSecond)
  return {
    sent: () => all.length,
    stop: async () => {
      clearInterval(timer)
      return Promise.all(all)
    },
  }
}
