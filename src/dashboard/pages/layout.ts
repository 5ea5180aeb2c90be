// The page shell of the dashboard: head, skip link, header with navigation and sign-out, main, notices.
import { includesRole } from '../../domain/roles.ts'
import type { Role } from '../../domain/vocabulary.ts'
import { html, type SafeHtml } from '../../http/html.ts'
import { assetPath } from '../assets.ts'
import { CSRF_FIELD } from '../session.ts'

export interface PageContext {
  /** The signed-in user's email, or null on the sign-in and setup pages. */
  email: string | null
  /** The organization shown and the user's role there; null before sign-in. */
  organization: { id: string, role: Role } | null
  /** The user's organizations, for the switcher. */
  organizations: Array<{ id: string, name: string }>
  csrfToken: string
  now: Date
}

/** Whether the signed-in user's role allows what `needed` allows: a page shows only what its reader may do. */
export const may = (context: PageContext, needed: Role): boolean =>
  context.organization !== null && includesRole(context.organization.role, needed)

/** The organization's name and, for a member of several, a form to show another. */
function organizationSwitcher (context: PageContext): SafeHtml | '' {
  const current = context.organization
  if (!current) return ''
  const name = context.organizations.find((o) => o.id === current.id)?.name ?? ''
  if (context.organizations.length < 2) return html`<span class="org">${name} <span class="who">(${current.role})</span></span>`
  return html`<form class="org" method="post" action="/organization">${csrfField(context.csrfToken)}
<label for="org-switch" class="vh">Organization</label>
<select id="org-switch" name="org_id">${context.organizations.map((o) => html`<option value="${o.id}"${o.id === current.id ? html` selected` : ''}>${o.name}</option>`)}</select>
<button type="submit" class="link">Switch</button> <span class="who">(${current.role})</span></form>`
}

export type Section = 'monitors' | 'maintenance' | 'status-pages' | 'locations' | 'settings' | null

/** Messages shown after a redirect, chosen by a fixed code so that no text comes from the URL. */
const NOTICES: Record<string, string> = {
  'monitor-created': 'Monitor created. Its first check comes within seconds.',
  'heartbeat-created': 'Heartbeat created. Point your job at its ping URL below: it goes down when no ping comes in time.',
  'monitor-saved': 'Monitor saved.',
  'monitor-paused': 'Monitor paused: it is not checked until you resume it.',
  'monitor-resumed': 'Monitor resumed: its next check comes within seconds.',
  'monitor-deleted': 'Monitor deleted.',
  'key-deleted': 'API key deleted: requests with it are refused from now on.',
  'channel-created': 'Channel created. Send a test to see that it arrives.',
  'channel-saved': 'Channel saved.',
  'channel-deleted': 'Channel deleted: nothing more is sent to it.',
  'incident-acknowledged': 'Acknowledged: you are on it. Channels that want acknowledgements are told.',
  'incident-resolved': 'The incident resolved before it was acknowledged: a note still can be added.',
  'note-added': 'Note added to the timeline.',
  'window-created': 'Maintenance window saved.',
  'window-started': 'Maintenance started: its monitors tell no one until it ends.',
  'window-ended': 'Maintenance ended: its monitors tell again, and what opened inside and is still open is told now.',
  'window-cancelled': 'Maintenance window cancelled: it does not start again.',
  'window-deleted': 'Maintenance window deleted.',
  'window-not-active': 'That window is not under way: there was nothing to end.',
  'window-cancelled-already': 'That window is cancelled: it cannot be started.',
  'status-page-created': 'Status page created. Add its components; it answers at its address once published.',
  'status-page-saved': 'Status page saved.',
  'status-page-deleted': 'Status page deleted, with its components.',
  'domain-verified': 'Custom domain verified: it serves the page from now on.',
  'component-added': 'Component added to the page.',
  'component-saved': 'Component status saved.',
  'component-deleted': 'Component deleted: the reports that named it forget it.',
  'report-created': 'Report published on its pages.',
  'report-saved': 'Report saved.',
  'report-updated': 'Update posted: the report\'s pages show it.',
  'report-deleted': 'Report deleted from every page.',
  'delivery-retried': 'The delivery is due again: it is sent within seconds.',
  'location-deleted': 'Location deleted: its agent\'s token is refused from now on.',
  'location-builtin': 'That location is built in: it belongs to the checker processes started with its code, and cannot be deleted.',
  'member-saved': 'Role saved: the member\'s keys act with it from their next request.',
  'member-removed': 'Member removed, with the keys they made here.',
  'invitation-revoked': 'Invitation revoked: its link no longer works.',
  'invitation-accepted': 'Welcome: you are a member now, and this is the organization you joined.',
  'organization-deleted': 'The organization is deleted, with everything it held. This is your own organization.',
  'signed-out': 'You have signed out.',
  'password-set': 'Your password is set and you are signed in.',
}

export function csrfField (token: string): SafeHtml {
  return html`<input type="hidden" name="${CSRF_FIELD}" value="${token}">`
}

export function navLink (href: string, label: string, current: boolean): SafeHtml {
  return html`<li><a href="${href}"${current ? html` aria-current="page"` : ''}>${label}</a></li>`
}

// Each settings page with the least role that may open it.
const SETTINGS_PAGES = [
  ['api-keys', '/settings/api-keys', 'API Keys', 'viewer'], ['notifications', '/settings/notifications', 'Notifications', 'viewer'],
  ['members', '/settings/members', 'Members', 'viewer'], ['audit-log', '/settings/audit-log', 'Audit log', 'admin'],
] as const

export function settingsNav (current: typeof SETTINGS_PAGES[number][0], context: PageContext): SafeHtml {
  return html`<nav class="subnav" aria-label="Settings"><ul>
${SETTINGS_PAGES.filter(([, , , role]) => may(context, role)).map(([name, href, label]) => navLink(href, label, name === current))}
</ul></nav>`
}

export function page (options: {
  title: string
  context: PageContext
  section?: Section
  notice?: string
  body: SafeHtml | SafeHtml[]
}): SafeHtml {
  const { title, context, section = null, notice, body } = options
  const noticeText = notice ? NOTICES[notice] : undefined
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Pingward</title>
<link rel="stylesheet" href="${assetPath('dashboard.css')}">
<link rel="icon" href="${assetPath('favicon.svg')}" type="image/svg+xml">
<script src="${assetPath('dashboard.js')}" defer></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="top">
<a class="brand" href="/">Pingward</a>
${context.email && html`<nav aria-label="Main"><ul>
${navLink('/', 'Monitors', section === 'monitors')}
${navLink('/maintenance', 'Maintenance', section === 'maintenance')}
${navLink('/status-pages', 'Status pages', section === 'status-pages')}
${navLink('/locations', 'Locations', section === 'locations')}
${navLink('/settings/api-keys', 'Settings', section === 'settings')}
</ul></nav>
${organizationSwitcher(context)}
<form class="sign-out" method="post" action="/sign-out">${csrfField(context.csrfToken)}
<span class="who">${context.email}</span> <button type="submit" class="link">Sign out</button></form>`}
</header>
<main id="main" tabindex="-1">
${noticeText && html`<p class="notice" role="status">${noticeText}</p>`}
${body}
</main>
<footer class="bottom"><a href="/docs">API documentation</a></footer>
</body>
</html>
`
}

export function errorPage (context: PageContext, status: number, message: string): SafeHtml {
  const titles: Record<number, string> = {
    400: 'Bad request',
    403: 'Forbidden',
    404: 'Not found',
    413: 'Too large',
    415: 'Unsupported form',
    429: 'Too many requests',
    503: 'Service unavailable',
  }
  const title = titles[status] ?? (status >= 500 ? 'Something went wrong' : 'Request refused')
  return page({
    title,
    context,
    body: html`<h1>${title}</h1><p>${message}</p><p><a href="/">Back to the monitors</a></p>`,
  })
}
