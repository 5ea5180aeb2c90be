// What "up" means for one monitor, on its page: what it checks, its kind's facts, its certificate, why it failed.
import type { Check } from '../../schemas/check.ts'
import type { Monitor } from '../../monitors/schema.ts'
import { certificateExpiry, count, timeTag } from '../format.ts'
import { html, type SafeHtml } from '../../http/html.ts'
import { KIND_LABELS } from './monitor-kinds.ts'

/** The line under the title: what is checked (as text, never a link: a tcp:// or dns:// URL opens nothing). */
export function target (m: Monitor): SafeHtml {
  if (m.monitor_type === 'heartbeat') return html`<p class="url">Heartbeat: not checked, your job pings Pingward</p>`
  return html`<p class="url">${m.monitor_type === 'site' ? `${m.method} ` : ''}${m.url}</p>`
}

/** The latest check's reason when it failed or was degraded, above everything else. */
export function latestProblem (latest: Check | undefined): SafeHtml {
  if (!latest?.error_message) return html``
  const [kind, words] = latest.is_up ? ['degraded', 'Latest check was slow:'] : ['down', 'Latest check failed:']
  return html`<p class="latest-error latest-${kind}"><strong>${words}</strong> ${latest.error_message}</p>`
}

const fact = (term: string, value: SafeHtml | string | number, valueClass?: string) =>
  html`<div><dt>${term}</dt><dd${valueClass && html` class="${valueClass}"`}>${value}</dd></div>`

export function kindFacts (m: Monitor, now: Date): SafeHtml[] {
  const facts = [fact('Kind', KIND_LABELS[m.monitor_type])]
  if (m.monitor_type === 'heartbeat') {
    facts.push(
      fact('Last ping', timeTag(m.last_checked_at)),
      fact('Expects a ping every', `${m.interval_minutes} min`),
      fact('Grace', `${m.grace_minutes ?? 0} min`)
    )
    return facts
  }
  facts.push(fact('Last check', timeTag(m.last_checked_at)), fact('Checked every', `${m.interval_minutes} min`))
  if (m.monitor_type === 'site') facts.push(fact('Expected status', m.expected_status))
  if (m.monitor_type === 'dns') {
    facts.push(
      fact('Record type', m.dns_record_type ?? ''),
      m.dns_expected === null
        ? fact('Expected values', html`<span class="muted">Any answer</span>`)
        : fact('Expected values', html`<ul class="headers">${m.dns_expected.map((v) => html`<li>${v}</li>`)}</ul>`, 'value')
    )
  }
  facts.push(fact('Timeout', `${m.timeout_seconds} s`))
  if (m.monitor_type === 'site' && m.tls_expires_at) {
    facts.push(fact('Certificate expires', html`${timeTag(m.tls_expires_at)} ${certificateExpiry(m.tls_expires_at, now)}${
      m.tls_issuer && html` <span class="muted">(${m.tls_issuer})</span>`}`))
  }
  return facts
}

/** A heartbeat's ping URL with a Copy button and the curl lines to use it; its token is a ping's only credential. */
export function pingSection (m: Monitor): SafeHtml {
  if (m.monitor_type !== 'heartbeat' || m.ping_url === null) return html``
  const curl = (url: string) => `curl -fsS -m 10 --retry 3 ${url}`
  return html`<section class="panel" aria-labelledby="ping-title"><h2 id="ping-title">Ping URL</h2>
<p>Your job requests this address (GET or POST) each time it runs well; <code>/fail</code> after it reports a failure at once.
Down when no ping comes within ${count(m.interval_minutes)} + ${count(m.grace_minutes ?? 0)} minutes. No API key is needed: keep it secret.</p>
<div class="copy-row"><label for="ping-url" class="vh">Ping URL of ${m.name}</label>
<input id="ping-url" class="key" type="text" value="${m.ping_url}" readonly spellcheck="false" autocomplete="off">
<button type="button" class="primary" data-copy="ping-url">Copy</button></div>
<p class="copy-status" role="status" aria-live="polite"></p>
<p>At the end of a cron job, for example:</p>
<pre class="curl"><code># when the job succeeds
${curl(m.ping_url)}
# when it fails
${curl(`${m.ping_url}/fail`)}</code></pre>
</section>`
}
