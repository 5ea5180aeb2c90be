// The shapes of locations and agents (api-contract section 17): a location, a new agent location, the agent's token
// shown once, and the agent's hello.
import { Type, type Static } from '@sinclair/typebox'
import { LOCATION_TIMING } from '../domain/locations.ts'
import { LOCATION_KINDS } from '../domain/vocabulary.ts'
import { MONITOR_TYPES } from '../domain/vocabulary.ts'
import { PROBE_FIELDS } from '../monitors/schema.ts'
import { Envelope, LocationCode, Nullable, StringEnum, Timestamp, Uuid } from '../schemas/common.ts'

const Name = Type.String({
  minLength: 1,
  maxLength: 100,
  pattern: '\\S',
  'x-error-message': 'must be 1-100 characters and not blank',
  description: 'What people call the location',
  examples: ['Berlin office'],
})

const locationFields = {
  code: LocationCode('The location\'s code: unique among the built-in locations and the organization\'s own'),
  name: Name,
  kind: StringEnum(LOCATION_KINDS, {
    description: '`builtin`: a checker process of this installation, started with `CHECKER_LOCATION=<code>`, seen by every ' +
      'organization; `agent`: a probe agent of this organization, which authenticates with its agent token',
  }),
  last_seen_at: Nullable(Timestamp('Its last sign of life: a built-in location\'s checker refreshes it every 15 seconds, an agent at its hello; null: never seen')),
  version: Nullable(Type.String({ maxLength: 64, description: 'The Pingward version it last said it runs; null: never seen', examples: ['0.1.0'] })),
  online: Type.Boolean({ description: `Whether it was seen within the last ${LOCATION_TIMING.onlineWithinMs / 1000} seconds` }),
}

export const LocationSchema = Type.Object(locationFields, {
  $id: 'Location',
  title: 'Location',
  additionalProperties: false,
  description: 'A place checks run from: a built-in checker or an agent',
})

export const LocationWithTokenSchema = Type.Object({
  ...locationFields,
  agent_token: Type.String({
    description: 'The agent\'s token, shown this once: `pwa_` and 38 characters. The agent sends it as `Authorization: Bearer pwa_...`; ' +
      'only its hash is stored',
    examples: ['pwa_V2LUCRG2YZP2e4pwoHghrk85QRduTkY3RTm8C5'],
  }),
}, {
  $id: 'LocationWithToken',
  title: 'LocationWithToken',
  additionalProperties: false,
  description: 'An agent location with its new token, in the answers to create and rotate-token only',
})

export const CreateLocationSchema = Type.Object({
  code: LocationCode('The new location\'s code: not one of the organization\'s, nor a built-in location\'s'),
  name: Name,
}, {
  $id: 'CreateLocationRequest',
  title: 'CreateLocationRequest',
  additionalProperties: false,
  description: 'A new agent location of the organization',
  examples: [{ code: 'office-berlin', name: 'Berlin office' }],
})

export const LocationParams = Type.Object({ code: LocationCode('The location\'s code') }, { additionalProperties: false })

export const LocationEnvelope = Envelope(Type.Ref(LocationSchema), 'The location')
export const LocationListEnvelope = Envelope(Type.Array(Type.Ref(LocationSchema)), 'The built-in locations, then the organization\'s agent locations, each by code')
export const LocationWithTokenEnvelope = Envelope(Type.Ref(LocationWithTokenSchema), 'The agent location, with its token this once')

export const AgentHelloSchema = Type.Object({
  version: Type.String({
    minLength: 1,
    maxLength: 64,
    pattern: '^[\\x21-\\x7e]+$',
    'x-error-message': 'must be 1-64 visible ASCII characters',
    description: 'The Pingward version the agent runs',
    examples: ['0.1.0'],
  }),
}, {
  $id: 'AgentHelloRequest',
  title: 'AgentHelloRequest',
  additionalProperties: false,
  description: 'What an agent says of itself when it starts or reconnects',
  examples: [{ version: '0.1.0' }],
})

export const AgentHelloReplySchema = Type.Object({
  location: Type.Object({
    code: LocationCode('The code of the agent\'s location'),
    name: Name,
  }, { additionalProperties: false, description: 'The location the token is of' }),
  server_time: Timestamp('The server\'s clock at the answer: the agent schedules by it, not by its own'),
}, { $id: 'AgentHello', title: 'AgentHello', additionalProperties: false, description: 'The server\'s answer to an agent\'s hello' })

export const AgentHelloEnvelope = Envelope(Type.Ref(AgentHelloReplySchema), 'Who the agent is, and the server\'s time')

/** How long an agent's long poll of its assignments may wait for a change. */
export const ASSIGNMENTS_MAX_WAIT_SECONDS = 25
/** Most results in one batch. */
export const MAX_RESULTS_PER_BATCH = 500

export const AgentAssignmentSchema = Type.Object({
  monitor_id: Uuid('The monitor to check'),
  monitor_type: StringEnum(MONITOR_TYPES.filter((type) => type !== 'heartbeat'), { description: 'How to check it: `site`, `tcp` or `dns`' }),
  url: Type.String({ description: 'What to check, as the monitor\'s `url`', examples: ['https://example.com/health'] }),
  interval_minutes: Type.Integer({ minimum: 1, description: 'Minutes between checks: one check of each slot' }),
  slot_origin: Timestamp('Slots are `interval_minutes` long, counted from this instant on the server\'s clock: a slot starts at it plus a whole number of intervals'),
  ...PROBE_FIELDS,
}, {
  $id: 'AgentAssignment',
  title: 'AgentAssignment',
  additionalProperties: false,
  description: 'A monitor the agent\'s location checks, with what its probe needs',
})

export const AgentAssignmentsQuery = Type.Object({
  wait: Type.Integer({
    minimum: 0,
    maximum: ASSIGNMENTS_MAX_WAIT_SECONDS,
    default: 0,
    description: `With \`If-None-Match\`: seconds to hold the request while the assignments are unchanged (a long poll, at most ${ASSIGNMENTS_MAX_WAIT_SECONDS}); ` +
      'it answers as soon as they change, else `304` at the end',
  }),
  since: Type.Optional(Type.String({
    format: 'date-time',
    maxLength: 40,
    description: 'A delta: only the assignments changed since this instant (the `as_of` of an earlier answer) in `data`, every one in ' +
      '`monitor_ids`. Without it, every assignment',
    examples: ['2026-12-01T10:00:05.123Z'],
  })),
}, { additionalProperties: false })

export const AgentAssignmentsEnvelope = Type.Object({
  data: Type.Array(Type.Ref(AgentAssignmentSchema), { description: 'Every monitor the agent\'s location checks, by id; with `since`, those changed since' }),
  monitor_ids: Type.Array(Uuid('A monitor the agent\'s location checks'), {
    description: 'Every monitor the location checks, by id: one the agent has that is not here is no longer its; one here it does not have ' +
      'and `data` does not hold (a monitor out of a `pause` maintenance window, say) is had by asking again without `since`',
  }),
  as_of: Timestamp('When the answer was read: the `since` of the next delta'),
}, { additionalProperties: false, description: 'The agent\'s assignments, whole or a delta' })

export const AgentResultSchema = Type.Object({
  monitor_id: Uuid('The monitor checked'),
  slot_at: Timestamp('The start of the slot the check was of (`slot_origin` plus whole intervals): a location\'s check of a slot is recorded once'),
  checked_at: Timestamp('When the check started, on the server\'s clock'),
  is_up: Type.Boolean({ description: 'Whether the check passed' }),
  degraded: Type.Boolean({ default: false, description: 'Passed, but slower than the monitor\'s `degraded_after_ms`' }),
  status_code: Nullable(Type.Integer({ minimum: 100, maximum: 599, description: 'The final HTTP status; null for tcp and dns, or without a response' })),
  response_time_ms: Type.Integer({ minimum: 0, maximum: 600_000, description: 'Milliseconds from the start to the answer or the failure' }),
  error_message: Nullable(Type.String({ maxLength: 1000, description: 'What went wrong, in one line; null when up and not degraded' })),
}, {
  $id: 'AgentResult',
  title: 'AgentResult',
  additionalProperties: false,
  description: 'One check an agent made',
})

export const AgentResultsSchema = Type.Object({
  results: Type.Array(Type.Ref(AgentResultSchema), { minItems: 1, maxItems: MAX_RESULTS_PER_BATCH, description: `The checks, at most ${MAX_RESULTS_PER_BATCH}` }),
}, {
  $id: 'AgentResultsRequest',
  title: 'AgentResultsRequest',
  additionalProperties: false,
  description: 'A batch of an agent\'s checks. Sending it again is safe: a location\'s check of a slot is recorded once',
})

export const AgentResultsReplySchema = Type.Object({
  recorded: Type.Integer({ minimum: 0, description: 'Checks recorded by this batch, `late` ones included' }),
  late: Type.Integer({ minimum: 0, description: 'Of those, the ones older than their location\'s latest or than the stale time: in the history, not in the status' }),
  duplicates: Type.Integer({ minimum: 0, description: 'Checks of a slot the location had recorded already (a retried batch): not recorded again' }),
  unassigned: Type.Integer({ minimum: 0, description: 'Checks of monitors the location does not check (any more): not recorded' }),
}, { $id: 'AgentResultsReceipt', title: 'AgentResultsReceipt', additionalProperties: false, description: 'What became of a batch of results' })

export const AgentResultsEnvelope = Envelope(Type.Ref(AgentResultsReplySchema), 'What became of the batch')

export type AgentAssignment = Static<typeof AgentAssignmentSchema>
export type AgentResult = Static<typeof AgentResultSchema>
export type AgentResultsReceipt = Static<typeof AgentResultsReplySchema>
export type Location = Static<typeof LocationSchema>
export type LocationWithToken = Static<typeof LocationWithTokenSchema>
export type NewLocation = Static<typeof CreateLocationSchema>
export type AgentHello = Static<typeof AgentHelloReplySchema>
