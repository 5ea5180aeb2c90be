// The shapes of status pages (api-contract section 16): the page, its components, the reports and their updates.
import { Type, type Static, type TSchema } from '@sinclair/typebox'
import { LABEL_RULES, LABEL_SELECTOR_PATTERN } from '../domain/labels.ts'
import { SLUG_PATTERN } from '../domain/slug.ts'
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../auth/passwords.ts'
import { COMPONENT_STATUSES, REPORT_IMPACTS, REPORT_STATUSES, STATUS_PAGE_ACCESS } from '../domain/vocabulary.ts'
import { Envelope, Nullable, PageQuery, StringEnum, Timestamp, Uuid } from '../schemas/common.ts'

/** The most components a page holds, pages a report is on, and the longest message an update carries. */
export const STATUS_PAGE_LIMITS = { components: 200, pagesPerReport: 20, message: 10_000 } as const

const DOMAIN_PATTERN = '^([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\\.)+[a-z]{2,63}$'

const pageFields = {
  slug: Type.String({
    minLength: 2,
    maxLength: 63,
    pattern: SLUG_PATTERN,
    'x-error-message': 'must be 2-63 lowercase letters, digits and hyphens, starting and ending with a letter or digit',
    description: 'The page\'s address: `/status/{slug}`; unique on the server',
    examples: ['acme'],
  }),
  title: Type.String({ minLength: 1, maxLength: 200, pattern: '\\S', 'x-error-message': 'must be 1-200 characters and not blank', description: 'The page\'s heading', examples: ['Acme status'] }),
  description: Nullable(Type.String({ maxLength: 2000, description: 'A line under the heading' })),
  homepage_url: Nullable(Type.String({ format: 'uri', pattern: '^https?://', maxLength: 2048, 'x-error-message': 'must be an http or https URL', description: 'Where the page\'s heading links to', examples: ['https://acme.example'] })),
  published: Type.Boolean({ description: 'Whether the public page answers; an unpublished page is a 404 to everyone' }),
  access: StringEnum(STATUS_PAGE_ACCESS, { description: '`public`: anyone may read it; `password`: readers give `password` first' }),
  history_days: Type.Integer({ minimum: 7, maximum: 365, description: 'How many days of bars each component shows' }),
  custom_domain: Nullable(Type.String({
    maxLength: 253,
    pattern: DOMAIN_PATTERN,
    'x-error-message': 'must be a lowercase host name such as status.example.com',
    description: 'A host name that serves the page at `/` once its TXT record `_pingward.<domain>` says `domain_txt_record`',
    examples: ['status.acme.example'],
  })),
}

const password = Type.String({
  minLength: PASSWORD_MIN_LENGTH,
  maxLength: PASSWORD_MAX_LENGTH,
  'x-error-message': `must be ${PASSWORD_MIN_LENGTH}-${PASSWORD_MAX_LENGTH} characters`,
  writeOnly: true,
  description: 'What readers of a `password` page give; never shown again',
})

export const StatusPageSchema = Type.Object({
  id: Uuid('Id of the page'),
  ...pageFields,
  domain_verified: Type.Boolean({ description: 'Whether the TXT record of `custom_domain` was seen; only then the domain serves the page' }),
  domain_txt_record: Type.String({ description: 'What the TXT record `_pingward.<custom_domain>` must say', examples: ['pingward-verification=Xq3v9mLr2Tz8Wb4Kc6Yd1N'] }),
  created_at: Timestamp('When the page was made'),
  updated_at: Timestamp('When it was last changed'),
}, { $id: 'StatusPage', title: 'StatusPage', additionalProperties: false, description: 'A public status page' })

const defaulted = <T extends TSchema>(schema: T, value: unknown) => Type.Optional({ ...schema, default: value } as T)

export const CreateStatusPageSchema = Type.Object({
  slug: pageFields.slug,
  title: pageFields.title,
  description: defaulted(pageFields.description, null),
  homepage_url: defaulted(pageFields.homepage_url, null),
  published: defaulted(pageFields.published, false),
  access: defaulted(pageFields.access, 'public'),
  password: Type.Optional(password),
  history_days: defaulted(pageFields.history_days, 90),
  custom_domain: defaulted(pageFields.custom_domain, null),
}, {
  $id: 'CreateStatusPageRequest',
  title: 'CreateStatusPageRequest',
  additionalProperties: false,
  description: 'A new page; `password` is required when `access` is `password`',
  examples: [{ slug: 'acme', title: 'Acme status', published: true }],
})

export const UpdateStatusPageSchema = Type.Object({
  slug: Type.Optional(pageFields.slug),
  title: Type.Optional(pageFields.title),
  description: Type.Optional(pageFields.description),
  homepage_url: Type.Optional(pageFields.homepage_url),
  published: Type.Optional(pageFields.published),
  access: Type.Optional(pageFields.access),
  password: Type.Optional(password),
  history_days: Type.Optional(pageFields.history_days),
  custom_domain: Type.Optional(pageFields.custom_domain),
}, {
  $id: 'UpdateStatusPageRequest',
  title: 'UpdateStatusPageRequest',
  additionalProperties: false,
  minProperties: 1,
  description: 'The fields to change; a new `custom_domain` must be verified again',
  examples: [{ published: true }],
})

const componentFields = {
  name: Type.String({ minLength: 1, maxLength: 200, pattern: '\\S', 'x-error-message': 'must be 1-200 characters and not blank', description: 'What readers call it', examples: ['API'] }),
  description: Nullable(Type.String({ maxLength: 2000, description: 'A line about it' })),
  group: Nullable(Type.String({ minLength: 1, maxLength: 200, pattern: '\\S', 'x-error-message': 'must be 1-200 characters and not blank', description: 'The group it is shown in; components of one group are shown together', examples: ['Europe'] })),
  position: Type.Integer({ minimum: 0, maximum: 100_000, description: 'Its place on the page, smallest first (ties: oldest first)' }),
  monitor_id: Nullable(Uuid('The monitor it follows')),
  label_selector: Nullable(Type.Array(Type.String({ maxLength: 319, pattern: LABEL_SELECTOR_PATTERN, 'x-error-message': 'must be key:value or key (keys 1-63 of a-z 0-9 _ . - /)' }), {
    minItems: 1,
    maxItems: LABEL_RULES.maxLabels,
    uniqueItems: true,
    description: 'It follows the monitors whose labels match every item (as `GET /monitors?label=`): the worst of them, `partial_outage` when only some are down',
    examples: [['service:api']],
  })),
  manual_status: Nullable(StringEnum(COMPONENT_STATUSES, { description: 'A status set by hand, for what no monitor watches' })),
}

export const ComponentSchema = Type.Object({
  id: Uuid('Id of the component'),
  ...componentFields,
}, {
  $id: 'StatusPageComponent',
  title: 'StatusPageComponent',
  additionalProperties: false,
  description: 'A line of a status page; exactly one of `monitor_id`, `label_selector` and `manual_status` is set',
})

export const CreateComponentSchema = Type.Object({
  name: componentFields.name,
  description: defaulted(componentFields.description, null),
  group: defaulted(componentFields.group, null),
  position: Type.Optional({ ...componentFields.position, description: 'Its place on the page, smallest first; omitted: after the others' }),
  monitor_id: defaulted(componentFields.monitor_id, null),
  label_selector: defaulted(componentFields.label_selector, null),
  manual_status: defaulted(componentFields.manual_status, null),
}, {
  $id: 'CreateStatusPageComponentRequest',
  title: 'CreateStatusPageComponentRequest',
  additionalProperties: false,
  description: 'A new component: exactly one of `monitor_id`, `label_selector` and `manual_status`',
  examples: [{ name: 'API', monitor_id: '3f2b8c1e-9a4d-4e7b-8c21-5d6f0a1b2c3d' }],
})

export const UpdateComponentSchema = Type.Object({
  name: Type.Optional(componentFields.name),
  description: Type.Optional(componentFields.description),
  group: Type.Optional(componentFields.group),
  position: Type.Optional(componentFields.position),
  monitor_id: Type.Optional(componentFields.monitor_id),
  label_selector: Type.Optional(componentFields.label_selector),
  manual_status: Type.Optional(componentFields.manual_status),
}, {
  $id: 'UpdateStatusPageComponentRequest',
  title: 'UpdateStatusPageComponentRequest',
  additionalProperties: false,
  minProperties: 1,
  description: 'The fields to change; setting one of `monitor_id`, `label_selector` or `manual_status` clears the other two',
  examples: [{ manual_status: 'degraded_performance' }],
})

const reportFields = {
  status_page_ids: Type.Array(Uuid('A status page of the organization'), {
    minItems: 1, maxItems: STATUS_PAGE_LIMITS.pagesPerReport, uniqueItems: true, description: 'The pages that show the report',
  }),
  title: Type.String({ minLength: 1, maxLength: 200, pattern: '\\S', 'x-error-message': 'must be 1-200 characters and not blank', description: 'What readers see first', examples: ['Elevated API errors'] }),
  status: StringEnum(REPORT_STATUSES, { description: 'Where the work stands: `investigating`, `identified`, `monitoring` or `resolved`' }),
  impact: StringEnum(REPORT_IMPACTS, { description: 'How much it hurts: a component it names shows `none` as it is, `minor` as `degraded_performance`, `major` as `partial_outage`, `critical` as `major_outage`' }),
  component_ids: Type.Array(Uuid('A component of one of the report\'s pages'), {
    maxItems: STATUS_PAGE_LIMITS.components, uniqueItems: true, description: 'The components it affects',
  }),
  message: Type.String({ minLength: 1, maxLength: STATUS_PAGE_LIMITS.message, pattern: '\\S', 'x-error-message': `must be 1-${STATUS_PAGE_LIMITS.message} characters and not blank`, description: 'What readers are told', examples: ['We are looking into elevated error rates.'] }),
}

export const ReportUpdateSchema = Type.Object({
  id: Uuid('Id of the update'),
  status: reportFields.status,
  message: reportFields.message,
  created_at: Timestamp('When it was posted'),
}, { $id: 'StatusReportUpdate', title: 'StatusReportUpdate', additionalProperties: false, description: 'One step of a report\'s timeline' })

export const StatusReportSchema = Type.Object({
  id: Uuid('Id of the report'),
  status_page_ids: reportFields.status_page_ids,
  title: reportFields.title,
  status: { ...reportFields.status, description: 'The status of its newest update' },
  impact: reportFields.impact,
  component_ids: reportFields.component_ids,
  updates: Type.Array(Type.Ref(ReportUpdateSchema), { description: 'Its timeline, oldest first' }),
  created_at: Timestamp('When it was made'),
  resolved_at: Nullable(Timestamp('When an update set it `resolved`; null while open')),
}, { $id: 'StatusReport', title: 'StatusReport', additionalProperties: false, description: 'What the organization tells its users about a problem, on its status pages' })

export const CreateReportSchema = Type.Object({
  status_page_ids: reportFields.status_page_ids,
  title: reportFields.title,
  status: defaulted(reportFields.status, 'investigating'),
  impact: defaulted(reportFields.impact, 'minor'),
  component_ids: defaulted(reportFields.component_ids, []),
  message: { ...reportFields.message, description: 'The first update\'s message' },
}, {
  $id: 'CreateStatusReportRequest',
  title: 'CreateStatusReportRequest',
  additionalProperties: false,
  description: 'A new report; its first update is made of `status` and `message`',
  examples: [{ status_page_ids: ['3f2b8c1e-9a4d-4e7b-8c21-5d6f0a1b2c3d'], title: 'Elevated API errors', message: 'We are looking into it.' }],
})

export const UpdateReportSchema = Type.Object({
  status_page_ids: Type.Optional(reportFields.status_page_ids),
  title: Type.Optional(reportFields.title),
  impact: Type.Optional(reportFields.impact),
  component_ids: Type.Optional(reportFields.component_ids),
}, {
  $id: 'UpdateStatusReportRequest',
  title: 'UpdateStatusReportRequest',
  additionalProperties: false,
  minProperties: 1,
  description: 'The fields to change; its status changes by posting an update',
  examples: [{ impact: 'major' }],
})

export const PostReportUpdateSchema = Type.Object({
  status: reportFields.status,
  message: reportFields.message,
}, {
  $id: 'PostStatusReportUpdateRequest',
  title: 'PostStatusReportUpdateRequest',
  additionalProperties: false,
  examples: [{ status: 'identified', message: 'A bad deploy; rolling back.' }],
})

export const ReportDraftSchema = Type.Object({
  status_page_ids: Type.Array(Uuid('A status page of the organization'), { description: 'The pages with a component that follows the incident\'s monitor' }),
  title: reportFields.title,
  status: reportFields.status,
  impact: reportFields.impact,
  component_ids: Type.Array(Uuid('A component'), { description: 'The components that follow the incident\'s monitor' }),
  message: reportFields.message,
}, {
  $id: 'StatusReportDraft',
  title: 'StatusReportDraft',
  additionalProperties: false,
  description: 'A report\'s body filled in from an incident, to edit and send to `POST /status-reports`; nothing is published by itself',
})

export const PageParams = Type.Object({ id: Uuid('Id of the status page') }, { additionalProperties: false })
export const ComponentParams = Type.Object({ id: Uuid('Id of the status page'), component_id: Uuid('Id of the component') }, { additionalProperties: false })
export const ReportParams = Type.Object({ id: Uuid('Id of the status report') }, { additionalProperties: false })
export const ReportListQuery = Type.Composite([
  PageQuery('reports', 50),
  Type.Object({
    status_page_id: Type.Optional(Uuid('Only the reports on this page')),
    open: Type.Optional(Type.Boolean({ description: '`true`: only reports not resolved; `false`: only resolved ones' })),
  }),
], { additionalProperties: false })
export const IncidentParams = Type.Object({ id: Uuid('Id of the incident to draft a report from') }, { additionalProperties: false })

export const StatusPageEnvelope = Envelope(Type.Ref(StatusPageSchema), 'The status page')
export const StatusPageListEnvelope = Envelope(Type.Array(Type.Ref(StatusPageSchema)), 'The organization\'s status pages, newest first')
export const ComponentEnvelope = Envelope(Type.Ref(ComponentSchema), 'The component')
export const ComponentListEnvelope = Envelope(Type.Array(Type.Ref(ComponentSchema)), 'The page\'s components in their order')
export const ReportEnvelope = Envelope(Type.Ref(StatusReportSchema), 'The status report')
export const ReportListEnvelope = Envelope(Type.Array(Type.Ref(StatusReportSchema)), 'The organization\'s reports, newest first')
export const DraftEnvelope = Envelope(Type.Ref(ReportDraftSchema), 'A report body to edit and send')

export type StatusPage = Static<typeof StatusPageSchema>
export type NewStatusPage = Static<typeof CreateStatusPageSchema>
export type StatusPageChanges = Static<typeof UpdateStatusPageSchema>
export type Component = Static<typeof ComponentSchema>
export type NewComponent = Static<typeof CreateComponentSchema>
export type ComponentChanges = Static<typeof UpdateComponentSchema>
export type StatusReport = Static<typeof StatusReportSchema>
export type NewReport = Static<typeof CreateReportSchema>
export type ReportChanges = Static<typeof UpdateReportSchema>
export type ReportDraft = Static<typeof ReportDraftSchema>
