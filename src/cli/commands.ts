// The operator commands that touch the database, run by the CLI or by the server for it; stdout holds what a script takes.
import type { Database } from '../db/client.ts'
import { systemAudit } from '../domain/audit.ts'
import { listApiKeys } from '../repositories/api-keys.ts'
import { makeApiKey, revokeApiKey } from '../services/api-keys.ts'
import type { Role } from '../domain/vocabulary.ts'
import {
  findOrganizationBySlug, listMembers, listOrganizations, memberRole, personalOrgId, soleOwnerships,
} from '../organizations/repository.ts'
import { addMember, changeMemberRole, createOrganization, deleteOrganization, removeMember } from '../organizations/service.ts'
import { isLocationOnline } from '../domain/locations.ts'
import { listBuiltinLocations } from '../locations/repository.ts'
import { removeSilentBuiltinLocation } from '../locations/service.ts'
import { rebuildRollups } from '../repositories/rollups.ts'
import { deleteSessionsOfUser } from '../repositories/sessions.ts'
import { createUser, deleteUserByEmail, findUserByEmail, listUsers, setPasswordHash } from '../repositories/users.ts'

/** A command as the CLI parsed it: a password arrives hashed, and a key's `input` is checked here (key-input.ts). */
export type CliCommand =
  | { name: 'users create', email: string }
  | { name: 'users password', email: string, passwordHash: string }
  | { name: 'users list' }
  | { name: 'users delete', email: string }
  | { name: 'keys create', email: string, input: Record<string, unknown>, org?: string }
  | { name: 'keys list', email: string }
  | { name: 'keys delete', keyId: string }
  | { name: 'orgs list' }
  | { name: 'orgs create', slug: string, owner: string, orgName: string }
  | { name: 'orgs delete', org: string }
  | { name: 'members list', org: string }
  | { name: 'members add' | 'members role', email: string, org: string, role: Role }
  | { name: 'members remove', email: string, org: string }
  | { name: 'locations list' }
  | { name: 'locations remove', code: string }
  | { name: 'migrate' }
  /** Times in ms; retentionDays: the checks' (CHECK_RETENTION_DAYS), before which no hour is rebuilt. */
  | { name: 'rollups rebuild', from: number, to: number, retentionDays: number }

export const DATABASE_COMMANDS: ReadonlyArray<CliCommand['name']> = [
  'users create', 'users password', 'users list', 'users delete', 'keys create', 'keys list', 'keys delete',
  'orgs list', 'orgs create', 'orgs delete', 'members list', 'members add', 'members role', 'members remove',
  'locations list', 'locations remove', 'migrate', 'rollups rebuild',
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

async function organizationOrFail (db: Database, slug: string) {
  const org = await findOrganizationBySlug(db, slug)
  if (!org) throw new CommandError(`No organization with the slug ${slug}; see: npm run -s cli -- orgs list`)
  return org
}

/** The operator acts as an owner would: the rules of the organization (its last owner) still hold. */
// The CLI's operator may do anything, and the audit log names them as the system's CLI.
const CLI_AUDIT = systemAudit('cli')
const operatorIn = (orgId: string) => ({ orgId, role: 'owner' as const, audit: CLI_AUDIT })

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
      const user = await findUserByEmail(db, command.email)
      const owned = user ? await soleOwnerships(db, user.id) : []
      if (owned.length > 0) {
        throw new CommandError(`${user!.email} is the last owner of ${owned.join(', ')}: make another member an owner first (members role)`)
      }
      if (!await deleteUserByEmail(db, command.email)) throw new CommandError(`No user with the email ${command.email}`)
      return { stdout: '', stderr: `Deleted user ${command.email.trim().toLowerCase()} with their keys, monitors, checks and channels\n` }
    }
    case 'keys create': {
      const { name, scope, expires_in_days: days } = (await checkOptions(command))!
      const user = await userOrFail(db, command.email)
      const org = command.org === undefined ? undefined : await organizationOrFail(db, command.org)
      if (org && await memberRole(db, org.id, user.id) === undefined) {
        throw new CommandError(`${user.email} is no member of ${org.slug}; add them with: npm run -s cli -- members add ${user.email} --org ${org.slug} --role ROLE`)
      }
      const { key, record } = await makeApiKey(db, {
        userId: user.id,
        orgId: org?.id ?? personalOrgId(user.id),
        name,
        scope,
        expiresAt: days ? new Date(now.getTime() + days * 86_400_000) : null,
      }, now, CLI_AUDIT)
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
      if (!await revokeApiKey(db, command.keyId, { now, audit: CLI_AUDIT })) throw new CommandError(`No key with the id ${command.keyId}`)
      return { stdout: '', stderr: `Deleted key ${command.keyId}: requests with it are refused from now on\n` }
    }
    case 'orgs list': {
      const orgs = await listOrganizations(db)
      return {
        stdout: table(['id', 'slug', 'name', 'members', 'created_at'], orgs.map((o) => [o.id, o.slug, o.name, String(o.members), iso(o.createdAt)])),
        stderr: '',
      }
    }
    case 'orgs create': {
      const owner = await userOrFail(db, command.owner)
      const org = await createOrganization(db, { name: command.orgName, slug: command.slug, ownerId: owner.id, now }, CLI_AUDIT)
      return { stdout: `${org.id}\n`, stderr: `Created organization ${org.slug} with ${owner.email} as its owner\n` }
    }
    case 'orgs delete': {
      const org = await organizationOrFail(db, command.org)
      await deleteOrganization(db, operatorIn(org.id))
      return { stdout: '', stderr: `Deleted organization ${org.slug} with its monitors, channels, keys, members and audit log\n` }
    }
    case 'members list': {
      const org = await organizationOrFail(db, command.org)
      const members = await listMembers(db, org.id)
      return { stdout: table(['user_id', 'email', 'role', 'joined_at'], members.map((m) => [m.userId, m.email, m.role, iso(m.joinedAt)])), stderr: '' }
    }
    case 'members add': {
      const [org, user] = [await organizationOrFail(db, command.org), await userOrFail(db, command.email)]
      if (!await addMember(db, operatorIn(org.id), user.id, command.role, now)) {
        throw new CommandError(`${user.email} is a member of ${org.slug} already; change the role with: members role`)
      }
      return { stdout: '', stderr: `Added ${user.email} to ${org.slug} as ${command.role}\n` }
    }
    case 'members role': {
      const [org, user] = [await organizationOrFail(db, command.org), await userOrFail(db, command.email)]
      if (!await changeMemberRole(db, operatorIn(org.id), user.id, command.role, now)) throw new CommandError(`${user.email} is no member of ${org.slug}`)
      return { stdout: '', stderr: `${user.email} is ${command.role} in ${org.slug}\n` }
    }
    case 'members remove': {
      const [org, user] = [await organizationOrFail(db, command.org), await userOrFail(db, command.email)]
      if (!await removeMember(db, operatorIn(org.id), user.id, now)) throw new CommandError(`${user.email} is no member of ${org.slug}`)
      return { stdout: '', stderr: `Removed ${user.email} from ${org.slug}, with the keys they made there\n` }
    }
    case 'locations list': {
      const rows = await listBuiltinLocations(db)
      return {
        stdout: table(['code', 'last_seen_at', 'version', 'online'],
          rows.map((l) => [l.code, iso(l.lastSeenAt), l.version ?? '-', isLocationOnline(l.lastSeenAt, now) ? 'yes' : 'no'])),
        stderr: '',
      }
    }
    case 'locations remove': {
      if (!await removeSilentBuiltinLocation(db, command.code, now)) throw new CommandError(`No built-in location ${command.code}; see: npm run -s cli -- locations list`)
      return { stdout: '', stderr: `Removed the built-in location ${command.code}; monitors that list it count it as silent until their locations change\n` }
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
