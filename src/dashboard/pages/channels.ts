// Settings, then Notifications: the user's channels (with edit, test and delete) and a new channel of each type.
import { CHANNEL_TYPES, type ChannelType } from '../../domain/vocabulary.ts'
import type { NotificationChannel } from '../../notifications/schema.ts'
import { html, type SafeHtml } from '../../http/html.ts'
import { EVENT_NAMES, typeName } from './channel-form.ts'
import { csrfField, may, page, settingsNav, type PageContext } from './layout.ts'

/** Active, Off, or Turned off (by the service, e.g. after 410 Gone), as words. */
export function channelBadge (c: NotificationChannel): SafeHtml {
  if (c.is_active) return html`<span class="st st-up">Active</span>`
  return c.disabled_reason ? html`<span class="st st-down">Turned off</span>` : html`<span class="st st-paused">Off</span>`
}

/** The shared form of the row buttons: one CSRF field for the whole page. */
export const channelActionForm = (csrfToken: string) => html`<form id="channel-action" method="post" hidden>${csrfField(csrfToken)}</form>`

export function channelActions (c: NotificationChannel): SafeHtml {
  return html`<button form="channel-action" formaction="/settings/notifications/${c.id}/test" aria-label="Send a test to ${c.name}">Send test</button>
<button form="channel-action" formaction="/settings/notifications/${c.id}/delete" class="danger" data-confirm="Delete the channel ${c.name}, with its delivery log?" aria-label="Delete ${c.name}">Delete</button>`
}

export const eventsText = (c: NotificationChannel) => c.events.map((e) => EVENT_NAMES[e].short).join(', ')

function typeLinks (emailReady: boolean): SafeHtml {
  const item = (type: ChannelType) => type === 'email' && !emailReady
    ? html`<li><span class="button disabled">${typeName(type)}</span> <span class="muted">needs a mail server: the operator sets SMTP_URL</span></li>`
    : html`<li><a class="button" href="/settings/notifications/new?type=${type}">${typeName(type)}</a></li>`
  return html`<ul class="types">${CHANNEL_TYPES.map(item)}</ul>`
}

function channelRows (channels: NotificationChannel[], editor: boolean): SafeHtml {
  if (channels.length === 0) return html`<p class="empty">No channels yet: nobody is told when a monitor goes down.${editor ? ' Add one above.' : ''}</p>`
  return html`<div class="table-wrap"><table class="channels"><caption class="vh">Your notification channels</caption>
<thead><tr><th scope="col">Channel</th><th scope="col">Type</th><th scope="col">Sends</th><th scope="col">Monitors</th><th scope="col">Status</th><th scope="col"><span class="vh">Actions</span></th></tr></thead>
<tbody>${channels.map((c) => html`<tr><td class="name"><a href="/settings/notifications/${c.id}">${c.name}</a></td><td>${typeName(c.type)}</td>
<td>${eventsText(c)}</td><td>${c.all_monitors ? 'Every monitor' : 'Chosen on each monitor'}</td>
<td>${channelBadge(c)}${c.disabled_reason && html`<span class="url">${c.disabled_reason}</span>`}</td>
<td class="act">${editor && html`<a href="/settings/notifications/${c.id}/edit" aria-label="Edit ${c.name}">Edit</a>
${channelActions(c)}`}</td></tr>
`)}</tbody></table></div>`
}

export function channelsPage (context: PageContext, options: { channels: NotificationChannel[], emailReady: boolean, notice?: string }): SafeHtml {
  const body = html`${settingsNav('notifications', context)}
<h1>Notifications</h1>
<p>Channels tell people (or programs) when a monitor goes down and when it is up again. Each message is kept,
retried until it arrives for about two days, and listed in the channel's delivery log.</p>
${may(context, 'editor') && html`<section class="panel" aria-labelledby="add-channel-title"><h2 id="add-channel-title">Add a channel</h2>
${typeLinks(options.emailReady)}</section>`}
<section aria-labelledby="channels-title"><h2 id="channels-title">Your channels</h2>
${channelActionForm(context.csrfToken)}
${channelRows(options.channels, may(context, 'editor'))}</section>`
  return page({ title: 'Notifications', context, section: 'settings', notice: options.notice, body })
}
