// The operator CLI's time per command after the build (`node dist/cli.js ...`, as `npm run -s cli` runs it): on
// the embedded database with no server (the CLI opens it), with a server holding it (through its admin socket),
// and on PostgreSQL (the CLI connects); wall time from spawn to exit, each command several times.
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { freePort } from '../test/support/target-server.ts'
import { emptyPostgresDatabase } from './database.ts'
import { ROOT, startNode, waitForHttp } from './processes.ts'

export interface CliRun {
  mode: 'embedded, no server' | 'embedded, server running' | 'postgresql'
  /** Wall milliseconds of each command, by its words (`keys create EMAIL`): median and max of the repeats. */
  commands: Array<{ command: string, medianMs: number, maxMs: number }>
}

export interface CliBenchOptions {
  adminUrl?: string
  dataDir: string
  repeats: number
  logDir: string
  log: (line: string) => void
}

const EMAIL = 'bench@example.com'

/** Runs `node dist/cli.js ...args` (or through `npm run -s cli`) once: its wall time and stdout (it must exit 0). */
function cli (args: string[], env: Record<string, string>, stdin = '', throughNpm = false): Promise<{ ms: number, stdout: string }> {
  const started = performance.now()
  const [command, commandArgs] = throughNpm ? ['npm', ['run', '-s', 'cli', '--', ...args]] : [process.execPath, ['dist/cli.js', ...args]]
  const child = spawn(command, commandArgs, {
    cwd: ROOT, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env }, stdio: ['pipe', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => { stdout += chunk })
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk })
  child.stdin.end(stdin)
  return new Promise((resolve, reject) => {
    child.on('close', (code) => {
      const ms = performance.now() - started
      if (code === 0) resolve({ ms, stdout })
      else reject(new Error(`pingward ${args.join(' ')} exited ${code}: ${stderr.trim()}`))
    })
  })
}

/** Each command `repeats` times, in the order an operator would run them (EMAIL exists); a key is created before it is deleted. */
async function timeCommands (env: Record<string, string>, repeats: number): Promise<CliRun['commands']> {
  const times = new Map<string, number[]>()
  const timed = async (label: string, args: string[], stdin?: string, throughNpm?: boolean) => {
    const { ms, stdout } = await cli(args, env, stdin, throughNpm)
    times.set(label, [...(times.get(label) ?? []), ms])
    return stdout
  }
  for (let i = 0; i < repeats; i++) {
    await timed('--help', ['--help'])
    await timed('users list', ['users', 'list'])
    await timed('users list, through npm run -s cli', ['users', 'list'], '', true)
    await timed('users create / delete EMAIL', ['users', 'create', `other${i}@example.com`])
    await timed('users create / delete EMAIL', ['users', 'delete', `other${i}@example.com`, '--yes'])
    await timed('users password EMAIL (stdin)', ['users', 'password', EMAIL], 'a long enough password\n')
    await timed('keys create EMAIL', ['keys', 'create', EMAIL, '--name', `bench ${i}`, '--scope', 'read'])
    const list = await timed('keys list EMAIL', ['keys', 'list', EMAIL])
    const keyId = list.split('\n')[1]?.split('\t')[0]
    if (!keyId) throw new Error(`keys list printed no key: ${list}`)
    await timed('keys delete KEY_ID', ['keys', 'delete', keyId])
    await timed('migrate', ['migrate'])
  }
  return [...times].map(([command, ms]) => {
    const sorted = [...ms].sort((a, b) => a - b)
    return { command, medianMs: Math.round(sorted[Math.floor(sorted.length / 2)]), maxMs: Math.round(sorted.at(-1)!) }
  })
}

export async function runCliBench (options: CliBenchOptions): Promise<CliRun[]> {
  const runs: CliRun[] = []
  const embedded = { DATA_DIR: options.dataDir }
  options.log('CLI: embedded, no server')
  await cli(['users', 'create', EMAIL], embedded)
  runs.push({ mode: 'embedded, no server', commands: await timeCommands(embedded, options.repeats) })

  options.log('CLI: embedded, a server running on the same DATA_DIR')
  const port = await freePort()
  const server = startNode('src/server.ts', { ...embedded, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info' },
    { logFile: join(options.logDir, 'cli-bench-server.log') })
  try {
    await waitForHttp(`http://127.0.0.1:${port}/healthz`, server)
    runs.push({ mode: 'embedded, server running', commands: await timeCommands(embedded, options.repeats) })
  } finally {
    await server.stop()
  }

  if (options.adminUrl) {
    options.log('CLI: PostgreSQL')
    const url = await emptyPostgresDatabase(options.adminUrl, 'pingward_bench_cli')
    await cli(['users', 'create', EMAIL], { DATABASE_URL: url })
    runs.push({ mode: 'postgresql', commands: await timeCommands({ DATABASE_URL: url }, options.repeats) })
  }
  return runs
}

/** The report's table: one row per command, a column per mode. */
export function cliTable (runs: CliRun[]): string[] {
  const commands = runs[0]?.commands.map((c) => c.command) ?? []
  return [
    `| command | ${runs.map((r) => `${r.mode}: median / max ms`).join(' | ')} |`,
    `|---|${runs.map(() => '---:').join('|')}|`,
    ...commands.map((command) => `| \`${command}\` | ${runs.map((r) => {
      const c = r.commands.find((x) => x.command === command)
      return c ? `${c.medianMs} / ${c.maxMs}` : '-'
    }).join(' | ')} |`),
  ]
}
