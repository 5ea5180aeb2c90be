// Sign-in and first-password setup pages.
import { PASSWORD_MIN_LENGTH } from '../../auth/passwords.ts'
import type { FieldError } from '../../http/validation.ts'
import { errorSummary, inputField } from './forms.ts'
import { html, type SafeHtml } from '../../http/html.ts'
import { csrfField, page, type PageContext } from './layout.ts'

export function signInPage (context: PageContext, options: {
  email: string
  next: string
  error?: string
  notice?: string
  /** Set when no user has a password yet: how to set the first one (for this email). */
  firstRunEmail?: string
  /** Whether passwords are taken, and the OpenID provider's name when there is one. */
  passwords: boolean
  provider?: string
}): SafeHtml {
  const single = options.provider && html`<p class="actions"><a class="button primary" href="/sign-in/oidc?next=${encodeURIComponent(options.next)}">Sign in with ${options.provider}</a></p>`
  const body = html`<div class="narrow">
<h1>Sign in to Pingward</h1>
${options.firstRunEmail && html`<div class="panel info"><h2>No password is set yet</h2>
<p>Open the setup link that the server printed when it started, or set a password on the command line:</p>
<pre><code>npm run -s cli -- users password ${options.firstRunEmail}</code></pre></div>`}
${single}
${options.passwords && html`${single && html`<p class="muted">Or with a password:</p>`}<form method="post" action="/sign-in" novalidate>
${options.error && html`<div class="error-summary" role="alert"><p>${options.error}</p></div>`}
${csrfField(context.csrfToken)}
<input type="hidden" name="next" value="${options.next}">
${inputField({ name: 'email', label: 'Email', type: 'email', value: options.email, autocomplete: 'username', required: true })}
${inputField({ name: 'password', label: 'Password', type: 'password', autocomplete: 'current-password', required: true })}
<p class="actions"><button type="submit" class="${single ? '' : 'primary'}">Sign in</button></p>
</form>`}</div>`
  return page({ title: 'Sign in', context, notice: options.notice, body })
}

const SETUP_LABELS = { password: 'New password', confirm: 'Repeat the password' }

export function setupPage (context: PageContext, options: { email: string, token: string, error: FieldError | null }): SafeHtml {
  const body = html`<div class="narrow">
<h1>Set your password</h1>
<p>Choose the dashboard password of <strong>${options.email}</strong>. This link works once.</p>
<form method="post" action="/setup" novalidate>
${errorSummary('The password was not set', options.error, SETUP_LABELS)}
${csrfField(context.csrfToken)}
<input type="hidden" name="token" value="${options.token}">
<input type="text" name="username" value="${options.email}" autocomplete="username" hidden>
${inputField({ name: 'password', label: SETUP_LABELS.password, type: 'password', autocomplete: 'new-password', required: true, error: options.error, hint: `At least ${PASSWORD_MIN_LENGTH} characters.` })}
${inputField({ name: 'confirm', label: SETUP_LABELS.confirm, type: 'password', autocomplete: 'new-password', required: true, error: options.error })}
<p class="actions"><button type="submit" class="primary">Set password and sign in</button></p>
</form></div>`
  return page({ title: 'Set your password', context, body })
}
