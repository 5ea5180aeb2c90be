// The process configuration: read from the environment once, validated, then passed down.
import { parse as parseDuration } from '@lukeed/ms'
import { Type, type Static, type TSchema } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { isIPv4, isIPv6 } from 'node:net'
import { ConfigError, DEFAULT_DATA_DIR } from './config-basics.ts'
import { DEFAULT_LOCATION, LOCATION_CODE } from '../domain/locations.ts'
import { ROLES, type Role } from '../domain/vocabulary.ts'

const Int = (min: number, max: number, dflt: number, description: string) =>
  Type.Integer({ minimum: min, maximum: max, default: dflt, description })

// An http(s) URL with a host; a path is allowed (a dashboard behind a prefix), a trailing slash is dropped.
const HttpUrl = (description: string, dflt?: string) =>
  Type.String({ pattern: '^https?://[^\\s/?#]+', description, ...(dflt === undefined ? {} : { default: dflt }) })

// One `claim value=role` of OIDC_ROLE_MAP.
const ROLE_PAIR = `[^=,\\s][^=,]*=(${ROLES.join('|')})`

export const ConfigSchema = Type.Object({
  PORT: Int(0, 65535, 3000, 'TCP port of the HTTP server'),
  HOST: Type.String({ minLength: 1, default: '127.0.0.1', description: 'Address the HTTP server binds to' }),
  DATABASE_URL: Type.Optional(Type.String({ pattern: '^postgres(ql)?://', description: 'PostgreSQL URL; embedded PGlite when unset' })),
  DATA_DIR: Type.String({ minLength: 1, default: DEFAULT_DATA_DIR, description: 'Directory of the embedded database' }),
  REDIS_URL: Type.Optional(Type.String({ pattern: '^rediss?://', description: 'Redis URL for shared rate-limit and sign-in counters and status page snapshots' })),
  REDIS_PREFIX: Type.String({ minLength: 1, maxLength: 100, default: 'pingward-rl:', description: 'Prefix of Pingward\'s keys in Redis, so deployments sharing one Redis keep apart' }),
  RATE_LIMIT_MAX: Int(1, 1_000_000, 600, 'Requests per window per API key (or per address without a valid key)'),
  RATE_LIMIT_WINDOW: Type.String({ minLength: 1, default: '1 minute', description: 'Rate-limit window, e.g. "1 minute", "30 seconds", "60000" (ms)' }),
  PING_RATE_LIMIT: Int(1, 100_000, 60, 'Pings per minute per heartbeat monitor (per ping URL token); more are refused with 429'),
  MAX_MONITORS_PER_OWNER: Int(0, 10_000_000, 10_000, 'Monitors one organization may have (deleted ones do not count); a create past it is refused with 409. 0: no limit'),
  MAX_CHANNELS_PER_OWNER: Int(0, 1_000_000, 1000, 'Notification channels one organization may have; a create past it is refused with 409. 0: no limit'),
  LOG_LEVEL: Type.Union(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)), { default: 'info' }),
  ALLOW_PRIVATE_TARGETS: Type.Boolean({ default: false, description: 'Allow monitors of loopback, private, link-local and metadata addresses' }),
  DNS_SERVERS: Type.Optional(Type.String({
    minLength: 1,
    description: 'Resolvers that dns monitors ask, comma-separated IP addresses with an optional port ("1.1.1.1, 9.9.9.9:53, [2620:fe::fe]:53"); unset: the system\'s resolvers',
  })),
  CHECKER: Type.Union([Type.Literal('on'), Type.Literal('off')], { default: 'on', description: 'Run a checker inside the API process' }),
  CHECKER_LOCATION: Type.String({
    pattern: LOCATION_CODE.pattern,
    minLength: LOCATION_CODE.minLength,
    maxLength: LOCATION_CODE.maxLength,
    default: DEFAULT_LOCATION,
    description: `Code of the built-in location this process's checker serves (${LOCATION_CODE.rule}); it is listed by GET /locations for every organization`,
  }),
  CHECK_CONCURRENCY: Int(1, 10_000, 200, 'Probes in flight at once per checker process'),
  DELIVERY_CONCURRENCY: Int(1, 10_000, 100, 'Notification channels being sent to at once per checker process (one message at a time each)'),
  DELIVERY_OWNER_SHARE: Int(1, 100, 25, 'Percent of DELIVERY_CONCURRENCY that one owner\'s channels may take at once (at least one channel), so that one owner\'s hanging receivers cannot delay everyone\'s alerts'),
  CHECK_CONFIRM_DELAY: Int(1, 3600, 30, 'Seconds before re-checking a failing monitor whose failures are below its threshold'),
  CHECK_RETENTION_DAYS: Int(1, 3650, 30, 'Days of check history kept (each monitor always keeps its newest 100)'),
  AUDIT_RETENTION_DAYS: Int(1, 36500, 400, 'Days the audit log keeps who changed what'),
  REQUEST_TIMEOUT_MS: Int(100, 600_000, 30_000, 'Milliseconds a client has to send a whole request (headers and body); slower ones get 408 and are cut off'),
  ADMIN_EMAIL: Type.String({ minLength: 3, default: 'admin@localhost', description: 'Email of the first user created on an empty database' }),
  PUBLIC_URL: HttpUrl('The dashboard\'s address as people reach it, for the links in notifications; http://localhost:PORT when unset'),
  SMTP_URL: Type.Optional(Type.String({
    pattern: '^smtps?://[^\\s/?#]+',
    description: 'SMTP server of email channels (smtps:// for TLS from the start); email channels are refused when unset. ' +
      'A user and password for a server off this machine are sent only after STARTTLS, unless the URL ends in ?requireTLS=false',
  })),
  SMTP_FROM: Type.Optional(Type.String({ pattern: '^[^@\\s]+@[^@\\s]+$|^[^<>@]*<[^@\\s<>]+@[^@\\s<>]+>$', description: 'Sender of notification mails, "alerts@example.com" or "Pingward <alerts@example.com>"; required with SMTP_URL' })),
  TELEGRAM_API_URL: HttpUrl('Telegram Bot API server', 'https://api.telegram.org'),
  PAGERDUTY_EVENTS_URL: HttpUrl('PagerDuty Events API v2 endpoint', 'https://events.pagerduty.com/v2/enqueue'),
  NTFY_URL: HttpUrl('ntfy server of the ntfy channels that name none', 'https://ntfy.sh'),
  TRUST_PROXY: Type.Optional(Type.String({
    pattern: '^\\s*(\\d{1,2}|[0-9A-Fa-f:.]+(/\\d{1,3})?(\\s*,\\s*[0-9A-Fa-f:.]+(/\\d{1,3})?)*)\\s*$',
    description: 'Reverse proxies whose X-Forwarded-* headers are believed: a hop count ("1") or addresses and CIDR ranges ("127.0.0.1,10.0.0.0/8"); unset: forwarded headers are ignored',
  })),
  CORS_ORIGINS: Type.Optional(Type.String({
    pattern: '^\\s*https?://[^\\s,/]+(\\s*,\\s*https?://[^\\s,/]+)*\\s*$',
    description: 'Browser origins allowed to call the API from another site, comma-separated ("https://app.example.com"); unset: none (CORS off)',
  })),
  OIDC_ISSUER_URL: Type.Optional(Type.String({ pattern: '^https?://[^\\s/?#]+', description: 'OpenID Connect provider of dashboard sign-in (its discovery document is at /.well-known/openid-configuration); unset: passwords only' })),
  OIDC_CLIENT_ID: Type.Optional(Type.String({ minLength: 1, description: 'Pingward\'s client id at the OpenID provider; required with OIDC_ISSUER_URL' })),
  OIDC_CLIENT_SECRET: Type.Optional(Type.String({ minLength: 1, description: 'Pingward\'s client secret at the OpenID provider; required with OIDC_ISSUER_URL' })),
  OIDC_ORGANIZATION: Type.Optional(Type.String({ minLength: 1, description: 'Slug of the organization whose roles OIDC_ROLE_MAP gives; required with OIDC_ISSUER_URL' })),
  OIDC_ROLE_CLAIM: Type.String({ minLength: 1, default: 'groups', description: 'The ID token claim (a string or a list) whose values OIDC_ROLE_MAP maps to roles' }),
  OIDC_ROLE_MAP: Type.Optional(Type.String({
    pattern: `^\\s*${ROLE_PAIR}(\\s*,\\s*${ROLE_PAIR})*\\s*$`,
    description: 'Claim values and the role each gives, "pingward-admins=admin, oncall=responder"; the highest wins, none: no sign-in. Required with OIDC_ISSUER_URL',
  })),
  OIDC_PROVIDER_NAME: Type.String({ minLength: 1, maxLength: 60, default: 'single sign-on', description: 'How the sign-in button names the provider ("Sign in with ...")' }),
  PASSWORD_SIGN_IN: Type.Boolean({ default: true, description: 'Whether the dashboard takes passwords; false needs OIDC_ISSUER_URL' }),
  METRICS_TOKEN: Type.Optional(Type.String({ minLength: 16, description: 'Bearer token of GET /metrics (Prometheus); unset: /metrics is off (404)' })),
  METRICS_PORT: Type.Optional(Type.Integer({ minimum: 0, maximum: 65535, description: 'Port of the worker\'s own GET /metrics (`npm run worker` only, on HOST; requires METRICS_TOKEN); unset: the worker serves none' })),
})

export type Config = Static<typeof ConfigSchema>

export { ConfigError }

// Value.Convert takes "80.5" for 80 and "-0" for false, and knows no yes/no/on/off: a value reaches it only in a
// spelling it reads as meant, any other is kept as written for Value.Errors to report.
const BOOLEAN_WORDS: Record<string, string> = { true: 'true', 1: 'true', yes: 'true', on: 'true', false: 'false', 0: 'false', no: 'false', off: 'false' }

function spellingForConvert (schema: TSchema, value: string): string | undefined {
  const text = value.trim()
  if (schema.type === 'integer') return /^-?\d+$/.test(text) ? text : undefined
  if (schema.type === 'boolean') return BOOLEAN_WORDS[text.toLowerCase()]
  return value
}

/** Parses and validates the environment; throws one Error listing every bad variable. */
export function loadConfig (env: Record<string, string | undefined> = process.env): Config {
  const convertible: Record<string, string> = {}
  const asWritten: Record<string, string> = {}
  for (const [key, schema] of Object.entries(ConfigSchema.properties)) {
    const value = env[key]
    if (value === undefined || value === '') continue // empty counts as unset
    const spelling = spellingForConvert(schema, value)
    if (spelling === undefined) asWritten[key] = value
    else convertible[key] = spelling
  }
  const withDefaults = Value.Default(ConfigSchema, { ...Value.Convert(ConfigSchema, convertible) as object, ...asWritten }) as Config
  if ((withDefaults as Partial<Config>).PUBLIC_URL === undefined) withDefaults.PUBLIC_URL = `http://localhost:${withDefaults.PORT}`
  const lines = [...Value.Errors(ConfigSchema, withDefaults)]
    .map((e) => `  ${e.path.slice(1) || '(root)'}=${JSON.stringify(e.value)}: ${e.message}`)
  // A mail needs a sender the server accepts; no default would be one, so a server without a sender is refused.
  if (withDefaults.SMTP_URL !== undefined && withDefaults.SMTP_FROM === undefined) {
    lines.push('  SMTP_FROM=undefined: required when SMTP_URL is set (e.g. "Pingward <alerts@example.com>")')
  }
  if (withDefaults.OIDC_ISSUER_URL !== undefined) {
    for (const key of ['OIDC_CLIENT_ID', 'OIDC_CLIENT_SECRET', 'OIDC_ORGANIZATION', 'OIDC_ROLE_MAP'] as const) {
      if (withDefaults[key] === undefined) lines.push(`  ${key}=undefined: required when OIDC_ISSUER_URL is set`)
    }
  } else if (!withDefaults.PASSWORD_SIGN_IN) {
    lines.push('  PASSWORD_SIGN_IN=false: needs OIDC_ISSUER_URL, or nobody could sign in to the dashboard')
  }
  if (withDefaults.METRICS_PORT !== undefined && withDefaults.METRICS_TOKEN === undefined) {
    lines.push('  METRICS_TOKEN=undefined: required when METRICS_PORT is set (the metrics are never served without one)')
  }
  if (withDefaults.DNS_SERVERS !== undefined && dnsServerList(withDefaults.DNS_SERVERS) === undefined) {
    lines.push(`  DNS_SERVERS=${JSON.stringify(withDefaults.DNS_SERVERS)}: expected IP addresses with an optional port, comma-separated ("1.1.1.1, 9.9.9.9:53, [2620:fe::fe]:53")`)
  }
  // The window's form is checked here too, so that one error lists it with every other bad variable.
  try {
    parseWindowMs(withDefaults.RATE_LIMIT_WINDOW)
  } catch (err) {
    lines.push(...(err as Error).message.split('\n').slice(1))
  }
  if (lines.length > 0) throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`)
  // Paths are appended to these (`${PUBLIC_URL}/monitors/...`), so a trailing slash would double.
  for (const key of ['PUBLIC_URL', 'TELEGRAM_API_URL', 'NTFY_URL'] as const) withDefaults[key] = withDefaults[key].replace(/\/+$/, '')
  return withDefaults
}

/** OIDC_ROLE_MAP as claim value -> role. */
export function oidcRoleMap (text: string): Map<string, Role> {
  return new Map(text.split(',').map((pair) => {
    const at = pair.lastIndexOf('=')
    return [pair.slice(0, at).trim(), pair.slice(at + 1).trim() as Role]
  }))
}

/** Whether email channels can be used: an SMTP server is configured (SMTP_FROM comes with it). */
export function emailConfigured (config: Pick<Config, 'SMTP_URL'>): boolean {
  return config.SMTP_URL !== undefined
}

/** The resolvers of dns checks as c-ares takes them, from a valid configuration; undefined: the system's. */
export function dnsServers (config: Pick<Config, 'DNS_SERVERS'>): string[] | undefined {
  return config.DNS_SERVERS === undefined ? undefined : dnsServerList(config.DNS_SERVERS)
}

// Addresses only: c-ares takes no names (a resolver's name would need a resolver to be found).
const DNS_SERVER_FORMS: Array<[RegExp, (address: string) => boolean]> = [
  [/^([^:\]]+)(?::(\d{1,5}))?$/, isIPv4], // 1.1.1.1, 1.1.1.1:53
  [/^\[([^\]]+)\](?::(\d{1,5}))?$/, isIPv6], // [2620:fe::fe], [2620:fe::fe]:53
  [/^([0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*)()$/, isIPv6], // 2620:fe::fe (no port without brackets)
]

function dnsServerList (text: string): string[] | undefined {
  const entries = text.split(',').map((entry) => entry.trim())
  const valid = entries.every((entry) => DNS_SERVER_FORMS.some(([form, isAddress]) => {
    const match = form.exec(entry)
    if (!match || !isAddress(match[1])) return false
    return !match[2] || (Number(match[2]) >= 1 && Number(match[2]) <= 65535)
  }))
  return valid ? entries : undefined
}

// @lukeed/ms also reads fractions, signs, days and run-together units; a window is whole ms, seconds, minutes or hours.
const WINDOW = /^\d+\s*(ms|milliseconds?|s|seconds?|m|minutes?|h|hours?)?$/i

/** "1 minute", "30 seconds", "500ms" or a bare number of milliseconds. */
export function parseWindowMs (text: string): number {
  const trimmed = text.trim()
  const ms = WINDOW.test(trimmed) ? parseDuration(trimmed.replace(/\s+/g, '')) : undefined
  if (!ms) {
    throw new ConfigError(`Invalid configuration:\n  RATE_LIMIT_WINDOW=${JSON.stringify(text)}: expected e.g. "1 minute", "30 seconds" or milliseconds`)
  }
  return ms
}
