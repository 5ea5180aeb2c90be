// The CLI's usage and argv parsing, every usage error found before any database opens; it imports nothing heavy.
import { parseArgs, type ParseArgsConfig } from 'node:util'
import { isLocationCode, LOCATION_CODE } from '../domain/locations.ts'
import { isSlug, SLUG_RULE } from '../domain/slug.ts'
import { ROLES, type Role } from '../domain/vocabulary.ts'
import type { CliCommand } from './commands.ts'
import { UsageError } from './usage-error.ts'

type Options = NonNullable<ParseArgsConfig['options']>

interface Spec {
  usage: string
  help: string
  takes?: 'EMAIL' | 'KEY_ID' | 'SLUG' | 'CODE'
  options?: Options
}

const EMAIL = /^[^\s@]+@[^\s@]+$/
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

const SPECS: Record<string, Spec> = {
  'users create': { usage: 'users create EMAIL', takes: 'EMAIL', help: 'creates a user; prints its id' },
  'users password': {
    usage: 'users password EMAIL',
    takes: 'EMAIL',
    help: 'sets the dashboard password, read from the terminal (hidden, twice) or the first line of stdin:\n' +
      "echo 'a long password' | npm run -s cli -- users password me@example.com\nIt signs that user out everywhere.",
  },
  'users list': { usage: 'users list', help: 'id, email, password set or not, keys, monitors, created (tab-separated)' },
  'users delete': {
    usage: 'users delete EMAIL --yes',
    takes: 'EMAIL',
    help: 'deletes the user, their keys and their personal organization with all in it (monitors, checks, channels);\n' +
      'refused while they are the last owner of another organization',
    options: { yes: { type: 'boolean' } },
  },
  'keys create': {
    usage: 'keys create EMAIL [--org SLUG] [--scope read|write] [--name NAME] [--expires-in DAYS]',
    takes: 'EMAIL',
    help: 'prints the new key alone on stdout: KEY=$(npm run -s cli -- keys create me@example.com)\n' +
      'org: the user\'s personal organization by default; scope: write by default; expires: never by default.\n' +
      'The key acts with the lower of its scope and the user\'s role in the organization.',
    options: { org: { type: 'string' }, scope: { type: 'string' }, name: { type: 'string' }, 'expires-in': { type: 'string' } },
  },
  'keys list': { usage: 'keys list EMAIL', takes: 'EMAIL', help: 'id, prefix, scope, name, created, last used, expiry; never the key' },
  'keys delete': { usage: 'keys delete KEY_ID', takes: 'KEY_ID', help: 'revokes the key at once, on every instance (KEY_ID from keys list)' },
  'orgs list': { usage: 'orgs list', help: 'id, slug, name, members, created (tab-separated)' },
  'orgs create': {
    usage: 'orgs create SLUG --owner EMAIL [--name NAME]',
    takes: 'SLUG',
    help: 'creates an organization with its first owner; prints its id (name: the slug by default)',
    options: { owner: { type: 'string' }, name: { type: 'string' } },
  },
  'orgs delete': {
    usage: 'orgs delete SLUG',
    takes: 'SLUG',
    help: 'deletes the organization with its monitors, history, channels, keys, members and audit log (not a personal one)',
  },
  'members list': { usage: 'members list --org SLUG', help: 'user id, email, role, joined (tab-separated)', options: { org: { type: 'string' } } },
  'members add': {
    usage: 'members add EMAIL --org SLUG --role ROLE',
    takes: 'EMAIL',
    help: `makes the user a member of the organization; ROLE: ${ROLES.join(', ')}`,
    options: { org: { type: 'string' }, role: { type: 'string' } },
  },
  'members role': {
    usage: 'members role EMAIL --org SLUG --role ROLE',
    takes: 'EMAIL',
    help: 'changes the member\'s role; their keys act with it from their next request. The last owner stays one.',
    options: { org: { type: 'string' }, role: { type: 'string' } },
  },
  'members remove': {
    usage: 'members remove EMAIL --org SLUG',
    takes: 'EMAIL',
    help: 'ends the membership and deletes the keys the member made there; the last owner stays',
    options: { org: { type: 'string' } },
  },
  'locations list': { usage: 'locations list', help: 'the built-in locations (checker processes): code, last seen, version, online (tab-separated)' },
  'locations remove': {
    usage: 'locations remove CODE',
    takes: 'CODE',
    help: 'removes a built-in location whose checker processes are gone (refused while it is online);\n' +
      'a checker started again with CHECKER_LOCATION=CODE makes it again. Agent locations are deleted over the API\n' +
      '(DELETE /api/v1/locations/CODE).',
  },
  migrate: { usage: 'migrate', help: 'applies the database migrations' },
  'rollups rebuild': {
    usage: 'rollups rebuild --from TIME [--to TIME]',
    help: 'recomputes the built uptime rollups (hours, then their days) from TIME to TIME (default: now) from the checks,\n' +
      'incidents and pauses, after a fix of the data; hours older than CHECK_RETENTION_DAYS are left as they are',
    options: { from: { type: 'string' }, to: { type: 'string' } },
  },
  openapi: { usage: 'openapi', help: 'prints the OpenAPI document' },
}

const COLUMN = 22
const indent = (text: string) => text.split('\n').map((line) => `${' '.repeat(COLUMN)}${line}`).join('\n')

/** Each command's usage, and its help below it (beside it when the usage is short). */
function describe (names: string[]): string {
  return names.map((name) => {
    const { usage, help } = SPECS[name]
    const line = `  ${usage}`
    return line.length < COLUMN ? line.padEnd(COLUMN) + indent(help).slice(COLUMN) : `${line}\n${indent(help)}`
  }).join('\n')
}

const DATABASE_NOTE = `The database is DATABASE_URL (PostgreSQL) or the embedded one in DATA_DIR (default ./data). While a
server runs on the embedded database, commands go to it through its admin socket (DATA_DIR/.admin/cli.sock).`

/** The whole usage, or a group's (`users`, `keys`), or one command's. */
export function usage (scope?: string): string {
  const names = Object.keys(SPECS).filter((name) => !scope || name === scope || name.startsWith(`${scope} `))
  if (names.length === 1) return `Usage: npm run -s cli -- ${SPECS[names[0]].usage}\n\n${SPECS[names[0]].help.replace(/^/gm, '  ')}\n\n${DATABASE_NOTE}`
  const head = `Usage: npm run -s cli -- ${scope ? `${scope} <command>` : '<command>'}`
  return `${head}\n\n${describe(names)}\n\nEvery command takes --help.\n${DATABASE_NOTE}`
}

export type Parsed =
  | { kind: 'help', text: string }
  | { kind: 'openapi' }
  | { kind: 'run', command: CliCommand }
  /** `users password`: the password is read (and hashed) before the command runs. */
  | { kind: 'password', email: string }

const isHelp = (arg: string | undefined) => arg === '--help' || arg === '-h' || arg === 'help'

export function parseCommand (argv: string[]): Parsed {
  const [group, action, ...rest] = argv
  if (!group) throw new UsageError('a command is required')
  if (isHelp(group)) return { kind: 'help', text: usage() }
  // Own properties only: `constructor` is no command.
  const single = Object.hasOwn(SPECS, group) ? group : undefined
  const name = single ?? `${group} ${action ?? ''}`.trim()
  const spec = Object.hasOwn(SPECS, name) ? SPECS[name] : undefined
  if (!spec) {
    if (Object.keys(SPECS).some((n) => n.startsWith(`${group} `))) {
      if (!action || isHelp(action)) return action ? { kind: 'help', text: usage(group) } : failWith(`${group} needs a command`)
    }
    throw new UsageError(`unknown command: ${name}`)
  }
  const args = single ? argv.slice(1) : rest
  if (args.some(isHelp)) return { kind: 'help', text: usage(name) }
  let values: Record<string, string | boolean | undefined>
  let positionals: string[]
  try {
    ({ values, positionals } = parseArgs({ args, allowPositionals: true, strict: true, options: spec.options ?? {} }) as {
      values: Record<string, string | boolean | undefined>, positionals: string[]
    })
  } catch (err) {
    throw new UsageError(`${name}: ${(err as Error).message.split('\n')[0]}`)
  }
  const wanted = spec.takes ? 1 : 0
  if (positionals.length > wanted) throw new UsageError(`${name}: unexpected argument ${positionals[wanted]}`)
  const [first] = positionals
  const email = () => {
    if (!first || !EMAIL.test(first)) throw new UsageError(`${name} needs an EMAIL`)
    return first
  }
  const slug = (value: unknown, what: string) => {
    if (typeof value !== 'string' || !isSlug(value)) throw new UsageError(`${name} needs ${what}: ${SLUG_RULE}`)
    return value
  }
  const org = () => slug(values.org, '--org SLUG')
  const role = (): Role => {
    const value = values.role as string | undefined
    if (!(ROLES as readonly string[]).includes(value ?? '')) throw new UsageError(`${name} needs --role, one of ${ROLES.join(', ')}`)
    return value as Role
  }
  switch (name) {
    case 'users create': return { kind: 'run', command: { name, email: email() } }
    case 'users password': return { kind: 'password', email: email() }
    case 'users list': return { kind: 'run', command: { name } }
    case 'users delete': {
      const target = email()
      if (!values.yes) throw new UsageError(`users delete deletes ${target} and all their data: add --yes to confirm`)
      return { kind: 'run', command: { name, email: target } }
    }
    case 'keys create': {
      const input: Record<string, unknown> = { name: values.name ?? `key ${new Date().toISOString().slice(0, 10)}`, scope: values.scope ?? 'write' }
      const days = values['expires-in'] as string | undefined
      if (days !== undefined) input.expires_in_days = /^\s*-?\d+\s*$/.test(days) ? Number(days) : days
      return { kind: 'run', command: { name, email: email(), input, org: values.org === undefined ? undefined : org() } }
    }
    case 'orgs list': return { kind: 'run', command: { name } }
    case 'orgs create': {
      const owner = values.owner as string | undefined
      if (!owner || !EMAIL.test(owner)) throw new UsageError('orgs create needs --owner EMAIL')
      const orgName = (values.name as string | undefined)?.trim()
      if (orgName !== undefined && (orgName.length === 0 || orgName.length > 100)) throw new UsageError('--name must be 1-100 characters and not blank')
      const created = slug(first, 'a SLUG')
      return { kind: 'run', command: { name, slug: created, owner, orgName: orgName ?? created } }
    }
    case 'orgs delete': return { kind: 'run', command: { name, org: slug(first, 'a SLUG') } }
    case 'members list': return { kind: 'run', command: { name, org: org() } }
    case 'members add':
    case 'members role': return { kind: 'run', command: { name, email: email(), org: org(), role: role() } }
    case 'members remove': return { kind: 'run', command: { name, email: email(), org: org() } }
    case 'keys list': return { kind: 'run', command: { name, email: email() } }
    case 'keys delete':
      if (!first || !UUID.test(first)) throw new UsageError('keys delete needs a KEY_ID (see keys list)')
      return { kind: 'run', command: { name, keyId: first } }
    case 'locations list': return { kind: 'run', command: { name } }
    case 'locations remove':
      if (!first || !isLocationCode(first)) throw new UsageError(`locations remove needs a CODE: ${LOCATION_CODE.rule}`)
      return { kind: 'run', command: { name, code: first } }
    case 'migrate': return { kind: 'run', command: { name } }
    case 'rollups rebuild': {
      const time = (flag: 'from' | 'to', fallback?: number) => {
        const value = values[flag] as string | undefined
        const at = value === undefined ? fallback : Date.parse(value)
        if (at === undefined || Number.isNaN(at)) throw new UsageError(`rollups rebuild needs --${flag} as an ISO time (2026-11-21T09:00:00Z)`)
        return at
      }
      const [from, to] = [time('from'), time('to', Date.now())]
      if (to <= from) throw new UsageError('rollups rebuild: --to must be after --from')
      // As config.ts reads it (default 30): the CLI sends this command before, or without, loading the configuration.
      const days = Number(process.env.CHECK_RETENTION_DAYS || 30)
      return { kind: 'run', command: { name, from, to, retentionDays: Number.isInteger(days) && days > 0 ? days : 30 } }
    }
    default: return { kind: 'openapi' }
  }
}

function failWith (message: string): never {
  throw new UsageError(message)
}
