// Locations: where checks run from, each online or offline (an icon and a word), last seen and its version; admins
// add an agent location (its token shown once), rotate its token and delete it.
import { LOCATION_CODE, LOCATION_TIMING } from '../../domain/locations.ts'
import type { FieldError } from '../../http/validation.ts'
import { html, type SafeHtml } from '../../http/html.ts'
import type { LocationLag } from '../../locations/repository.ts'
import type { Location } from '../../locations/schema.ts'
import type { FormFields } from '../form-input.ts'
import { ago } from '../format.ts'
import { errorSummary, inputField } from './forms.ts'
import { csrfField, may, page, type PageContext } from './layout.ts'

const LABELS: Record<string, string> = { code: 'Code', name: 'Name' }

/** A location as the page lists it: with its lag, when its checks of the window carry slots. */
export type LocationLine = Location & { lag: LocationLag | null }

/** A token just made, and the location it is of. */
export interface ShownToken { code: string, name: string, token: string }

function status (location: LocationLine): SafeHtml {
  if (location.online) return html`<span class="st st-up"><span aria-hidden="true">●</span> Online</span>`
  if (location.last_seen_at === null) return html`<span class="st st-pending"><span aria-hidden="true">○</span> Never seen</span>`
  return html`<span class="st st-down"><span aria-hidden="true">○</span> Offline</span>`
}

function tokenPanel (shown: ShownToken): SafeHtml {
  return html`<section class="new-key" aria-labelledby="new-token-title" tabindex="-1" id="new-token">
<h2 id="new-token-title">The agent token of ${shown.name}</h2>
<p class="warning"><strong>Copy it now: it will not be shown again.</strong> Pingward keeps only a hash of it.
If you lose it, rotate the token and use the new one.</p>
<div class="copy-row"><label for="new-token-value" class="vh">Agent token of ${shown.name}</label>
<input id="new-token-value" class="key" type="text" value="${shown.token}" readonly spellcheck="false" autocomplete="off">
<button type="button" class="primary" data-copy="new-token-value">Copy</button></div>
<p class="copy-status" role="status" aria-live="polite"></p>
<p class="muted">The agent of <code>${shown.code}</code> sends it as <code>Authorization: Bearer ${shown.token.slice(0, 11)}…</code>.</p>
</section>`
}

function lagText (lag: LocationLag | null, windowMinutes: number): SafeHtml {
  if (lag === null) return html`<span class="muted">No checks</span><span class="vh"> in the last ${windowMinutes} minutes</span>`
  const median = lag.medianMs < 1000 ? `${lag.medianMs} ms` : `${(lag.medianMs / 1000).toFixed(1)} s`
  return html`${median}<span class="muted"> (${lag.checks} check${lag.checks === 1 ? '' : 's'})</span>`
}

function locationRows (locations: LocationLine[], context: PageContext, windowMinutes: number): SafeHtml {
  const admin = may(context, 'admin')
  return html`<form id="location-action" method="post" hidden>${csrfField(context.csrfToken)}</form>
<div class="table-wrap"><table class="locations"><caption class="vh">Locations</caption>
<thead><tr><th scope="col">Location</th><th scope="col">Kind</th><th scope="col">Status</th><th scope="col">Last seen</th><th scope="col">Lag</th><th scope="col">Version</th><th scope="col"><span class="vh">Actions</span></th></tr></thead>
<tbody>${locations.map((l) => html`<tr><td class="name">${l.name}<span class="url"><code>${l.code}</code></span></td>
<td>${l.kind === 'builtin' ? 'Built-in checker' : 'Agent'}</td><td>${status(l)}</td><td>${ago(l.last_seen_at, context.now)}</td>
<td>${lagText(l.lag, windowMinutes)}</td>
<td>${l.version ?? html`<span class="muted">Unknown</span>`}</td>
<td class="act">${admin && l.kind === 'agent' && html`<button form="location-action" formaction="/locations/${l.code}/rotate-token" data-confirm="Rotate the token of ${l.name}? Its agent is refused until it has the new one." aria-label="Rotate the token of ${l.name}">Rotate token</button>
<button form="location-action" formaction="/locations/${l.code}/delete" class="danger" data-confirm="Delete the location ${l.name}? Its agent is refused at once." aria-label="Delete ${l.name}">Delete</button>`}</td></tr>
`)}</tbody></table></div>`
}

function locationForm (context: PageContext, values: FormFields, error: FieldError | null): SafeHtml {
  const common = { form: 'location', error }
  return html`<section class="panel" aria-labelledby="new-location-title"><h2 id="new-location-title">Add an agent location</h2>
${errorSummary('The location was not added', error, LABELS, 'location')}
<form method="post" action="/locations" id="location" novalidate>${csrfField(context.csrfToken)}
${inputField({ ...common, name: 'code', label: LABELS.code, value: values.code ?? '', required: true, autocomplete: 'off', placeholder: 'office-berlin', hint: `How the API names it: ${LOCATION_CODE.rule}.` })}
${inputField({ ...common, name: 'name', label: LABELS.name, value: values.name ?? '', required: true, placeholder: 'Berlin office', hint: 'What people call it.' })}
<p class="actions"><button type="submit" class="primary">Add location</button></p>
</form></section>`
}

export function locationsPage (context: PageContext, options: {
  locations: LocationLine[]
  /** The minutes of checks the lag is the median of. */
  lagWindowMinutes: number
  shown?: ShownToken
  values: FormFields
  error: FieldError | null
  notice?: string
}): SafeHtml {
  const body = html`<h1>Locations</h1>
<p>Where checks run from: the checker processes of this installation (built in, each started with
<code>CHECKER_LOCATION</code>) and this organization's probe agents, each with its own token. A location is online
while it was seen within the last ${LOCATION_TIMING.onlineWithinMs / 1000} seconds. Its lag is how late its checks of this
organization's monitors started after their time slots: the median over the last ${options.lagWindowMinutes} minutes.</p>
${options.shown && tokenPanel(options.shown)}
<section aria-labelledby="locations-title"><h2 id="locations-title">Locations</h2>
${options.locations.length === 0 ? html`<p class="empty">No locations yet: a checker adds its own when it starts.</p>` : locationRows(options.locations, context, options.lagWindowMinutes)}</section>
${may(context, 'admin') && locationForm(context, options.values, options.error)}`
  return page({ title: 'Locations', context, section: 'locations', notice: options.notice, body })
}
