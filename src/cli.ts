// Operator command line: users, API keys, migrations and the OpenAPI document.
import { parseArgs } from 'node:util'
import { loadConfig } from './runtime/config.ts'
import type { DatabaseHandle } from './db/client.ts'
import { runMain } from './runtime/run-main.ts'
import { bodyValidator } from './http/validation.ts'
import { API_KEY_SCOPES } from './domain/vocabulary.ts'
import { CreateApiKeySchema, KEY_EXPIRY_MAX_DAYS, type CreateApiKey } from './schemas/api-key.ts'
import { openMigratedDatabase } from './db/migrate.ts'
import { createApiKey, deleteApiKey, listApiKeys } from './repositories/api-keys.ts'
import { createUser, findUserByEmail, setPasswordHash } from './repositories/users.ts'
import { deleteSessionsOfUser } from './repositories/sessions.ts'
import { hashPassword, passwordProblem } from './auth/passwords.ts'
import { readNewPassword } from './cli/password-input.ts'

const USAGE = `Usage: npm run -s cli -- <command>

  users create EMAIL
  users password EMAIL
                      sets the dashboard password, read from the terminal (hidden) or stdin:
                      echo 'a long password' | npm run -s cli -- users password me@example.com
  keys create EMAIL [--scope read|write] [--name NAME] [--expires-in DAYS]
                      prints the new key alone on stdout: KEY=$(npm run -s cli -- keys create me@example.com)
  keys list EMAIL
  keys delete KEY_ID
  migrate             apply database migrations
  openapi             print the OpenAPI document

The database is DATABASE_URL (PostgreSQL) or the embedded one in DATA_DIR (default ./data).`

class UsageError extends Error {}

const log = (line: string) => process.stderr.write(`${line}\n`)

async function withDatabase<T> (fn: (handle: DatabaseHandle) => Promise<T>): Promise<T> {
  const config = loadConfig()
  const handle = await openMigratedDatabase({ ...config, poolSize: 1 })
  try {
    return await fn(handle)
  } finally {
    await handle.close()
  }
}

async function userOrFail (handle: DatabaseHandle, email: string | undefined) {
  if (!email) throw new UsageError('an EMAIL is required')
  const user = await findUserByEmail(handle.db, email)
  if (!user) throw new Error(`No user with the email ${email}; create one with: npm run -s cli -- users create ${email}`)
  return user
}

// The command line's words for the rules of CreateApiKeySchema, by field.
const KEY_FLAG_RULES: Record<string, string> = {
  name: '--name must be 1-100 characters and not blank',
  scope: `--scope must be ${API_KEY_SCOPES.join(' or ')}`,
  expires_in_days: `--expires-in must be a whole number of days from 1 to ${KEY_EXPIRY_MAX_DAYS}`,
}

const validateKey = bodyValidator<CreateApiKey>(CreateApiKeySchema)

function validKeyInput (input: Record<string, unknown>): CreateApiKey {
  const result = validateKey(input)
  if (result.ok) return result.value
  throw new UsageError(KEY_FLAG_RULES[result.error.field] ?? result.error.message)
}

async function keysCreate (args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { scope: { type: 'string', default: 'write' }, name: { type: 'string' }, 'expires-in': { type: 'string' } },
  })
  const input: Record<string, unknown> = { name: values.name ?? `key ${new Date().toISOString().slice(0, 10)}`, scope: values.scope }
  if (values['expires-in'] !== undefined) {
    input.expires_in_days = /^\s*-?\d+\s*$/.test(values['expires-in']) ? Number(values['expires-in']) : values['expires-in']
  }
  // The API's own rules for a new key (the dashboard's form uses them too), worded for the command line.
  const { scope, name, expires_in_days: days } = validKeyInput(input)
  await withDatabase(async (handle) => {
    const user = await userOrFail(handle, positionals[0])
    const { key, record } = await createApiKey(handle.db, {
      userId: user.id,
      name,
      scope,
      expiresAt: days ? new Date(Date.now() + days * 86_400_000) : null,
    })
    log(`Created ${scope} key ${record.id} (${record.prefix}...) for ${user.email}` +
      (record.expiresAt ? `, expires ${record.expiresAt.toISOString()}` : '') + '. It is shown only this once.')
    process.stdout.write(`${key}\n`)
  })
}

async function run (argv: string[]): Promise<void> {
  const [group, action, ...rest] = argv
  const command = [group, action].filter(Boolean).join(' ')
  switch (command) {
    case 'users create':
      return withDatabase(async (handle) => {
        if (!rest[0] || !/^[^\s@]+@[^\s@]+$/.test(rest[0])) throw new UsageError('users create needs an EMAIL')
        const user = await createUser(handle.db, rest[0])
        process.stdout.write(`${user.id}\n`)
        log(`Created user ${user.email}`)
      })
    case 'users password':
      if (!rest[0]) throw new UsageError('users password needs an EMAIL')
      return withDatabase(async (handle) => {
        const user = await userOrFail(handle, rest[0])
        const password = await readNewPassword(`New dashboard password for ${user.email}: `)
        const problem = passwordProblem(password)
        if (problem) throw new Error(`the password ${problem}`)
        await setPasswordHash(handle.db, user.id, await hashPassword(password))
        // A new password signs the user out everywhere.
        const ended = await deleteSessionsOfUser(handle.db, user.id)
        log(`Set the dashboard password of ${user.email}${ended > 0 ? `; ended ${ended} signed-in session(s)` : ''}`)
      })
    case 'keys create':
      return keysCreate(rest)
    case 'keys list':
      return withDatabase(async (handle) => {
        const user = await userOrFail(handle, rest[0])
        const keys = await listApiKeys(handle.db, user.id)
        const iso = (d: Date | null) => d?.toISOString() ?? '-'
        process.stdout.write(['id\tprefix\tscope\tname\tcreated_at\tlast_used_at\texpires_at',
          ...keys.map((k) => [k.id, `${k.prefix}...`, k.scope, k.name, iso(k.createdAt), iso(k.lastUsedAt), iso(k.expiresAt)].join('\t')),
        ].join('\n') + '\n')
      })
    case 'keys delete':
      if (!rest[0] || !/^[0-9a-f-]{36}$/i.test(rest[0])) throw new UsageError('keys delete needs a KEY_ID (see keys list)')
      return withDatabase(async (handle) => {
        if (!await deleteApiKey(handle.db, rest[0])) throw new Error(`No key with the id ${rest[0]}`)
        log(`Deleted key ${rest[0]}: requests with it are refused from now on`)
      })
    case 'migrate':
      return withDatabase(async () => { log('Database is up to date') })
    case 'openapi': {
      const { renderOpenApi } = await import('./http/openapi-document.ts')
      process.stdout.write(await renderOpenApi())
      return
    }
    default:
      throw new UsageError(command ? `unknown command: ${command}` : 'a command is required')
  }
}

// Every failure of a command is the operator's to read: its message, without a stack.
runMain('pingward', () => run(process.argv.slice(2)), {
  exitOnSuccess: true,
  message: (err) => err instanceof UsageError ? `${err.message}\n\n${USAGE}` : (err as Error).message,
  exitCode: (err) => err instanceof UsageError ? 2 : 1,
})
