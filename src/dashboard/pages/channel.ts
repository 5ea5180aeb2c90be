// A notification channel's page: its settings, a new signing secret once, a test's outcome and the delivery log.
import { DELIVERY_STATUSES, type DeliveryStatus } from '../../domain/vocabulary.ts'
import type { Delivery, DeliveryDetail, NotificationChannel } from '../../notifications/schema.ts'
import { configFields } from '../channel-input.ts'
import { timeTag, utc } from '../format.ts'
import { html, type SafeHtml } from '../../http/html.ts'
import { EVENT_NAMES, typeName } from './channel-form.ts'
import { channelActionForm, channelActions, channelBadge, eventsText } from './channels.ts'
import { may, page, settingsNav, type PageContext } from './layout.ts'

type Attempt = DeliveryDetail['attempt_log'][number]

const STATUS_NAMES: Record<DeliveryStatus, string> = { pending: 'Pending', delivered: 'Delivered', failed: 'Failed', dead: 'Given up' }
/** What a Retry is offered for: a delivery that will not be (or not soon be) sent by itself. */
const RETRYABLE: ReadonlySet<DeliveryStatus> = new Set(['failed', 'dead'])

const deliveryBadge = (status: DeliveryStatus) => html`<span class="st st-${status}">${STATUS_NAMES[status]}</span>`

/** "HTTP 204", "HTTP 500: boom" (an error that names its status already), "HTTP 200 · <error>", "timeout after 15000 ms". */
function outcome (statusCode: number | null, error: string | null): string {
  if (statusCode === null) return error ?? 'no response'
  const status = `HTTP ${statusCode}`
  if (!error) return status
  return error.startsWith(status) ? error : `${status} · ${error}`
}

function secretPanel (secret: string): SafeHtml {
  return html`<section class="new-key" aria-labelledby="new-secret-title" tabindex="-1" id="new-secret">
<h2 id="new-secret-title">The signing secret</h2>
<p class="warning"><strong>Copy it now: it will not be shown again.</strong> Your receiver checks the
<code>webhook-signature</code> of each request with it (Standard Webhooks).</p>
<div class="copy-row"><label for="new-secret-value" class="vh">Signing secret</label>
<input id="new-secret-value" class="key" type="text" value="${secret}" readonly spellcheck="false" autocomplete="off">
<button type="button" class="primary" data-copy="new-secret-value">Copy</button></div>
<p class="copy-status" role="status" aria-live="polite"></p>
</section>`
}

function testPanel (d: DeliveryDetail): SafeHtml {
  const last = d.attempt_log[d.attempt_log.length - 1]
  const result = last && `${outcome(last.status_code, last.error)}, in ${last.duration_ms} ms`
  if (d.status === 'delivered') return html`<p class="notice" role="status" id="test-result">Test delivered: ${result}.</p>`
  return html`<div class="error-summary" role="alert" id="test-result"><h2>The test was not delivered</h2>
<p>${result ? `${result}.` : 'No attempt was made yet.'}${d.next_attempt_at && html` It is tried again at ${timeTag(d.next_attempt_at)}; its log is below.`}</p></div>`
}

function facts (c: NotificationChannel): SafeHtml {
  const config = c.config as Record<string, unknown>
  return html`<dl class="facts">
<div><dt>Type</dt><dd>${typeName(c.type)}</dd></div>
<div><dt>Sends</dt><dd>${eventsText(c)}</dd></div>
<div><dt>Monitors</dt><dd>${c.all_monitors ? 'Every monitor' : 'Chosen on each monitor'}</dd></div>
${configFields(c.type).filter((f) => config[f.key] !== undefined).map((f) => {
  const value = config[f.key]
  return html`<div><dt>${f.label}</dt><dd class="value">${Array.isArray(value) ? value.join(', ') : String(value)}</dd></div>`
})}
</dl>`
}

function attemptList (attempts: Attempt[] | undefined): SafeHtml {
  if (!attempts || attempts.length === 0) return html`<span class="muted">None yet</span>`
  return html`<ol class="attempts">${attempts.map((a) =>
    html`<li>${timeTag(a.at)}: ${outcome(a.status_code, a.error)}, ${a.duration_ms} ms</li>`)}</ol>`
}

function deliveryRows (c: NotificationChannel, deliveries: Delivery[], attempts: Map<string, Attempt[]>, editor: boolean): SafeHtml {
  return html`<div class="table-wrap"><table class="deliveries"><caption class="vh">Deliveries to ${c.name}, newest first</caption>
<thead><tr><th scope="col">Event</th><th scope="col">Status</th><th scope="col">Attempts</th><th scope="col">Next attempt</th><th scope="col"><span class="vh">Actions</span></th></tr></thead>
<tbody>${deliveries.map((d) => html`<tr id="delivery-${d.id}"><td>${EVENT_NAMES[d.event_type].short}<span class="url">${timeTag(d.created_at)}</span></td>
<td>${deliveryBadge(d.status)}${d.attempts > 0 && html`<span class="url">Last: ${outcome(d.last_status_code, d.last_error)}</span>`}</td>
<td>${d.attempts}${attemptList(attempts.get(d.id))}</td>
<td>${d.next_attempt_at ? timeTag(d.next_attempt_at) : html`<span class="muted">None</span>`}</td>
<td class="act">${editor && RETRYABLE.has(d.status) && html`<button form="channel-action" formaction="/settings/notifications/deliveries/${d.id}/retry" aria-label="Retry the ${EVENT_NAMES[d.event_type].short} delivery of ${utc(d.created_at)}">Retry</button>`}</td></tr>
`)}</tbody></table></div>`
}

export function channelPage (context: PageContext, options: {
  channel: NotificationChannel
  secret?: string
  tested?: DeliveryDetail
  deliveries: Delivery[]
  attempts: Map<string, Attempt[]>
  status?: DeliveryStatus
  before?: string
  nextBefore?: string
  notice?: string
}): SafeHtml {
  const { channel: c, status, deliveries } = options
  const base = `/settings/notifications/${c.id}`
  const filter = (value: DeliveryStatus | undefined, label: string) =>
    html`<li><a href="${value ? `${base}?status=${value}` : base}"${status === value ? html` aria-current="page"` : ''}>${label}</a></li>`
  const query = (before: string) => `${base}?${new URLSearchParams({ ...(status ? { status } : {}), before })}`
  const body = html`${settingsNav('notifications', context)}<p class="crumbs"><a href="/settings/notifications">Notifications</a> /</p>
<div id="channel-state" data-live="channel:${c.id}"><div class="title-row"><h1>${c.name}</h1> ${channelBadge(c)}</div>
${c.disabled_reason && html`<p class="warning">Turned off by Pingward: ${c.disabled_reason}. Edit it and tick Active to send again.</p>`}</div>
${options.secret && secretPanel(options.secret)}
${options.tested && testPanel(options.tested)}
${channelActionForm(context.csrfToken)}
${may(context, 'editor') && html`<p class="actions"><a class="button" href="${base}/edit">Edit</a>
${c.type === 'webhook' && html`<button form="channel-action" formaction="${base}/rotate-secret" data-confirm="Make a new signing secret? The old one keeps signing too for 24 hours.">Rotate secret</button>`}
${channelActions(c)}</p>`}
${facts(c)}
<section aria-labelledby="log-title" id="delivery-log" data-live="channel:${c.id}"><h2 id="log-title">Delivery log</h2>
<nav class="filters" aria-label="Filter by status"><ul>${filter(undefined, 'All')}${DELIVERY_STATUSES.map((s) => filter(s, STATUS_NAMES[s]))}</ul></nav>
${deliveries.length === 0
  ? html`<p class="empty">${options.before || status ? 'No deliveries here.' : 'Nothing sent yet: Send test sends one now.'}</p>`
  : deliveryRows(c, deliveries, options.attempts, may(context, 'editor'))}
<p class="pager">${options.before && html`<a href="${status ? `${base}?status=${status}` : base}">Newest deliveries</a> `}${options.nextBefore &&
  html`<a href="${query(options.nextBefore)}">Older deliveries</a>`}</p>
</section>`
  return page({ title: c.name, context, section: 'settings', notice: options.notice, body })
}
