// Shared schema pieces: ids, timestamps, the error body, the paging query and the success envelope.
import { Type, type Static, type TSchema } from '@sinclair/typebox'
import { LOCATION_CODE } from '../domain/locations.ts'
import { AUDIT_ACTOR_TYPES } from '../domain/vocabulary.ts'

export const Uuid = (description: string) =>
  Type.String({ format: 'uuid', maxLength: 36, description, examples: ['3f2b8c1e-9a4d-4e7b-8c21-5d6f0a1b2c3d'] })

// Longer than any time with nanoseconds and an offset (35 characters), and than every answer's (24).
/** A location's code (api-contract section 17), wherever one is given: a location, a monitor's list, a filter. */
export const LocationCode = (description?: string) => Type.String({
  minLength: LOCATION_CODE.minLength,
  maxLength: LOCATION_CODE.maxLength,
  pattern: LOCATION_CODE.pattern,
  'x-error-message': `must be ${LOCATION_CODE.rule}`,
  ...(description !== undefined && { description }),
  examples: ['office-berlin'],
})

export const Timestamp = (description: string) =>
  Type.String({ format: 'date-time', maxLength: 64, description, examples: ['2026-11-21T09:30:00.000Z'] })

/** A string that is one of `values` (a vocabulary of src/domain/vocabulary.ts), typed as their union. */
export const StringEnum = <T extends string>(values: readonly T[], options: object = {}) =>
  Type.Unsafe<T>({ type: 'string', enum: [...values], ...options })

/** `T | null` as a JSON Schema type array: valid OpenAPI 3.1, and fast for the serializer. An `enum` takes `null` too. */
export function Nullable<T extends TSchema> (schema: T) {
  return Type.Unsafe<Static<T> | null>({ ...schema, type: [schema.type, 'null'], ...(Array.isArray(schema.enum) && { enum: [...schema.enum, null] }) })
}

// Named ApiError, not Error: SDK generators make a class of each component, and `Error` would shadow the language's own.
export const ErrorSchema = Type.Object({
  error: Type.String({ description: 'What went wrong, in one line', examples: ['Monitor not found'] }),
}, { $id: 'ApiError', title: 'ApiError', description: 'The body of every error answer', additionalProperties: false })

/** Who did something: a member in the dashboard, an API key, or the server itself (the audit log's actor). */
export const ActorSchema = (description: string) => Type.Object({
  type: StringEnum(AUDIT_ACTOR_TYPES, { description: 'A member in the dashboard (`user`), an API key, or the server itself (`system`: the CLI, a job, a link)' }),
  id: Nullable(Uuid('The user\'s or the key\'s id; null for `system`')),
  label: Type.String({ description: 'The user\'s email, the key\'s name and prefix, or what the system was', examples: ['ci deploys (sk_live_Ab3d…)'] }),
}, { additionalProperties: false, description })

export const MonitorIdParams = Type.Object({
  id: Uuid('Id of the monitor'),
}, { additionalProperties: false })

export const PageQuery = (what: string, defaultLimit?: number) => Type.Object({
  limit: Type.Optional(Type.Integer({
    minimum: 1,
    maximum: 100,
    ...(defaultLimit ? { default: defaultLimit } : {}),
    description: `Most ${what} to return`,
  })),
  before: Type.Optional(Timestamp(`Only ${what} strictly older than this time, for paging back`)),
}, { additionalProperties: false })

/** Shorter secrets than this show no characters at all: four would be too much of them. */
const MASK_MIN_LENGTH = 12

/** `…` and the last 4 characters of a secret (only `…` for a short one): how responses show every secret field. */
export const maskSecret = (value: string): string => value.length >= MASK_MIN_LENGTH ? `…${value.slice(-4)}` : '…'

/** A success body `{data: T}`. */
export const Envelope = <T extends TSchema>(data: T, description: string) =>
  Type.Object({ data }, { additionalProperties: false, description })
