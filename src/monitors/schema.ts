// Monitor schemas: the record, the list item, the create and update bodies (named components, so SDKs name their types), the list's query.
import { Type, type Static, type TSchema } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import {
  DNS_RECORD_TYPES, HTTP_METHODS, KEYWORD_MODES, MONITOR_STATUSES, MONITOR_TYPES,
  type DnsRecordType, type HttpMethod, type KeywordMode, type MonitorType,
} from '../domain/vocabulary.ts'
import { MONITOR_DEFAULTS, MONITOR_TYPE_FIELDS, MONITOR_URLS } from '../domain/monitor-types.ts'
import { MAX_REQUEST_BODY_BYTES } from '../domain/monitor-request.ts'
import { LOCATION_STATE_STATUSES, MAX_MONITOR_LOCATIONS } from '../domain/locations.ts'
import { LABEL_KEY_PATTERN, LABEL_RULES, LABEL_SELECTOR_PATTERN } from '../domain/labels.ts'
import { Envelope, LocationCode, Nullable, StringEnum, Timestamp, Uuid } from '../schemas/common.ts'

// The writable fields, without defaults: create adds them, update must not.
const writable = {
  name: Type.String({
    minLength: 1,
    maxLength: 255,
    pattern: '\\S',
    'x-error-message': 'must be 1-255 characters and not blank',
    description: 'Display name, 1-255 characters (surrounding spaces are trimmed)',
    examples: ['Homepage'],
  }),
  url: Type.String({
    minLength: 1,
    maxLength: 2048,
    format: 'uri',
    pattern: '^[hH][tT][tT][pP][sS]?://',
    'x-error-message': 'must be an absolute http or https URL of at most 2048 characters',
    description: 'Absolute http(s) URL that is checked. Private, loopback, link-local and metadata addresses are refused unless the operator allows private targets',
    examples: ['https://example.com/health'],
  }),
  monitor_type: StringEnum(MONITOR_TYPES, {
    description: 'Kind of check: `site` an HTTP(S) request, `tcp` a connection opened, `dns` a question to the resolver; ' +
      'a `heartbeat` is not checked but pinged at its `ping_url`',
  }),
  method: StringEnum(HTTP_METHODS, { description: 'HTTP method of the check' }),
  expected_status: Type.Integer({ minimum: 100, maximum: 599, description: 'HTTP status that counts as up' }),
  interval_minutes: Type.Integer({ minimum: 1, maximum: 1440, description: 'Minutes between checks' }),
  is_active: Type.Boolean({ description: 'False pauses checking' }),
  timeout_seconds: Type.Integer({ minimum: 1, maximum: 60, description: 'A check that takes longer fails' }),
  failure_threshold: Type.Integer({ minimum: 1, maximum: 10, description: 'Failed checks in a row that open an incident' }),
  recovery_threshold: Type.Integer({ minimum: 1, maximum: 10, description: 'Successful checks in a row that resolve it' }),
  keyword: Nullable(Type.String({
    minLength: 1,
    maxLength: 1024,
    description: 'Text that the first 1 MiB of the response body must contain (with `keyword_mode` `not_contains`: must not), ' +
      'case-sensitive; null: the body is not looked at',
    examples: ['Welcome'],
  })),
  keyword_mode: StringEnum(KEYWORD_MODES, { description: 'How `keyword` is matched: `contains` (the check fails without it) or `not_contains` (fails with it)' }),
  degraded_after_ms: Nullable(Type.Integer({
    minimum: 1,
    maximum: 60_000,
    description: 'A check that passes but whose response took longer than this many milliseconds is `degraded` (the monitor\'s status; ' +
      'the check still counts as up); null: never degraded',
    examples: [2000],
  })),
  request_headers: Type.Record(
    Type.String({ pattern: '^[!#$%&\'*+.^_`|~0-9A-Za-z-]{1,100}$' }),
    Type.String({ maxLength: 8192, pattern: '^[\t\x20-\x7e\x80-\uffff]*$', 'x-error-message': 'must be a header value of at most 8192 characters, without line breaks' }),
    {
      maxProperties: 32,
      additionalProperties: false,
      description: 'Headers sent with each check, by name (at most 32). The values of secret headers (any name with `auth`, `cookie`, ' +
        '`session`, `credential`, `pass`, `sig`, `token`, `key` or `secret` in it, and those of `secret_headers`) are write-only: ' +
        'responses mask them, and a masked value sent back keeps the stored one, but not with a url of another origin (scheme, host, ' +
        'port): secrets are given again for it. A redirect to another origin drops them. `host`, `content-length`, `connection`, ' +
        '`transfer-encoding` and other hop-by-hop headers cannot be set',
      examples: [{ authorization: 'Bearer 3f9c2a7b1e5d4c8a', accept: 'application/json' }],
    }),
  secret_headers: Type.Array(Type.String({ maxLength: 100, pattern: '^[!#$%&\'*+.^_`|~0-9A-Za-z-]{1,100}$' }), {
    maxItems: 32,
    uniqueItems: true,
    description: 'Names of further `request_headers` whose values are secret, in any case (kept in lower case); each must be one of ' +
      'them. A header stops being secret only when its value is given again',
    examples: [['x-tenant']],
  }),
  request_body: Nullable(Type.String({
    maxLength: MAX_REQUEST_BODY_BYTES,
    description: 'Body sent with each check (not with GET or HEAD); null: none',
    examples: ['{"ping":true}'],
  })),
  dns_record_type: StringEnum(DNS_RECORD_TYPES, { description: 'The record type a dns monitor asks for' }),
  dns_expected: Nullable(Type.Array(Type.String({ minLength: 1, maxLength: 255 }), {
    minItems: 1,
    maxItems: 20,
    uniqueItems: true,
    description: 'Values that the answer must all contain (addresses, names; an MX answer\'s exchange host, a TXT record\'s text); ' +
      'null: any answer is up',
    examples: [['192.0.2.10']],
  })),
  grace_minutes: Type.Integer({
    minimum: 1,
    maximum: 1440,
    description: 'Minutes a heartbeat may be late: it goes down when no ping came within `interval_minutes` plus these',
  }),
  labels: Type.Record(Type.String({ pattern: LABEL_KEY_PATTERN }), Type.String({ maxLength: LABEL_RULES.maxValueLength }), {
    maxProperties: LABEL_RULES.maxLabels,
    additionalProperties: false,
    description: `Labels to find and group monitors by: at most ${LABEL_RULES.maxLabels} \`key: value\` strings (keys 1-63 of \`a-z 0-9 _ . - /\`, ` +
      `values 0-${LABEL_RULES.maxValueLength} characters); \`GET /monitors?label=key:value\`, maintenance windows and status pages select by them`,
    examples: [{ env: 'production', team: 'payments' }],
  }),
  depends_on: Type.Array(Uuid('Id of another monitor of the organization'), {
    maxItems: 50,
    uniqueItems: true,
    description: 'Monitors this one depends on (a router, a database): while one of them is down, an incident of this one is kept but ' +
      'told to no one (`suppressed_by`), and so is its resolution. No cycles',
  }),
  locations: Type.Array(LocationCode(), {
    maxItems: MAX_MONITOR_LOCATIONS,
    uniqueItems: true,
    description: 'Codes of the built-in locations (`GET /locations`) that check the monitor, each once per interval in the same ' +
      `time slot, at most ${MAX_MONITOR_LOCATIONS}; \`[]\`: any one checker, as \`failure_threshold\` and \`recovery_threshold\` say. ` +
      'With locations, the status follows their latest checks (`location_states`): `down` when `location_quorum` of them fail (an ' +
      'incident), `degraded` when fewer do. A location silent for two intervals and 30 s stops counting; with fewer counting than the ' +
      'quorum the status stays as it was. Agent locations cannot be listed yet. Not for a heartbeat (it is pinged)',
    examples: [['default', 'eu-west']],
  }),
  location_quorum: Nullable(Type.Integer({
    minimum: 1,
    maximum: MAX_MONITOR_LOCATIONS,
    description: 'How many of `locations` must see the monitor failing for it to be `down` (fewer failing: `degraded`), at most their ' +
      'number; null: a majority of them',
    examples: [2],
  })),
  notification_channel_ids: Type.Array(Uuid('Id of one of the caller\'s notification channels'), {
    maxItems: 100,
    uniqueItems: true,
    description: 'The notification channels told of this monitor\'s incidents, besides those with `all_monitors`: each one of the caller\'s',
  }),
}

const withDefault = <T extends object>(schema: T, value: unknown) => ({ ...schema, default: value })

/** What a probe of a monitor asks, as an agent's assignment carries it (src/locations/schema.ts). */
export const PROBE_FIELDS = {
  method: writable.method,
  expected_status: writable.expected_status,
  timeout_seconds: writable.timeout_seconds,
  keyword: writable.keyword,
  keyword_mode: writable.keyword_mode,
  degraded_after_ms: writable.degraded_after_ms,
  request_headers: { ...writable.request_headers, description: 'Headers sent with each check, by name, secret values unmasked: only the agents of the monitor\'s locations get them' },
  secret_headers: writable.secret_headers,
  request_body: writable.request_body,
  dns_record_type: Nullable(writable.dns_record_type),
  dns_expected: writable.dns_expected,
}

// Each kind's url: its own pattern and sentence (src/domain/monitor-types.ts).
const urlOf = (type: Exclude<MonitorType, 'heartbeat'>, description: string, example: string) => Type.String({
  minLength: 1,
  maxLength: 2048,
  format: 'uri',
  pattern: MONITOR_URLS[type].pattern,
  'x-error-message': `must be ${MONITOR_URLS[type].rule}`,
  description,
  examples: [example],
})
const URLS = {
  site: writable.url,
  tcp: urlOf('tcp', 'The host and port a connection is opened to. Private, loopback, link-local and metadata addresses are refused unless the operator allows private targets', 'tcp://db.example.com:5432'),
  dns: urlOf('dns', 'The name the resolver is asked about; an answer that points into private space (a private address, or a name that is private or has a private address) fails the check unless the operator allows private targets', 'dns://example.com'),
}

// A new monitor's fields with their defaults, by name: each kind's variant takes the common ones and its own.
const optional = {
  interval_minutes: Type.Optional(withDefault(writable.interval_minutes, MONITOR_DEFAULTS.interval_minutes)),
  is_active: Type.Optional(withDefault(writable.is_active, MONITOR_DEFAULTS.is_active)),
  failure_threshold: Type.Optional(withDefault(writable.failure_threshold, MONITOR_DEFAULTS.failure_threshold)),
  recovery_threshold: Type.Optional(withDefault(writable.recovery_threshold, MONITOR_DEFAULTS.recovery_threshold)),
  notification_channel_ids: Type.Optional(withDefault(writable.notification_channel_ids, [])),
  labels: Type.Optional(withDefault(writable.labels, MONITOR_DEFAULTS.labels)),
  depends_on: Type.Optional(withDefault(writable.depends_on, MONITOR_DEFAULTS.depends_on)),
  method: Type.Optional(withDefault(writable.method, MONITOR_DEFAULTS.method)),
  expected_status: Type.Optional(withDefault(writable.expected_status, MONITOR_DEFAULTS.expected_status)),
  timeout_seconds: Type.Optional(withDefault(writable.timeout_seconds, MONITOR_DEFAULTS.timeout_seconds)),
  keyword: Type.Optional(withDefault(writable.keyword, MONITOR_DEFAULTS.keyword)),
  keyword_mode: Type.Optional(withDefault(writable.keyword_mode, MONITOR_DEFAULTS.keyword_mode)),
  degraded_after_ms: Type.Optional(withDefault(writable.degraded_after_ms, MONITOR_DEFAULTS.degraded_after_ms)),
  request_headers: Type.Optional(withDefault(writable.request_headers, MONITOR_DEFAULTS.request_headers)),
  secret_headers: Type.Optional(withDefault(writable.secret_headers, MONITOR_DEFAULTS.secret_headers)),
  request_body: Type.Optional(withDefault(writable.request_body, MONITOR_DEFAULTS.request_body)),
  dns_record_type: Type.Optional(withDefault(writable.dns_record_type, MONITOR_DEFAULTS.dns_record_type)),
  dns_expected: Type.Optional(withDefault(writable.dns_expected, MONITOR_DEFAULTS.dns_expected)),
  grace_minutes: Type.Optional(withDefault(writable.grace_minutes, MONITOR_DEFAULTS.grace_minutes)),
  locations: Type.Optional(withDefault(writable.locations, MONITOR_DEFAULTS.locations)),
  location_quorum: Type.Optional(withDefault(writable.location_quorum, MONITOR_DEFAULTS.location_quorum)),
}

const TITLES = { site: 'CreateSiteMonitor', tcp: 'CreateTcpMonitor', dns: 'CreateDnsMonitor', heartbeat: 'CreateHeartbeatMonitor' } as const

// One variant per kind. `site`'s tag may be left out: validation sets it (the body's default).
function createVariant<K extends MonitorType> (type: K) {
  const own = MONITOR_TYPE_FIELDS[type] as readonly string[]
  const fields: Record<string, TSchema> = {}
  for (const field of own) fields[field] = field === 'url' ? URLS[type as keyof typeof URLS] : optional[field as keyof typeof optional]
  const tag = Type.Literal(type, { description: 'Kind of check' })
  return Type.Object({
    name: writable.name,
    monitor_type: type === MONITOR_DEFAULTS.monitor_type ? Type.Optional(withDefault(tag, type)) : tag,
    interval_minutes: optional.interval_minutes,
    is_active: optional.is_active,
    failure_threshold: optional.failure_threshold,
    recovery_threshold: optional.recovery_threshold,
    ...fields,
    labels: optional.labels,
    depends_on: optional.depends_on,
    notification_channel_ids: optional.notification_channel_ids,
  }, { additionalProperties: false, title: TITLES[type] })
}

const CREATE_VARIANTS = MONITOR_TYPES.map(createVariant)

// The static types of the variants, written out: TypeBox cannot derive them from the tables above.
type Common = {
  name: string
  interval_minutes?: number
  is_active?: boolean
  failure_threshold?: number
  recovery_threshold?: number
  labels?: Record<string, string>
  depends_on?: string[]
  notification_channel_ids?: string[]
}
type Located = { locations?: string[], location_quorum?: number | null }
type Site = Common & Located & {
  monitor_type?: 'site',
  url: string,
  method?: HttpMethod,
  expected_status?: number,
  timeout_seconds?: number,
  keyword?: string | null,
  keyword_mode?: KeywordMode,
  degraded_after_ms?: number | null,
  request_headers?: Record<string, string>,
  secret_headers?: string[],
  request_body?: string | null
}
type Tcp = Common & Located & { monitor_type: 'tcp', url: string, timeout_seconds?: number }
type Dns = Common & Located & { monitor_type: 'dns', url: string, timeout_seconds?: number, dns_record_type?: DnsRecordType, dns_expected?: string[] | null }
type Heartbeat = Common & { monitor_type: 'heartbeat', grace_minutes?: number }

/** A new monitor: one object per kind, told apart by `monitor_type`, so that another kind's field is refused by name. */
export const CreateMonitorSchema = Type.Unsafe<Site | Tcp | Dns | Heartbeat>({
  type: 'object',
  properties: { monitor_type: withDefault(writable.monitor_type, MONITOR_DEFAULTS.monitor_type) },
  required: ['monitor_type'],
  discriminator: { propertyName: 'monitor_type' },
  oneOf: CREATE_VARIANTS,
  $id: 'CreateMonitorRequest',
  title: 'CreateMonitorRequest',
  description: 'A new monitor: `name` and, but for a heartbeat, `url` are required; every other field has a default. ' +
    '`monitor_type` (default `site`) decides which fields there are',
  examples: [{ name: 'Homepage', url: 'https://example.com', monitor_type: 'site', method: 'GET', expected_status: 200, interval_minutes: 5 }],
})

export const UpdateMonitorSchema = Type.Partial(Type.Object({
  ...writable,
  url: Type.String({
    ...writable.url,
    pattern: '^([hH][tT][tT][pP][sS]?|[tT][cC][pP]|[dD][nN][sS])://',
    'x-error-message': 'must be an absolute URL of at most 2048 characters: http(s):// for a site, tcp:// or dns:// for those kinds',
    description: 'What is checked, as the monitor\'s kind needs it: http(s)://..., tcp://host:port, dns://name (a heartbeat has none)',
  }),
}), {
  $id: 'UpdateMonitorRequest',
  title: 'UpdateMonitorRequest',
  additionalProperties: false,
  description: 'Any subset of the writable fields of the monitor\'s kind (another kind\'s field is a 400); `{}` changes nothing. ' +
    'Changing `monitor_type` needs what the new kind needs (a tcp:// url for `tcp`, ...); the old kind\'s own fields go back to their defaults',
  examples: [{ interval_minutes: 1, is_active: false }],
})

const listFields = {
  id: Uuid('Identifier of the monitor'),
  name: Type.String({ description: 'Display name' }),
  url: Nullable(Type.String({ description: 'What is checked: http(s)://..., tcp://host:port or dns://name; null for a heartbeat (it is pinged)' })),
  monitor_type: writable.monitor_type,
  status: StringEnum(MONITOR_STATUSES, {
    description: '`pending` until the first check after creation or re-activation, then `up` or `down` (`degraded`: up, but slower than ' +
      '`degraded_after_ms`); `paused` while `is_active` is false',
  }),
  is_active: writable.is_active,
  interval_minutes: writable.interval_minutes,
  last_checked_at: Nullable(Timestamp('Time of the latest check; null before the first')),
}

export const MonitorListItemSchema = Type.Object(listFields, {
  $id: 'MonitorListItem',
  title: 'MonitorListItem',
  additionalProperties: false,
})

export const MonitorSchema = Type.Object({
  ...listFields,
  method: writable.method,
  expected_status: writable.expected_status,
  timeout_seconds: writable.timeout_seconds,
  failure_threshold: writable.failure_threshold,
  recovery_threshold: writable.recovery_threshold,
  keyword: writable.keyword,
  keyword_mode: writable.keyword_mode,
  degraded_after_ms: writable.degraded_after_ms,
  request_headers: Type.Record(Type.String(), Type.String(), {
    description: 'Headers sent with each check; the values of secret headers masked (`…` and their last 4 characters)',
    examples: [{ authorization: '…8c8a', accept: 'application/json' }],
  }),
  secret_headers: Type.Array(Type.String(), {
    description: 'Names (lower case) of the `request_headers` marked secret besides those whose names say so',
    examples: [['x-tenant']],
  }),
  request_body: writable.request_body,
  dns_record_type: Nullable({ ...writable.dns_record_type, description: 'The record type a dns monitor asks for; null for other kinds' }),
  dns_expected: writable.dns_expected,
  grace_minutes: Nullable({ ...writable.grace_minutes, description: 'A heartbeat\'s minutes of grace after its interval; null for other kinds' }),
  ping_url: Nullable(Type.String({
    format: 'uri',
    description: 'A heartbeat\'s address to ping (GET or POST; `/fail` after it for a failure), no key needed: keep it secret. Null for other kinds',
    examples: ['https://pingward.example.com/ping/hb_6Qm2xTz9LkP4vW8sYb3nRc'],
  })),
  tls_expires_at: Nullable(Timestamp('When the certificate that the latest HTTPS check saw expires (verified or not); null before one')),
  tls_issuer: Nullable(Type.String({ description: 'Who issued that certificate (organization, common name)', examples: ['Let\'s Encrypt, R11'] })),
  labels: writable.labels,
  depends_on: writable.depends_on,
  in_maintenance: Type.Boolean({
    description: 'An active maintenance window covers the monitor: an incident that opens is told to no one until it ends (`GET /maintenance-windows`)',
  }),
  locations: writable.locations,
  location_quorum: writable.location_quorum,
  location_states: Type.Array(Type.Object({
    location: Type.String({ description: 'A code of `locations`' }),
    status: StringEnum(LOCATION_STATE_STATUSES, {
      description: 'What the location\'s latest check said (`degraded`: passed, slower than `degraded_after_ms`); `pending` before its first',
    }),
    last_checked_at: Nullable(Timestamp('When the location last checked the monitor; null before its first check')),
    error_message: Nullable(Type.String({ description: 'Why the latest check failed; null when it passed' })),
  }, { additionalProperties: false }), {
    description: 'Each of `locations`, in its order, with its latest check of the monitor; `[]` when `locations` is',
  }),
  notification_channel_ids: writable.notification_channel_ids,
  created_at: Timestamp('When the monitor was created'),
  updated_at: Timestamp('When the monitor was last changed'),
}, { $id: 'Monitor', title: 'Monitor', additionalProperties: false })

export const MonitorEnvelope = Envelope(Type.Ref(MonitorSchema), 'One monitor')
export const MonitorListEnvelope = Envelope(Type.Array(Type.Ref(MonitorListItemSchema)), 'The caller\'s monitors, newest created first')

export type Monitor = Static<typeof MonitorSchema>
/** A monitor's record as its row alone gives it: without the channels it opted into (another table). */
export type MonitorWithoutChannels = Omit<Monitor, 'notification_channel_ids'>
export type MonitorListItem = Static<typeof MonitorListItemSchema>
export type CreateMonitor = Static<typeof CreateMonitorSchema>
/** A create body after validation, which applied the schema's defaults: every field is there. */
export type NewMonitor = Required<CreateMonitor>

/** The schema's defaults applied to a create body, for monitors made outside a request (tests, bench). */
export function withMonitorDefaults (input: CreateMonitor): NewMonitor {
  const type = input.monitor_type ?? MONITOR_DEFAULTS.monitor_type
  return Value.Default(CREATE_VARIANTS[MONITOR_TYPES.indexOf(type)], { ...input, monitor_type: type }) as NewMonitor
}
export type UpdateMonitor = Static<typeof UpdateMonitorSchema>

// The query of GET /monitors: paging by an opaque cursor, and filters; without them the list is whole, as the specification says.
const MAX_MONITORS_PER_PAGE = 1000

// No examples on the filters and the cursor: Swagger UI's Try it out would send them, and its first list come back empty.
export const MonitorListQuery = Type.Object({
  limit: Type.Optional(Type.Integer({
    minimum: 1,
    maximum: MAX_MONITORS_PER_PAGE,
    description: 'Most monitors to return (1-1000). When more follow, the answer carries `Link: <...>; rel="next"`; without `limit` ' +
      'the list is whole',
    examples: [50],
  })),
  cursor: Type.Optional(Type.String({
    minLength: 1,
    maxLength: 100,
    pattern: '^[A-Za-z0-9_-]+$',
    'x-error-message': 'must be a cursor from the Link header of this list',
    description: 'Where the page starts: the `cursor` of the URL in the previous page\'s `Link` header (opaque; do not build one). ' +
      'Paging is stable: a monitor created or deleted meanwhile moves nothing, so none is skipped or repeated',
  })),
  status: Type.Optional(StringEnum(MONITOR_STATUSES, { description: 'Only monitors with this status' })),
  is_active: Type.Optional(Type.Boolean({ description: 'Only active monitors (`true`) or only paused ones (`false`)' })),
  search: Type.Optional(Type.String({
    minLength: 1,
    maxLength: 2048,
    // PostgreSQL text holds no NUL character: refused here, not a failed query.
    pattern: '^[^\\u0000]*$',
    'x-error-message': 'must be 1-2048 characters without NUL',
    description: 'Only monitors whose name or URL contains this text, in any case',
  })),
  label: Type.Optional(Type.Array(Type.String({
    maxLength: 320,
    pattern: LABEL_SELECTOR_PATTERN,
    'x-error-message': 'must be key:value or key (a key is 1-63 of a-z 0-9 _ . - /)',
  }), {
    maxItems: LABEL_RULES.maxLabels,
    description: 'Only monitors with this label: `key:value`, or `key` for any value. Repeat it: a monitor must have all of them',
  })),
}, { additionalProperties: false })

export type MonitorListParams = Static<typeof MonitorListQuery>
