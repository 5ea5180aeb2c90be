// Child processes of the benchmark: servers, workers and the load generator; their CPU time and memory.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { openSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import type { LoadOptions, LoadResult } from './load.ts'

export const ROOT = fileURLToPath(new URL('..', import.meta.url))

/** The node flags an npm script runs `dist/<entry>.js` with (package.json). */
function npmScriptFlags (script: string, entry: string): string[] {
  const command: string = JSON.parse(readFileSync(`${ROOT}/package.json`, 'utf8')).scripts[script]
  return (new RegExp(`\\bnode ((?:--\\S+ )*)dist/${entry}\\.js`).exec(command)?.[1] ?? '').split(' ').filter(Boolean)
}

/** The node flags `npm start` runs Pingward with (package.json), so that the bench measures what operators run. */
export const PINGWARD_NODE_FLAGS: string[] = npmScriptFlags('start', 'server')
/** `npm run worker`'s, for the checker's worker processes. */
export const WORKER_NODE_FLAGS: string[] = npmScriptFlags('worker', 'worker')
/** BENCH_PINGWARD_NODE_ARGS: an experiment's node flags, added to Pingward's server in the api and memory parts. */
export const EXPERIMENT_NODE_ARGS: string[] = process.env.BENCH_PINGWARD_NODE_ARGS?.split(' ').filter(Boolean) ?? []

/** The environment of a child: ours without Pingward's settings, plus `vars`. */
function childEnv (vars: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env }
  for (const name of ['DATABASE_URL', 'DATA_DIR', 'PORT', 'REDIS_URL', 'CHECKER', 'LOG_LEVEL', 'NODE_OPTIONS', 'RATE_LIMIT_MAX']) delete env[name]
  return { ...env, ...vars }
}

export interface Child {
  process: ChildProcess
  pid: number
  /** Resolves with the exit code. */
  exited: Promise<number | null>
  /** SIGTERM, then SIGKILL after `graceMs`; resolves when it has exited. */
  stop: (graceMs?: number) => Promise<number | null>
}

/** Builds dist/ (npm run build): Pingward's processes run from it. */
export function ensureBuilt (): void {
  const { status } = spawnSync('npm', ['run', '-s', 'build'], { cwd: ROOT, stdio: 'inherit' })
  if (status !== 0) throw new Error('npm run build failed')
}

/**
 * Starts node itself (so the pid is the measured process): Pingward's `src/<name>.ts` as operators run it,
 * its compiled `dist/<name>.js` (see ensureBuilt) with npm start's node flags (the reference server with them
 * too), anything else with `--import=tsx`. Output goes to
 * `logFile`, or to `onLine` line by line.
 */
export function startNode (
  script: string, vars: Record<string, string | undefined>,
  options: { logFile?: string, onLine?: (line: string) => void, nodeArgs?: string[] } = {}
): Child {
  const compiled = /^src\/(.+)\.ts$/.exec(script)
  // The worker with npm run worker's flags; the reference server with the server's: the API's ratios compare the
  // code, not V8's settings.
  const flags = compiled?.[1] === 'worker' ? WORKER_NODE_FLAGS : compiled || script === 'bench/reference-server.ts' ? PINGWARD_NODE_FLAGS : []
  // An experiment's flags (nodeArgs) after the npm script's, so that they can override them (V8 takes a flag's last value).
  const args = [...flags, ...(options.nodeArgs ?? []), ...(compiled ? [`dist/${compiled[1]}.js`] : ['--import=tsx', script])]
  return startProcess(process.execPath, args, childEnv(vars), options)
}

/** Starts any program (a server of someone else's, such as blackbox_exporter) as a Child; output as startNode's. */
export function startProcess (
  file: string, args: string[], env: NodeJS.ProcessEnv,
  options: { logFile?: string, onLine?: (line: string) => void } = {}
): Child {
  const out = options.logFile ? openSync(options.logFile, 'a') : 'pipe'
  const child = spawn(file, args, { cwd: ROOT, env, stdio: ['ignore', out, out] })
  if (options.onLine && child.stdout) {
    let rest = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      const lines = (rest + chunk).split('\n')
      rest = lines.pop()!
      for (const line of lines) options.onLine!(line)
    })
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => process.stderr.write(chunk))
  }
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  return {
    process: child,
    pid: child.pid!,
    exited,
    stop: async (graceMs = 15_000) => {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode
      child.kill('SIGTERM')
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs)
      const code = await exited
      clearTimeout(timer)
      return code
    },
  }
}

/** Polls `url` until it answers 200 (or the child exits, or the time is up). */
export async function waitForHttp (url: string, child: Child, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  const hasExited = () => child.process.exitCode !== null || child.process.signalCode !== null
  while (Date.now() < deadline && !hasExited()) {
    try {
      if ((await fetch(url)).status === 200) return
    } catch {}
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  throw new Error(`${url} did not come up${hasExited() ? ' (the process exited)' : ''}`)
}

/** Runs the load generator in a process of its own and returns its summary. */
export async function runLoad (options: LoadOptions): Promise<LoadResult> {
  const child = spawn(process.execPath, ['--import=tsx', 'bench/load.ts'], {
    cwd: ROOT, env: childEnv({}), stdio: ['pipe', 'pipe', 'inherit'],
  })
  child.stdin.end(JSON.stringify(options))
  let out = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => { out += chunk })
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve))
  if (code !== 0) throw new Error(`the load generator exited with ${code}`)
  return JSON.parse(out) as LoadResult
}

const CLOCK_TICKS = 100 // USER_HZ on Linux

/** CPU seconds (user + system) and resident memory of a process, from /proc. */
export function processStats (pid: number): { cpuSeconds: number, rssBytes: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  const cpuSeconds = (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS
  const rss = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return { cpuSeconds, rssBytes: rss ? Number(rss[1]) * 1024 : 0 }
}

/** Busy and total jiffies of the whole machine, to tell how loaded it was. */
export function machineCpu (): { busy: number, total: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number)
  const idle = line[3] + line[4]
  const total = line.reduce((a, b) => a + b, 0)
  return { busy: total - idle, total }
}
