// The operator commands that touch the database, run by the CLI or by the server for it; stdout holds what a script takes.
import type { Database } from '../db/client.ts'
import { createApiKey, deleteApiKey, listApiKeys } from '../repositories/api-keys.ts'
import { rebuildRollups } from '../repositories/rollups.ts'
import { deleteSessionsOfUser } from '../repositories/sessions.ts'
import { createUser, deleteUserByEmail, findUserByEmail, listUsers, setPasswordHash } from '../repositories/users.ts'

/** A command as the CLI parsed it: a password arrives hashed, and a key's `input` is checked here (key-input.ts). */
export type CliCommand =
  | { name: 'users create', email: string }
  | { name: 'users password', email: string, passwordHash: string }
  | { name: 'users list' }
  | { name: 'users delete', email: string }
  | { name: 'keys create', email: string, input: Record<string, unknown> }
  | { name: 'keys list', email: string }
  | { name: 'keys delete', keyId: string }
  | { name: 'migrate' }
  /** Times in ms; retentionDays: the checks' (CHECK_RETENTION_DAYS), before which no hour is rebuilt. */
  | { name: 'rollups rebuild', from: number, to: number, retentionDays: number }

export const DATABASE_COMMANDS: ReadonlyArray<CliCommand['name']> = [
  'users create', 'users password', 'users list', 'users delete', 'keys create', 'keys list', 'keys delete', 'migrate', 'rollups rebuild',
]

export interface CommandOutput { stdout: string, stderr: string }

/** A command that cannot be done as asked (no such user, a duplicate): its message is for the operator. */
export class CommandError extends Error {}

const iso = (d: Date | null) => d?.toISOString() ?? '-'
const table = (header: string[], rows: string[][]) => [header, ...rows].map((r) => r.join('\t')).join('\n') + '\n'

async function userOrFail (db: Database, email: string) {
  const user = await findUserByEmail(db, email)
  if (!user) throw new CommandError(`No user with the email ${email}; create one with: npm run -s cli -- users create ${email}`)
  return user
}

/** Checks a command's options before any database is touched (a UsageError names the flag); only this loads Ajv. */
export async function checkOptions (command: CliCommand) {
  if (command.name !== 'keys create') return undefined
  return (await import('./key-input.ts')).keyOptions(command.input)
}

/** Runs one command; throws CommandError or a domain error when it cannot, UsageError for options it does not take. */
export async function runCommand (db: Database, command: CliCommand, now = new Date()): Promise<CommandOutput> {
  switch (command.name) {
    case 'users create': {
      const user = await createUser(db, command.email)
      return { stdout: `${user.id}\n`, stderr: `Created user ${user.email}\n` }
    }
    case 'users password': {
      const user = await userOrFail(db, command.email)
      await setPasswordHash(db, user.id, command.passwordHash)
      // A new password signs the user out everywhere.
      const ended = await deleteSessionsOfUser(db, user.id)
      return { stdout: '', stderr: `Set the dashboard password of ${user.email}${ended > 0 ? `; ended ${ended} signed-in session(s)` : ''}\n` }
    }
    case 'users list': {
      const users = await listUsers(db)
      return {
        stdout: table(['id', 'email', 'password', 'keys', 'monitors', 'created_at'],
          users.map((u) => [u.id, u.email, u.hasPassword ? 'set' : '-', String(u.keys), String(u.monitors), iso(u.createdAt)])),
        stderr: '',
      }
    }
    case 'users delete': {
      if (!await deleteUserByEmail(db, command.email)) throw new CommandError(`No user with the email ${command.email}`)
      return { stdout: '', stderr: `Deleted user ${command.email.trim().toLowerCase()} with their keys, monitors, checks and channels\n` }
    }
    case 'keys create': {
      const { name, scope, expires_in_days: days } = (await checkOptions(command))!
      const user = await userOrFail(db, command.email)
      const { key, record } = await createApiKey(db, {
        userId: user.id,
        name,
        scope,
        expiresAt: days ? new Date(now.getTime() + days * 86_400_000) : null,
      })
      return {
        stdout: `${key}\n`,
        stderr: `Created ${record.scope} key ${record.id} (${record.prefix}...) for ${user.email}` +
          (record.expiresAt ? `, expires ${record.expiresAt.toISOString()}` : '') + '. It is shown only this once.\n',
      }
    }
    case 'keys list': {
      const user = await userOrFail(db, command.email)
      const keys = await listApiKeys(db, user.id)
      return {
        stdout: table(['id', 'prefix', 'scope', 'name', 'created_at', 'last_used_at', 'expires_at'],
          keys.map((k) => [k.id, `${k.prefix}...`, k.scope, k.name, iso(k.createdAt), iso(k.lastUsedAt), iso(k.expiresAt)])),
        stderr: '',
      }
    }
    case 'keys delete': {
      if (!await deleteApiKey(db, command.keyId)) throw new CommandError(`No key with the id ${command.keyId}`)
      return { stdout: '', stderr: `Deleted key ${command.keyId}: requests with it are refused from now on\n` }
    }
    case 'rollups rebuild': {
      const keptSince = now.getTime() - command.retentionDays * 86_400_000
      const { hours, days } = await rebuildRollups(db, { from: command.from, to: command.to, keptSince })
      return {
        stdout: '',
        stderr: `Rebuilt ${hours} hour(s) and ${days} day(s) of uptime rollups from ${new Date(Math.max(command.from, keptSince)).toISOString()}` +
          (hours === 0 ? ' (none is built there yet, or its checks are past their retention)' : '') + '\n',
      }
    }
    case 'migrate':
      // Whoever runs a command has opened the database migrated (the CLI, or the server at its start).
      return { stdout: '', stderr: 'Database is up to date\n' }
  }
}
