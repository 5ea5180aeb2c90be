// Settings, then API Keys: create a key (shown once, with a copy button), list keys, delete (revoke) them.
import { API_KEY_SCOPES, type ApiKeyScope } from '../../domain/vocabulary.ts'
import type { ApiKeyRecord } from '../../repositories/api-keys.ts'
import { KEY_EXPIRY_MAX_DAYS } from '../../schemas/api-key.ts'
import type { FieldError } from '../../http/validation.ts'
import type { FormFields } from '../form-input.ts'
import { timeTag } from '../format.ts'
import { errorSummary, inputField, selectField } from './forms.ts'
import { html, type SafeHtml } from '../../http/html.ts'
import { csrfField, page, settingsNav, type PageContext } from './layout.ts'

const KEY_LABELS: Record<string, string> = { name: 'Name', scope: 'Scope', expires_in_days: 'Expires in (days)' }
// A label for every scope of the vocabulary (the Record's type makes a missing one a compile error).
const SCOPE_NAMES: Record<ApiKeyScope, { short: string, long: string }> = {
  read: { short: 'Read', long: 'Read: list and view only' },
  write: { short: 'Write', long: 'Write: also create, change and delete' },
}
const SCOPE_OPTIONS = API_KEY_SCOPES.map((scope) => ({ value: scope, label: SCOPE_NAMES[scope].long }))

function newKeyPanel (key: string, record: ApiKeyRecord): SafeHtml {
  return html`<section class="new-key" aria-labelledby="new-key-title" tabindex="-1" id="new-key">
<h2 id="new-key-title">Your new API key</h2>
<p class="warning"><strong>Copy it now: it will not be shown again.</strong> Pingward keeps only a hash of it.
If you lose it, delete it and create another.</p>
<div class="copy-row"><label for="new-key-value" class="vh">New API key ${record.name}</label>
<input id="new-key-value" class="key" type="text" value="${key}" readonly spellcheck="false" autocomplete="off">
<button type="button" class="primary" data-copy="new-key-value">Copy</button></div>
<p class="copy-status" role="status" aria-live="polite"></p>
<p class="muted">Use it as <code>Authorization: Bearer ${key.slice(0, 11)}…</code> on <code>/api/v1</code>.</p>
</section>`
}

function keyRows (keys: ApiKeyRecord[], csrfToken: string, now: Date): SafeHtml {
  if (keys.length === 0) return html`<p class="empty">No API keys. Create one above to use the API.</p>`
  return html`<form id="key-action" method="post" hidden>${csrfField(csrfToken)}</form>
<div class="table-wrap"><table class="keys"><caption class="vh">Your API keys</caption>
<thead><tr><th scope="col">Name</th><th scope="col">Prefix</th><th scope="col">Scope</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">Expires</th><th scope="col"><span class="vh">Actions</span></th></tr></thead>
<tbody>${keys.map((k) => html`<tr><td>${k.name}</td><td><code>${k.prefix}…</code></td><td>${SCOPE_NAMES[k.scope].short}</td>
<td>${timeTag(k.createdAt)}</td><td>${timeTag(k.lastUsedAt)}</td>
<td>${k.expiresAt && k.expiresAt <= now ? html`<span class="st st-down">Expired</span>` : timeTag(k.expiresAt)}</td>
<td><button form="key-action" formaction="/settings/api-keys/${k.id}/delete" class="danger" data-confirm="Delete the key ${k.name}? Requests with it are refused at once." aria-label="Delete key ${k.name}">Delete</button></td></tr>`)}</tbody></table></div>`
}

export function keysPage (context: PageContext, options: {
  keys: ApiKeyRecord[]
  created?: { key: string, record: ApiKeyRecord }
  values: FormFields
  error: FieldError | null
  notice?: string
}): SafeHtml {
  const { values, error } = options
  const common = { form: 'new-key-form', error }
  const body = html`${settingsNav('api-keys', context)}
<h1>API Keys</h1>
<p>Keys let programs use the <a href="/docs">API</a> as you, in this organization: send one as <code>Authorization: Bearer sk_…</code>.
A read key may only read; a write key may do what your role here allows, and no more when your role changes.</p>
${options.created && newKeyPanel(options.created.key, options.created.record)}
<section class="panel" aria-labelledby="create-key-title"><h2 id="create-key-title">Create a key</h2>
<form id="new-key-form" method="post" action="/settings/api-keys" novalidate>
${errorSummary('The key was not created', error, KEY_LABELS, 'new-key-form')}
${csrfField(context.csrfToken)}
${inputField({ ...common, name: 'name', label: KEY_LABELS.name, value: values.name ?? '', required: true, autocomplete: 'off', hint: 'What the key is for, e.g. "deploy script".' })}
${selectField({ ...common, name: 'scope', label: KEY_LABELS.scope, value: values.scope ?? 'read', options: SCOPE_OPTIONS })}
${inputField({ ...common, name: 'expires_in_days', label: KEY_LABELS.expires_in_days, type: 'number', inputmode: 'numeric', value: values.expires_in_days ?? '', hint: `Optional, 1-${KEY_EXPIRY_MAX_DAYS}. Leave empty for a key that does not expire.` })}
<p class="actions"><button type="submit" class="primary">Create key</button></p>
</form></section>
<section aria-labelledby="keys-title"><h2 id="keys-title">Your keys</h2>
${keyRows(options.keys, context.csrfToken, context.now)}</section>`
  return page({ title: 'API Keys', context, section: 'settings', notice: options.notice, body })
}
