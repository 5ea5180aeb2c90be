// Email: a plain-text mail; an incident's "resolved" mail answers its "opened" one, so that the two thread.
import { humanText, incidentOf, isOpening, openingHeadline, plainBody } from '../message.ts'
import type { ChannelAdapter, ChannelForSending, Message, SendContext } from './types.ts'

const SUBJECT_PREFIX = '[Pingward] '

/** `<{local}@{host of PUBLIC_URL}>`: ids this instance makes, unique per incident, the same on every retry. */
function messageId (context: SendContext, local: string): string {
  return `<${local}@${new URL(context.publicUrl).hostname}>`
}

function recipients (channel: ChannelForSending): string[] {
  const to = channel.config.to
  if (!Array.isArray(to) || to.length === 0) throw new Error(`the email channel ${channel.id} has no addresses in its config`)
  return to.map(String)
}

function threading (message: Message, title: string, context: SendContext): { subject: string, messageId: string, inReplyTo?: string } {
  if (message.kind === 'digest') return { subject: SUBJECT_PREFIX + title, messageId: messageId(context, `digest-${message.told[0]?.id}`) }
  const told = message.kind === 'flap' ? message.opened : message.told
  const parts = incidentOf(told)
  if (!parts) return { subject: SUBJECT_PREFIX + title, messageId: messageId(context, `event-${told.id}`) }
  const opened = messageId(context, `incident-${parts.incident.id}`)
  // The "opened" mail, or a flap, which tells the whole incident in the incident's one mail.
  if (message.kind === 'flap' || isOpening(told)) return { subject: SUBJECT_PREFIX + title, messageId: opened }
  // Clients thread on In-Reply-To and on the subject, so the answer keeps the opened mail's subject.
  return {
    subject: `Re: ${SUBJECT_PREFIX}${openingHeadline(parts.monitor, parts.incident)}`,
    messageId: messageId(context, `incident-${parts.incident.id}-resolved`),
    inReplyTo: opened,
  }
}

export const emailAdapter: ChannelAdapter = {
  forPeople: true,
  render: (channel, message, context) => {
    const text = humanText(channel, message, context)
    return {
      kind: 'email',
      to: recipients(channel),
      ...threading(message, text.title, context),
      // The title heads the body too: an answer's subject ("Re: … is down") does not say it is up again.
      text: `${text.title}\n\n${plainBody(text)}\n`,
    }
  },
}
