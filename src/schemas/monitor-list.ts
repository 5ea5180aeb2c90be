// The query of GET /monitors: paging by an opaque cursor, and filters; without them the list is whole, as the specification says.
import { Type, type Static } from '@sinclair/typebox'
import { MONITOR_STATUSES } from '../domain/vocabulary.ts'
import { StringEnum } from './common.ts'

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
}, { additionalProperties: false })

export type MonitorListParams = Static<typeof MonitorListQuery>
