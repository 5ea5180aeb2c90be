// The shapes of maintenance windows (api-contract section 14): the window, the bodies that make, change and start one.
import { Type, type Static, type TSchema } from '@sinclair/typebox'
import { LABEL_RULES, LABEL_SELECTOR_PATTERN } from '../domain/labels.ts'
import { MAINTENANCE_MODES, MAINTENANCE_STATES } from '../domain/vocabulary.ts'
import { Envelope, Nullable, StringEnum, Timestamp, Uuid } from '../schemas/common.ts'

/** The most monitors a window names, and the longest a started occurrence lasts (a week). */
const MAINTENANCE_LIMITS = { monitorIds: 1000, durationMinutes: 10_080 } as const

const fields = {
  title: Type.String({ minLength: 1, maxLength: 200, pattern: '\\S', 'x-error-message': 'must be 1-200 characters and not blank', description: 'What the window is for', examples: ['Weekly database upgrade'] }),
  description: Nullable(Type.String({ maxLength: 5000, description: 'More about it, for the people who read the dashboard' })),
  monitor_ids: Type.Array(Uuid('A monitor of the organization'), {
    maxItems: MAINTENANCE_LIMITS.monitorIds,
    uniqueItems: true,
    description: 'Monitors the window covers by id',
  }),
  all_monitors: Type.Boolean({ description: 'The window covers every monitor of the organization, those made later too' }),
  label_selector: Type.Array(Type.String({ maxLength: 319, pattern: LABEL_SELECTOR_PATTERN, 'x-error-message': 'must be key:value or key (keys 1-63 of a-z 0-9 _ . - /)' }), {
    maxItems: LABEL_RULES.maxLabels,
    uniqueItems: true,
    description: 'The window covers the monitors whose labels match every item: `key:value`, or `key` for any value (as `GET /monitors?label=`); empty: none by label',
    examples: [['env:prod', 'team']],
  }),
  starts_at: Timestamp('The first occurrence\'s start'),
  ends_at: Timestamp('The first occurrence\'s end, after its start'),
  rrule: Nullable(Type.String({
    maxLength: 500,
    description: 'How the first occurrence repeats, an RFC 5545 RRULE without its `RRULE:` prefix: `FREQ=DAILY|WEEKLY|MONTHLY`, `INTERVAL`, ' +
      '`BYDAY` (with ordinals such as `1SU` or `-1FR` when monthly), `BYMONTHDAY`, `UNTIL` (UTC) or `COUNT`. Each occurrence keeps the ' +
      'first one\'s wall-clock times in `timezone` across DST changes (a time a change skips moves forward by the gap). Null: one-off',
    examples: ['FREQ=MONTHLY;BYDAY=1SU'],
  })),
  timezone: Type.String({ minLength: 1, maxLength: 64, description: 'The IANA time zone the rule keeps wall-clock times in', examples: ['Europe/Berlin'] }),
  mode: StringEnum(MAINTENANCE_MODES, { description: '`mute`: checks run and are recorded, nothing is notified; `pause`: no checks run' }),
}

export const MaintenanceWindowSchema = Type.Object({
  id: Uuid('Id of the window'),
  ...fields,
  state: StringEnum(MAINTENANCE_STATES, {
    description: '`scheduled` (an occurrence is to come), `active` (one is under way), `completed` (none is left) or `cancelled`',
  }),
  next_starts_at: Nullable(Timestamp('The start of the occurrence under way or next; null when none is left or the window is cancelled')),
  next_ends_at: Nullable(Timestamp('Its end')),
  created_at: Timestamp('When the window was made'),
  updated_at: Timestamp('When it was last changed'),
}, { $id: 'MaintenanceWindow', title: 'MaintenanceWindow', additionalProperties: false, description: 'A maintenance window: while one of its occurrences is under way, the monitors it covers are in maintenance' })

const defaulted = <T extends TSchema>(schema: T, value: unknown) => Type.Optional({ ...schema, default: value } as T)

export const CreateMaintenanceWindowSchema = Type.Object({
  title: fields.title,
  description: defaulted(fields.description, null),
  monitor_ids: defaulted(fields.monitor_ids, []),
  all_monitors: defaulted(fields.all_monitors, false),
  label_selector: defaulted(fields.label_selector, []),
  starts_at: Type.Optional({ ...fields.starts_at, description: 'The first occurrence\'s start; omitted: now (the window starts at once)' }),
  ends_at: fields.ends_at,
  rrule: defaulted(fields.rrule, null),
  timezone: defaulted(fields.timezone, 'UTC'),
  mode: defaulted(fields.mode, 'mute'),
}, {
  $id: 'CreateMaintenanceWindowRequest',
  title: 'CreateMaintenanceWindowRequest',
  additionalProperties: false,
  description: 'A new window; it must cover monitors by `monitor_ids`, `all_monitors` or `label_selector` (any of them)',
  examples: [{ title: 'Deploy', ends_at: '2030-12-01T10:30:00.000Z', label_selector: ['service:api'] }],
})

export const UpdateMaintenanceWindowSchema = Type.Object({
  title: Type.Optional(fields.title),
  description: Type.Optional(fields.description),
  monitor_ids: Type.Optional(fields.monitor_ids),
  all_monitors: Type.Optional(fields.all_monitors),
  label_selector: Type.Optional(fields.label_selector),
  starts_at: Type.Optional(fields.starts_at),
  ends_at: Type.Optional(fields.ends_at),
  rrule: Type.Optional(fields.rrule),
  timezone: Type.Optional(fields.timezone),
  mode: Type.Optional(fields.mode),
  state: Type.Optional(StringEnum(['cancelled', 'scheduled'] as const, {
    description: '`cancelled` turns the window off (an occurrence under way ends now); `scheduled` turns a cancelled one on again',
  })),
}, {
  $id: 'UpdateMaintenanceWindowRequest',
  title: 'UpdateMaintenanceWindowRequest',
  additionalProperties: false,
  minProperties: 1,
  description: 'The fields to change; a change of its times or rule moves its next occurrence',
  examples: [{ state: 'cancelled' }],
})

export const StartMaintenanceSchema = Type.Object({
  duration_minutes: Type.Optional(Type.Integer({
    minimum: 1,
    maximum: MAINTENANCE_LIMITS.durationMinutes,
    description: 'How long the occurrence lasts from now; omitted: as long as the window\'s first occurrence',
  })),
}, { $id: 'StartMaintenanceRequest', title: 'StartMaintenanceRequest', additionalProperties: false, examples: [{ duration_minutes: 30 }] })

export const MaintenanceWindowParams = Type.Object({ id: Uuid('Id of the maintenance window') }, { additionalProperties: false })
export const MaintenanceWindowEnvelope = Envelope(Type.Ref(MaintenanceWindowSchema), 'The maintenance window')
export const MaintenanceWindowListEnvelope = Envelope(Type.Array(Type.Ref(MaintenanceWindowSchema)), 'The organization\'s maintenance windows, the next to start first')

export type MaintenanceWindow = Static<typeof MaintenanceWindowSchema>
export type NewMaintenanceWindow = Static<typeof CreateMaintenanceWindowSchema>
export type MaintenanceWindowChanges = Static<typeof UpdateMaintenanceWindowSchema>
