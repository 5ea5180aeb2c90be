// Operator command line: users, API keys, migrations and the OpenAPI document. Commands run on the database or,
// while a server holds it, through its admin socket; modules beyond the parsing are imported only when needed.
import type { CliCommand, CommandOutput } from './cli/commands.ts'
import { parseCommand, usage, type Parsed } from './cli/args.ts'
import { UsageError } from './cli/usage-error.ts'
import { DataDirLockedError } from './db/data-dir-lock.ts'
import { TIGHTENED_MESSAGE } from './db/data-dir-modes.ts'
import { runMain } from './runtime/run-main.ts'
import { DEFAULT_DATA_DIR } from './runtime/config-basics.ts'

// A server that has just taken the embedded database listens on its admin socket once it has migrated it.
const SERVER_START_WAIT_MS = 10_000

/** The command to run, once what the CLI does itself is done: a password read and hashed. */
async function commandOf (parsed: Exclude<Parsed, { kind: 'help' | 'openapi' }>): Promise<CliCommand> {
  if (parsed.kind === 'run') return parsed.command
  const [{ readNewPassword }, { hashPassword, passwordProblem }] = await Promise.all([
    import('./cli/password-input.ts'), import('./auth/passwords.ts'),
  ])
  const password = await readNewPassword(`New dashboard password for ${parsed.email}: `)
  const problem = passwordProblem(password)
  if (problem) throw new Error(`the password ${problem}`)
  // Hashed here: the password itself never leaves this process, not even to the server's socket.
  return { name: 'users password', email: parsed.email, passwordHash: await hashPassword(password) }
}

async function runDirectly (command: CliCommand): Promise<CommandOutput> {
  const [{ loadConfig }, { openMigratedDatabase }, { checkOptions, runCommand }] = await Promise.all([
    import('./runtime/config.ts'), import('./db/migrate.ts'), import('./cli/commands.ts'),
  ])
  await checkOptions(command)
  const handle = await openMigratedDatabase({ ...loadConfig(), poolSize: 1 })
  if (handle.tightened) {
    const { directories, files } = handle.tightened
    process.stderr.write(`${TIGHTENED_MESSAGE} (${directories} directories and ${files} files changed)\n`)
  }
  try {
    return await runCommand(handle.db, command)
  } finally {
    await handle.close()
  }
}

/** Through the running server when one holds the embedded database; directly otherwise (and on PostgreSQL). */
async function execute (command: CliCommand): Promise<CommandOutput> {
  // Read as loadConfig() reads it (empty counts as unset), without loading the configuration and TypeBox.
  if (process.env.DATABASE_URL) return runDirectly(command)
  const dataDir = process.env.DATA_DIR || DEFAULT_DATA_DIR
  const { askServer } = await import('./cli/admin-client.ts')
  const fromServer = (reply: Awaited<ReturnType<typeof askServer>> & object) => {
    if (!reply.ok) throw reply.usage ? new UsageError(reply.error) : new Error(reply.error)
    return reply
  }
  const reply = await askServer(dataDir, command)
  if (reply) return fromServer(reply)
  try {
    return await runDirectly(command)
  } catch (err) {
    if (!(err instanceof DataDirLockedError)) throw err
    // Taken in between, or by a server still starting: ask it once it listens.
    for (const started = Date.now(); Date.now() - started < SERVER_START_WAIT_MS;) {
      await new Promise((resolve) => setTimeout(resolve, 200))
      const late = await askServer(dataDir, command)
      if (late) return fromServer(late)
    }
    throw new DataDirLockedError(`${err.message} It does not answer on its admin socket (a worker, or a server that could not open it).`)
  }
}

async function main (argv: string[]): Promise<void> {
  const parsed = parseCommand(argv)
  if (parsed.kind === 'help') {
    process.stdout.write(`${parsed.text}\n`)
    return
  }
  if (parsed.kind === 'openapi') {
    const { renderOpenApi } = await import('./app.ts')
    process.stdout.write(await renderOpenApi())
    return
  }
  const output = await execute(await commandOf(parsed))
  process.stdout.write(output.stdout)
  process.stderr.write(output.stderr)
}

// Every failure of a command is the operator's to read: its message, without a stack.
runMain('pingward', () => main(process.argv.slice(2)), {
  exitOnSuccess: true,
  message: (err) => err instanceof UsageError ? `${err.message}\n\n${usage()}` : (err as Error).message,
  exitCode: (err) => err instanceof UsageError ? 2 : 1,
})
