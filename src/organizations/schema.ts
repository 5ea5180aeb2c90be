// The organization API's shapes (api-contract section 12): the caller's organization, its members, and the
// bodies that change them.
import { Type } from '@sinclair/typebox'
import { SLUG_MAX_LENGTH, SLUG_PATTERN, SLUG_RULE } from '../domain/slug.ts'
import { ROLES } from '../domain/vocabulary.ts'
import { Envelope, StringEnum, Timestamp, Uuid } from '../schemas/common.ts'

const Role = (description: string) => StringEnum(ROLES, { description, examples: ['editor'] })

const Name = Type.String({
  minLength: 1,
  maxLength: 100,
  pattern: '\\S',
  'x-error-message': 'must be 1-100 characters and not blank',
  description: 'What people call the organization',
  examples: ['Acme'],
})

const Slug = Type.String({
  minLength: 1,
  maxLength: SLUG_MAX_LENGTH,
  pattern: SLUG_PATTERN,
  'x-error-message': `must be ${SLUG_RULE}`,
  description: 'The organization\'s short name, unique on this server (the CLI\'s `--org`)',
  examples: ['acme'],
})

export const OrganizationSchema = Type.Object({
  id: Uuid('Id of the organization'),
  name: Name,
  slug: Slug,
  role: Role('What the calling key may do here: the lower of its scope (`read` is a viewer) and its maker\'s role'),
  created_at: Timestamp('When the organization was made'),
}, { $id: 'Organization', title: 'Organization', additionalProperties: false })

export const OrganizationEnvelope = Envelope(Type.Ref(OrganizationSchema), 'The caller\'s organization')

export const UpdateOrganizationSchema = Type.Object({
  name: Type.Optional(Name),
  slug: Type.Optional(Slug),
}, {
  $id: 'UpdateOrganizationRequest',
  title: 'UpdateOrganizationRequest',
  additionalProperties: false,
  description: 'The fields to change; those left out keep their values',
  examples: [{ name: 'Acme Operations' }],
})

export const MemberSchema = Type.Object({
  user_id: Uuid('Id of the member\'s user'),
  email: Type.String({ description: 'The member\'s email', examples: ['ada@example.com'] }),
  role: Role('The member\'s role in the organization'),
  joined_at: Timestamp('When the user became a member'),
}, { $id: 'Member', title: 'Member', additionalProperties: false })

export const MemberListEnvelope = Envelope(Type.Array(Type.Ref(MemberSchema)), 'The organization\'s members, earliest joined first')
export const MemberEnvelope = Envelope(Type.Ref(MemberSchema), 'The member')

export const UpdateMemberSchema = Type.Object({
  role: Role('The member\'s new role; making, changing or removing an owner takes an owner'),
}, { $id: 'UpdateMemberRequest', title: 'UpdateMemberRequest', additionalProperties: false, examples: [{ role: 'responder' }] })

export const MemberParams = Type.Object({
  user_id: Uuid('Id of the member\'s user'),
}, { additionalProperties: false })

const Email = Type.String({
  minLength: 3,
  maxLength: 254,
  pattern: '^[^\\s@]+@[^\\s@]+$',
  'x-error-message': 'must be an email address',
  description: 'The email of the person invited: only a user with this email can accept',
  examples: ['grace@example.com'],
})

const invitationFields = {
  id: Uuid('Id of the invitation'),
  email: Email,
  role: Role('The role the invited person gets on accepting'),
  created_at: Timestamp('When the invitation was made'),
  expires_at: Timestamp('When it stops working: 7 days after it was made'),
}

export const InvitationSchema = Type.Object(invitationFields, { $id: 'Invitation', title: 'Invitation', additionalProperties: false })

export const CreatedInvitationSchema = Type.Object({
  ...invitationFields,
  accept_url: Type.String({
    description: 'The link that accepts it, shown this once (and mailed when the server sends mail): whoever holds it and signs in as the email may join',
    examples: ['https://pingward.example.com/invitations/b2Z0ZW4tYS1yYW5kb20tdG9rZW4tb2YtNDMtY2hhcnM'],
  }),
}, { $id: 'CreatedInvitation', title: 'CreatedInvitation', additionalProperties: false })

export const InvitationListEnvelope = Envelope(Type.Array(Type.Ref(InvitationSchema)), 'The invitations that can still be accepted, newest first')
export const CreatedInvitationEnvelope = Envelope(Type.Ref(CreatedInvitationSchema), 'The invitation, with its link this once')

export const CreateInvitationSchema = Type.Object({
  email: Email,
  role: Role('The role the invited person gets; an owner\'s invitation takes an owner'),
}, { $id: 'CreateInvitationRequest', title: 'CreateInvitationRequest', additionalProperties: false, examples: [{ email: 'grace@example.com', role: 'responder' }] })

export const InvitationParams = Type.Object({ id: Uuid('Id of the invitation') }, { additionalProperties: false })

export const AcceptInvitationSchema = Type.Object({
  token: Type.String({
    minLength: 1,
    maxLength: 200,
    description: 'The token of the invitation: the last part of its `accept_url`',
    examples: ['b2Z0ZW4tYS1yYW5kb20tdG9rZW4tb2YtNDMtY2hhcnM'],
  }),
}, { $id: 'AcceptInvitationRequest', title: 'AcceptInvitationRequest', additionalProperties: false, examples: [{ token: 'b2Z0ZW4tYS1yYW5kb20tdG9rZW4tb2YtNDMtY2hhcnM' }] })

export const AcceptedInvitationEnvelope = Envelope(Type.Object({
  organization_id: Uuid('The organization joined'),
  role: Role('The caller\'s role there now'),
}, { additionalProperties: false }), 'The organization the caller is now a member of')
