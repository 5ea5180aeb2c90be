// The shapes of locations and agents (api-contract section 17): a location, a new agent location, the agent's token
// shown once, and the agent's hello.
import { Type, type Static } from '@sinclair/typebox'
import { LOCATION_TIMING } from '../domain/locations.ts'
import { LOCATION_KINDS } from '../domain/vocabulary.ts'
import { Envelope, LocationCode, Nullable, StringEnum, Timestamp } from '../schemas/common.ts'

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

export type Location = Static<typeof LocationSchema>
export type LocationWithToken = Static<typeof LocationWithTokenSchema>
export type NewLocation = Static<typeof CreateLocationSchema>
export type AgentHello = Static<typeof AgentHelloReplySchema>
