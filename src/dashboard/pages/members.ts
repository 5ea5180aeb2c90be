// Settings, then Members: who is in the organization and their roles; an admin changes a role or removes a member.
import { ROLES, type Role } from '../../domain/vocabulary.ts'
import type { InvitationRow, MemberRow, OrganizationRow } from '../../organizations/repository.ts'
import { timeTag } from '../format.ts'
import { html, type SafeHtml } from '../../http/html.ts'
import { csrfField, may, page, settingsNav, type PageContext } from './layout.ts'

// What each role may do, as the role table of docs/teams.md says it (the Record makes a missing role a compile error).
const ROLE_POWERS: Record<Role, string> = {
  viewer: 'reads everything but secrets',
  responder: 'also acknowledges incidents and runs maintenance',
  editor: 'also creates, changes and deletes monitors and channels',
  admin: 'also manages members and the organization',
  owner: 'also makes owners and deletes the organization',
}

function memberRow (m: MemberRow, context: PageContext, selfId: string | undefined): SafeHtml {
  const manage = may(context, 'admin') && (m.role !== 'owner' || may(context, 'owner'))
  // An owner's role is offered only to owners; the last owner's refusal comes from the service.
  const choices = ROLES.filter((role) => role !== 'owner' || may(context, 'owner'))
  const label = m.userId === selfId ? html`${m.email} <span class="muted">(you)</span>` : html`${m.email}`
  if (!manage) return html`<tr><td>${label}</td><td>${m.role}</td><td>${timeTag(m.joinedAt)}</td><td></td></tr>`
  return html`<tr><td>${label}</td>
<td><form class="inline" method="post" action="/settings/members/${m.userId}/role">${csrfField(context.csrfToken)}
<label for="role-${m.userId}" class="vh">Role of ${m.email}</label>
<select id="role-${m.userId}" name="role">${choices.map((role) => html`<option value="${role}"${role === m.role ? html` selected` : ''}>${role}</option>`)}</select>
<button type="submit">Save</button></form></td>
<td>${timeTag(m.joinedAt)}</td>
<td><button form="member-action" formaction="/settings/members/${m.userId}/remove" class="danger" data-confirm="Remove ${m.email} from the organization? The keys they made here stop working at once." aria-label="Remove ${m.email}">Remove</button></td></tr>`
}

function invitePanel (context: PageContext, invitations: InvitationRow[], created: { email: string, url: string, mailed: boolean } | undefined, error: string | undefined): SafeHtml {
  const choices = ROLES.filter((role) => role !== 'owner' || may(context, 'owner'))
  return html`<section class="panel" aria-labelledby="invite-title"><h2 id="invite-title">Invite someone</h2>
${created && html`<div class="new-key" id="new-invitation" tabindex="-1"><p class="warning"><strong>Send ${created.email} this link: it is shown only now.</strong>
It works once, for 7 days, for whoever signs in as ${created.email}${created.mailed ? ', and it is on its way to them by mail' : ''}.</p>
<div class="copy-row"><label for="invitation-url" class="vh">Invitation link</label>
<input id="invitation-url" class="key" type="text" value="${created.url}" readonly spellcheck="false" autocomplete="off">
<button type="button" class="primary" data-copy="invitation-url">Copy</button></div><p class="copy-status" role="status" aria-live="polite"></p></div>`}
${error && html`<p class="error" role="alert">${error}</p>`}
<form method="post" action="/settings/members/invitations" class="inline">${csrfField(context.csrfToken)}
<label for="invite-email">Email</label> <input id="invite-email" name="email" type="email" required autocomplete="off">
<label for="invite-role">Role</label> <select id="invite-role" name="role">${choices.map((role) => html`<option value="${role}"${role === 'viewer' ? html` selected` : ''}>${role}</option>`)}</select>
<button type="submit" class="primary">Invite</button></form>
${invitations.length > 0 && html`<h3>Waiting to be accepted</h3><ul class="invitations">${invitations.map((i) => html`<li>${i.email} as ${i.role}, until ${timeTag(i.expiresAt)}
<button form="member-action" formaction="/settings/members/invitations/${i.id}/revoke" class="danger" aria-label="Revoke the invitation of ${i.email}">Revoke</button></li>`)}</ul>`}
</section>`
}

export function membersPage (context: PageContext, options: {
  members: MemberRow[]
  userId: string
  invitations: InvitationRow[]
  organization: OrganizationRow
  deleteError?: string
  created?: { email: string, url: string, mailed: boolean }
  error?: string
  notice?: string
}): SafeHtml {
  const body = html`${settingsNav('members', context)}
<h1>Members</h1>
<p>Everyone in this organization. Each role includes the ones above it:</p>
<ul>${ROLES.map((role) => html`<li><strong>${role}</strong>: ${ROLE_POWERS[role]}</li>`)}</ul>
<p class="muted">A key acts with the lower of its scope and its maker's current role. An organization always keeps an owner.</p>
<form id="member-action" method="post" hidden>${csrfField(context.csrfToken)}</form>
<div class="table-wrap"><table class="members"><caption class="vh">Members</caption>
<thead><tr><th scope="col">Email</th><th scope="col">Role</th><th scope="col">Joined</th><th scope="col"><span class="vh">Actions</span></th></tr></thead>
<tbody>${options.members.map((m) => memberRow(m, context, options.userId))}</tbody></table></div>
${may(context, 'admin') && invitePanel(context, options.invitations, options.created, options.error)}
${may(context, 'owner') && options.organization.personalUserId === null && deletePanel(context, options.organization, options.deleteError)}`
  return page({ title: 'Members', context, section: 'settings', notice: options.notice, body })
}

function deletePanel (context: PageContext, organization: OrganizationRow, error: string | undefined): SafeHtml {
  return html`<section class="panel danger-zone" aria-labelledby="delete-title"><h2 id="delete-title">Delete this organization</h2>
<p>Deletes ${organization.name} with everything it holds: monitors and their history, channels, API keys, members, invitations
and the audit log. Members keep their accounts. This cannot be undone.</p>
${error && html`<p class="error" role="alert">${error}</p>`}
<form method="post" action="/settings/members/delete-organization" class="inline">${csrfField(context.csrfToken)}
<label for="confirm-delete">Type <code>${organization.slug}</code> to confirm</label>
<input id="confirm-delete" name="confirm" type="text" autocomplete="off" spellcheck="false">
<button type="submit" class="danger">Delete organization</button></form></section>`
}

/** An invitation to accept: which organization, which role, and the button. */
export function invitationPage (context: PageContext, options: { token: string, orgName: string, role: Role }): SafeHtml {
  const body = html`<div class="narrow"><h1>Join ${options.orgName}</h1>
<p>You are invited to join <strong>${options.orgName}</strong> as <strong>${options.role}</strong>: ${ROLE_POWERS[options.role]}.</p>
<form method="post" action="/invitations/${options.token}">${csrfField(context.csrfToken)}
<p class="actions"><button type="submit" class="primary">Accept and join</button></p></form></div>`
  return page({ title: `Join ${options.orgName}`, context, body })
}
