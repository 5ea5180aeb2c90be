// Check result schemas: exactly the fields of the specification.
import { Type, type Static } from '@sinclair/typebox'
import { Envelope, LocationCode, Nullable, PageQuery, Timestamp, Uuid } from './common.ts'

export const CheckSchema = Type.Object({
  id: Uuid('Identifier of the check result'),
  monitor_id: Uuid('The monitor the check belongs to'),
  is_up: Type.Boolean({ description: 'True exactly when a response arrived with the expected status' }),
  status_code: Nullable(Type.Integer({ description: 'HTTP status observed; null when no response arrived' })),
  response_time_ms: Type.Integer({ minimum: 0, description: 'Milliseconds until the response headers arrived (or the failure)' }),
  checked_at: Timestamp('Time of the check'),
  error_message: Nullable(Type.String({ description: 'What went wrong, in one line; null when the check passed (but for a degraded one: how slow it was)', examples: ['expected status 200, got 503'] })),
}, { $id: 'Check', title: 'Check', additionalProperties: false })

export const CheckListEnvelope = Envelope(Type.Array(Type.Ref(CheckSchema)), 'Check results, newest first, at most 100')

/** The query of GET /monitors/{id}/checks: a page, and one location's checks. */
export const CheckListQuery = Type.Composite([PageQuery('check results', 100), Type.Object({
  location: Type.Optional(LocationCode('Only the checks made from this location (a code of `GET /locations`); without it, every location\'s')),
})], { additionalProperties: false })

export type Check = Static<typeof CheckSchema>
