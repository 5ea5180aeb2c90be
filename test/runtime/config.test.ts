// Configuration from the environment: defaults, parsing of every variable, one error naming every bad one, window forms.
import t from 'tap'
import { ConfigSchema, dnsServers, emailConfigured, loadConfig, oidcRoleMap, parseWindowMs } from '../../src/runtime/config.ts'

const DEFAULTS = {
  PORT: 3000,
  HOST: '127.0.0.1',
  DATA_DIR: './data',
  RATE_LIMIT_MAX: 600,
  RATE_LIMIT_WINDOW: '1 minute',
  PING_RATE_LIMIT: 60,
  MAX_MONITORS_PER_OWNER: 10_000,
  MAX_CHANNELS_PER_OWNER: 1000,
  LOG_LEVEL: 'info',
  ALLOW_PRIVATE_TARGETS: false,
  CHECKER: 'on',
  CHECKER_LOCATION: 'default',
  CHECK_CONCURRENCY: 200,
  DELIVERY_CONCURRENCY: 100,
  DELIVERY_OWNER_SHARE: 25,
  CHECK_CONFIRM_DELAY: 30,
  CHECK_RETENTION_DAYS: 30,
  AUDIT_RETENTION_DAYS: 400,
  REQUEST_TIMEOUT_MS: 30_000,
  REDIS_PREFIX: 'pingward-rl:',
  ADMIN_EMAIL: 'admin@localhost',
  PUBLIC_URL: 'http://localhost:3000',
  TELEGRAM_API_URL: 'https://api.telegram.org',
  PAGERDUTY_EVENTS_URL: 'https://events.pagerduty.com/v2/enqueue',
  NTFY_URL: 'https://ntfy.sh',
  OIDC_ROLE_CLAIM: 'groups',
  OIDC_PROVIDER_NAME: 'single sign-on',
  PASSWORD_SIGN_IN: true,
}

/** The message of the error loadConfig throws, or a failure when it does not throw. */
function configError (env: Record<string, string>): string {
  try {
    loadConfig(env)
  } catch (err) {
    return (err as Error).message
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`)
}

t.test('an empty environment gives the documented defaults, and no database URL, Redis or SMTP server', async (t) => {
  const config = loadConfig({})
  t.strictSame(config, DEFAULTS)
  t.notOk('DATABASE_URL' in config)
  t.notOk('REDIS_URL' in config)
  t.notOk('SMTP_URL' in config)
  t.notOk('SMTP_FROM' in config)
  t.equal(emailConfigured(config), false)
})

t.test('empty values count as unset, and unrelated variables are ignored', async (t) => {
  const config = loadConfig({ PORT: '', LOG_LEVEL: '', DATABASE_URL: '', PATH: '/usr/bin', HOME: '/root' })
  t.strictSame(config, DEFAULTS)
})

t.test('every variable is read and converted to its type', async (t) => {
  const env = {
    PORT: '8080',
    HOST: '0.0.0.0',
    DATABASE_URL: 'postgres://pingward:secret@db.internal:5432/pingward',
    DATA_DIR: '/var/lib/pingward',
    REDIS_URL: 'rediss://cache.internal:6380/2',
    RATE_LIMIT_MAX: '120',
    RATE_LIMIT_WINDOW: '30 seconds',
    PING_RATE_LIMIT: '10',
    MAX_MONITORS_PER_OWNER: '0',
    MAX_CHANNELS_PER_OWNER: '7',
    LOG_LEVEL: 'debug',
    ALLOW_PRIVATE_TARGETS: 'true',
    CHECKER: 'off',
    CHECKER_LOCATION: 'eu-west-2',
    CHECK_CONCURRENCY: '50',
    DELIVERY_CONCURRENCY: '20',
    DELIVERY_OWNER_SHARE: '50',
    CHECK_CONFIRM_DELAY: '10',
    CHECK_RETENTION_DAYS: '90',
    AUDIT_RETENTION_DAYS: '730',
    REQUEST_TIMEOUT_MS: '5000',
    REDIS_PREFIX: 'pingward-prod:',
    ADMIN_EMAIL: 'ops@example.com',
    PUBLIC_URL: 'https://status.example.com/pingward',
    SMTP_URL: 'smtps://alerts:secret@smtp.example.com:465',
    SMTP_FROM: 'Pingward <alerts@example.com>',
    TELEGRAM_API_URL: 'https://telegram.internal',
    PAGERDUTY_EVENTS_URL: 'https://pagerduty.internal/v2/enqueue',
    NTFY_URL: 'https://ntfy.example.com',
    TRUST_PROXY: '127.0.0.1, 10.0.0.0/8',
    CORS_ORIGINS: 'https://app.example.com,http://localhost:5173',
    METRICS_TOKEN: 'prometheus-scrape-token-0123456789',
    METRICS_PORT: '9464',
    DNS_SERVERS: '1.1.1.1, 9.9.9.9:53',
    OIDC_ISSUER_URL: 'https://keycloak.example.com/realms/acme',
    OIDC_CLIENT_ID: 'pingward',
    OIDC_CLIENT_SECRET: 'client-secret',
    OIDC_ORGANIZATION: 'acme',
    OIDC_ROLE_CLAIM: 'roles',
    OIDC_ROLE_MAP: 'pingward-admins=admin, sre team=editor',
    OIDC_PROVIDER_NAME: 'Acme SSO',
    PASSWORD_SIGN_IN: 'false',
  }
  t.same(Object.keys(env).sort(), Object.keys(ConfigSchema.properties).sort(), 'the test covers every variable of the schema')
  t.strictSame(loadConfig(env), {
    PORT: 8080,
    HOST: '0.0.0.0',
    DATABASE_URL: 'postgres://pingward:secret@db.internal:5432/pingward',
    DATA_DIR: '/var/lib/pingward',
    REDIS_URL: 'rediss://cache.internal:6380/2',
    RATE_LIMIT_MAX: 120,
    RATE_LIMIT_WINDOW: '30 seconds',
    PING_RATE_LIMIT: 10,
    MAX_MONITORS_PER_OWNER: 0,
    MAX_CHANNELS_PER_OWNER: 7,
    LOG_LEVEL: 'debug',
    ALLOW_PRIVATE_TARGETS: true,
    CHECKER: 'off',
    CHECKER_LOCATION: 'eu-west-2',
    CHECK_CONCURRENCY: 50,
    DELIVERY_CONCURRENCY: 20,
    DELIVERY_OWNER_SHARE: 50,
    CHECK_CONFIRM_DELAY: 10,
    CHECK_RETENTION_DAYS: 90,
    AUDIT_RETENTION_DAYS: 730,
    REQUEST_TIMEOUT_MS: 5000,
    REDIS_PREFIX: 'pingward-prod:',
    ADMIN_EMAIL: 'ops@example.com',
    PUBLIC_URL: 'https://status.example.com/pingward',
    SMTP_URL: 'smtps://alerts:secret@smtp.example.com:465',
    SMTP_FROM: 'Pingward <alerts@example.com>',
    TELEGRAM_API_URL: 'https://telegram.internal',
    PAGERDUTY_EVENTS_URL: 'https://pagerduty.internal/v2/enqueue',
    NTFY_URL: 'https://ntfy.example.com',
    TRUST_PROXY: '127.0.0.1, 10.0.0.0/8',
    CORS_ORIGINS: 'https://app.example.com,http://localhost:5173',
    METRICS_TOKEN: 'prometheus-scrape-token-0123456789',
    METRICS_PORT: 9464,
    DNS_SERVERS: '1.1.1.1, 9.9.9.9:53',
    OIDC_ISSUER_URL: 'https://keycloak.example.com/realms/acme',
    OIDC_CLIENT_ID: 'pingward',
    OIDC_CLIENT_SECRET: 'client-secret',
    OIDC_ORGANIZATION: 'acme',
    OIDC_ROLE_CLAIM: 'roles',
    OIDC_ROLE_MAP: 'pingward-admins=admin, sre team=editor',
    OIDC_PROVIDER_NAME: 'Acme SSO',
    PASSWORD_SIGN_IN: false,
  })
})

t.test('OpenID Connect needs its client, organization and role map; passwords off need it', async (t) => {
  const message = configError({ OIDC_ISSUER_URL: 'https://idp.example.com' })
  for (const name of ['OIDC_CLIENT_ID', 'OIDC_CLIENT_SECRET', 'OIDC_ORGANIZATION', 'OIDC_ROLE_MAP']) t.match(message, `${name}=undefined: required when OIDC_ISSUER_URL is set`)
  t.match(configError({ PASSWORD_SIGN_IN: 'false' }), 'PASSWORD_SIGN_IN=false: needs OIDC_ISSUER_URL')
  t.match(configError({ OIDC_ROLE_MAP: 'ops=superuser' }), /OIDC_ROLE_MAP="ops=superuser"/, 'only roles there are')
  t.same([...oidcRoleMap(' pingward-admins=admin,sre team = editor ')], [['pingward-admins', 'admin'], ['sre team', 'editor']])
})

t.test('DNS_SERVERS: IP addresses with an optional port, comma-separated; unset: the system\'s resolvers', async (t) => {
  t.equal(dnsServers(loadConfig({})), undefined)
  t.same(dnsServers(loadConfig({ DNS_SERVERS: ' 1.1.1.1,9.9.9.9:5353 , [2620:fe::fe]:53,2620:fe::9 ' })),
    ['1.1.1.1', '9.9.9.9:5353', '[2620:fe::fe]:53', '2620:fe::9'])
  for (const value of ['dns.google', 'dns.google:53', '1.1.1.1,,9.9.9.9', '1.1.1.1:0', '1.1.1.1:65536', '[1.1.1.1]:53', '2620:fe::fe:53x', '1.1.1']) {
    t.match(configError({ DNS_SERVERS: value }), /^Invalid configuration:\n {2}DNS_SERVERS=.*: expected IP addresses with an optional port/, value)
  }
})

t.test('CHECKER_LOCATION: a location code, 2-32 lowercase letters, digits and hyphens', async (t) => {
  t.equal(loadConfig({ CHECKER_LOCATION: 'fra-1' }).CHECKER_LOCATION, 'fra-1')
  for (const value of ['x', 'Frankfurt', 'fra_1', '-fra', 'fra-', 'a'.repeat(33)]) {
    t.match(configError({ CHECKER_LOCATION: value }), /^Invalid configuration:\n {2}CHECKER_LOCATION=/, value)
  }
})

t.test('METRICS_PORT needs METRICS_TOKEN: metrics are never served without one', async (t) => {
  t.match(configError({ METRICS_PORT: '9464' }), /^Invalid configuration:\n {2}METRICS_TOKEN=undefined: required when METRICS_PORT is set/)
  t.equal(loadConfig({ METRICS_PORT: '9464', METRICS_TOKEN: 'prometheus-scrape-token-0123456789' }).METRICS_PORT, 9464)
})

t.test('integers: surrounding spaces and the bounds', async (t) => {
  t.equal(loadConfig({ PORT: ' 8080 ' }).PORT, 8080)
  t.equal(loadConfig({ PORT: '0' }).PORT, 0, 'port 0 asks the system for a free port')
  t.equal(loadConfig({ PORT: '65535' }).PORT, 65535)
  t.equal(loadConfig({ RATE_LIMIT_MAX: '1' }).RATE_LIMIT_MAX, 1)
  for (const [name, value] of [
    ['PORT', '65536'], ['PORT', '-1'], ['PORT', '80.5'], ['PORT', '1e3'], ['PORT', 'http'],
    ['RATE_LIMIT_MAX', '0'], ['CHECK_CONCURRENCY', '10001'], ['DELIVERY_CONCURRENCY', '0'], ['DELIVERY_OWNER_SHARE', '101'], ['CHECK_CONFIRM_DELAY', '3601'], ['CHECK_RETENTION_DAYS', '0'], ['AUDIT_RETENTION_DAYS', '0'],
    ['REQUEST_TIMEOUT_MS', '99'], ['REQUEST_TIMEOUT_MS', '600001'], ['PING_RATE_LIMIT', '0'], ['PING_RATE_LIMIT', '100001'], ['MAX_MONITORS_PER_OWNER', '-1'], ['MAX_CHANNELS_PER_OWNER', '1000001'],
  ]) {
    t.match(configError({ [name]: value }), new RegExp(`^Invalid configuration:\\n  ${name}=`), `${name}=${value}`)
  }
})

t.test('booleans accept true/false, 1/0, yes/no and on/off in any case', async (t) => {
  for (const value of ['true', 'TRUE', '1', 'yes', 'Yes', 'on', ' on ']) {
    t.equal(loadConfig({ ALLOW_PRIVATE_TARGETS: value }).ALLOW_PRIVATE_TARGETS, true, value)
  }
  for (const value of ['false', 'False', '0', 'no', 'off', 'OFF']) {
    t.equal(loadConfig({ ALLOW_PRIVATE_TARGETS: value }).ALLOW_PRIVATE_TARGETS, false, value)
  }
  t.match(configError({ ALLOW_PRIVATE_TARGETS: 'maybe' }), /ALLOW_PRIVATE_TARGETS="maybe"/)
})

t.test('every log level is accepted, and only those', async (t) => {
  for (const level of ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']) {
    t.equal(loadConfig({ LOG_LEVEL: level }).LOG_LEVEL, level)
  }
  t.match(configError({ LOG_LEVEL: 'verbose' }), /LOG_LEVEL="verbose"/)
  t.match(configError({ LOG_LEVEL: 'INFO' }), /LOG_LEVEL="INFO"/, 'levels are lower case')
})

t.test('URLs must have the right scheme', async (t) => {
  t.equal(loadConfig({ DATABASE_URL: 'postgresql://localhost/x' }).DATABASE_URL, 'postgresql://localhost/x')
  t.equal(loadConfig({ REDIS_URL: 'redis://localhost' }).REDIS_URL, 'redis://localhost')
  t.match(configError({ DATABASE_URL: 'mysql://localhost/x' }), /DATABASE_URL="mysql:\/\/localhost\/x"/)
  t.match(configError({ REDIS_URL: 'localhost:6379' }), /REDIS_URL="localhost:6379"/)
  for (const name of ['PUBLIC_URL', 'TELEGRAM_API_URL', 'PAGERDUTY_EVENTS_URL', 'NTFY_URL']) {
    for (const value of ['ftp://example.com', 'example.com', 'https://', 'https:// example.com', 'https:///path']) {
      t.match(configError({ [name]: value }), new RegExp(`^Invalid configuration:\\n  ${name}=`), `${name}=${value}`)
    }
    t.equal(loadConfig({ [name]: 'http://127.0.0.1:8025' })[name as 'NTFY_URL'], 'http://127.0.0.1:8025', `${name}: a local stand-in`)
  }
  t.equal(loadConfig({ SMTP_URL: 'smtp://127.0.0.1:2525', SMTP_FROM: 'a@b' }).SMTP_URL, 'smtp://127.0.0.1:2525')
  for (const value of ['http://mail.example.com', 'mail.example.com:25', 'smtp://', 'smtps:// mail']) {
    t.match(configError({ SMTP_URL: value, SMTP_FROM: 'a@b' }), /^Invalid configuration:\n {2}SMTP_URL=/, value)
  }
})

t.test('PUBLIC_URL: this server on localhost by default, a trailing slash dropped, a path kept', async (t) => {
  t.equal(loadConfig({ PORT: '8080' }).PUBLIC_URL, 'http://localhost:8080', 'the default follows PORT')
  t.equal(loadConfig({ PUBLIC_URL: 'https://status.example.com/' }).PUBLIC_URL, 'https://status.example.com')
  t.equal(loadConfig({ PUBLIC_URL: 'https://example.com/pingward//' }).PUBLIC_URL, 'https://example.com/pingward')
  t.equal(loadConfig({ TELEGRAM_API_URL: 'https://tg.example.com/', NTFY_URL: 'https://ntfy.example.com/' }).NTFY_URL, 'https://ntfy.example.com')
  t.equal(loadConfig({ TELEGRAM_API_URL: 'https://tg.example.com/' }).TELEGRAM_API_URL, 'https://tg.example.com')
  t.equal(loadConfig({ PAGERDUTY_EVENTS_URL: 'https://pd.example.com/v2/enqueue/' }).PAGERDUTY_EVENTS_URL,
    'https://pd.example.com/v2/enqueue/', 'an endpoint is used as written')
})

t.test('SMTP: the server needs a sender; a sender is an address, bare or with a name', async (t) => {
  t.match(configError({ SMTP_URL: 'smtp://mail.example.com' }), /^Invalid configuration:\n {2}SMTP_FROM=undefined: required when SMTP_URL is set/)
  for (const from of ['alerts@example.com', 'Pingward <alerts@example.com>', '"Ops, Pingward" <ops@example.com>', '<ops@example.com>']) {
    const config = loadConfig({ SMTP_URL: 'smtp://mail.example.com', SMTP_FROM: from })
    t.equal(config.SMTP_FROM, from)
    t.equal(emailConfigured(config), true)
  }
  for (const from of ['alerts', 'Pingward', 'a@b@c', 'Pingward <alerts>', 'alerts@example.com <x@y>', 'a b@example.com']) {
    t.match(configError({ SMTP_URL: 'smtp://mail.example.com', SMTP_FROM: from }), /^Invalid configuration:\n {2}SMTP_FROM=/, from)
  }
  t.equal(loadConfig({ SMTP_FROM: 'alerts@example.com' }).SMTP_FROM, 'alerts@example.com', 'a sender alone is kept, harmless')
})

t.test('one error lists every bad variable, one line each, and names no good one', async (t) => {
  const bad = {
    PORT: 'abc',
    DATABASE_URL: 'mysql://db/x',
    REDIS_URL: 'memcached://cache',
    RATE_LIMIT_MAX: '0',
    RATE_LIMIT_WINDOW: 'soon',
    LOG_LEVEL: 'loud',
    ALLOW_PRIVATE_TARGETS: 'perhaps',
    CHECKER: 'sometimes',
    CHECK_CONCURRENCY: '-3',
    CHECK_CONFIRM_DELAY: '1.5',
    CHECK_RETENTION_DAYS: '99999',
    ADMIN_EMAIL: 'x',
    PUBLIC_URL: 'status.example.com',
    SMTP_URL: 'mail.example.com',
    SMTP_FROM: 'nobody',
    TELEGRAM_API_URL: 'telegram',
    PAGERDUTY_EVENTS_URL: '/v2/enqueue',
    NTFY_URL: 'ntfy.sh',
  }
  const message = configError({ ...bad, HOST: 'example.internal', DATA_DIR: '/srv/data' })
  const lines = message.split('\n')
  t.equal(lines[0], 'Invalid configuration:')
  const named = lines.slice(1).map((line) => /^ {2}([A-Z_]+)=/.exec(line)?.[1])
  t.same([...new Set(named)].sort(), Object.keys(bad).sort(), 'each bad variable is named, and only those')
  t.equal(named.length, Object.keys(bad).length, 'one line per bad variable')
  t.match(message, 'PORT="abc"')
  t.match(message, 'RATE_LIMIT_WINDOW="soon": expected e.g. "1 minute"')
})

t.test('RATE_LIMIT_WINDOW: a number with or without a unit, singular or plural', async (t) => {
  const forms: Array<[string, number]> = [
    ['60000', 60_000],
    ['500ms', 500],
    ['500 ms', 500],
    ['1 millisecond', 1],
    ['250 milliseconds', 250],
    ['30s', 30_000],
    ['1 second', 1000],
    ['30 seconds', 30_000],
    ['5m', 300_000],
    ['1 minute', 60_000],
    ['15 minutes', 900_000],
    ['1h', 3_600_000],
    ['1 hour', 3_600_000],
    ['2 Hours', 7_200_000],
    ['  10 seconds  ', 10_000],
  ]
  for (const [text, ms] of forms) t.equal(parseWindowMs(text), ms, JSON.stringify(text))
  t.equal(loadConfig({ RATE_LIMIT_WINDOW: '30s' }).RATE_LIMIT_WINDOW, '30s', 'the config keeps the text; the app parses it')
  for (const text of ['', 'minute', '0', '0 minutes', '-5 seconds', '1.5 minutes', '1 day', '1 fortnight', '10 s s', 'ms']) {
    t.throws(() => parseWindowMs(text), { message: /^Invalid configuration:\n {2}RATE_LIMIT_WINDOW=/ }, JSON.stringify(text))
  }
  t.match(configError({ RATE_LIMIT_WINDOW: '1 day' }), /^Invalid configuration:\n {2}RATE_LIMIT_WINDOW="1 day"/)
})
