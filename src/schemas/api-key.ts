// The rules of a new API key (name, scope, optional expiry in days): used by the dashboard's Settings, API Keys form.
import { Type, type Static } from '@sinclair/typebox'
import { API_KEY_SCOPES } from '../domain/vocabulary.ts'
import { StringEnum } from './common.ts'

export const KEY_EXPIRY_MAX_DAYS = 3650

export const CreateApiKeySchema = Type.Object({
  name: Type.String({
    minLength: 1,
    maxLength: 100,
    pattern: '\\S',
    'x-error-message': 'must be 1-100 characters and not blank',
    description: 'What the key is for, to tell keys apart',
  }),
  scope: StringEnum(API_KEY_SCOPES, { description: '`read` may only read; `write` may do what the maker\'s role allows' }),
  expires_in_days: Type.Optional(Type.Integer({
    minimum: 1,
    maximum: KEY_EXPIRY_MAX_DAYS,
    description: 'Days until the key stops working; never when absent',
  })),
}, { title: 'CreateApiKey', additionalProperties: false })

export type CreateApiKey = Static<typeof CreateApiKeySchema>
