// Microsoft Teams (a Workflows webhook URL or a legacy incoming webhook): one Adaptive Card, the format both take.
import { humanText, truncate, type Tone } from '../message.ts'
import { configText, jsonPost } from './fields.ts'
import type { ChannelAdapter } from './types.ts'

// The TextBlock colours of the Adaptive Card schema.
const COLOR: Record<Tone, string> = { down: 'Attention', degraded: 'Warning', up: 'Good', flap: 'Warning', expiring: 'Warning', info: 'Default' }

// A Teams message is at most about 28 KB: a digest shows its first events and counts the rest.
const DIGEST_ITEMS = 40

export const teamsAdapter: ChannelAdapter = {
  forPeople: true,
  render: (channel, message, context) => {
    const text = humanText(channel, message, context)
    const body: unknown[] = [{ type: 'TextBlock', text: text.title, size: 'Large', weight: 'Bolder', color: COLOR[text.tone], wrap: true }]
    if (text.facts.length) body.push({ type: 'FactSet', facts: text.facts.map((fact) => ({ title: fact.label, value: fact.value })) })
    for (const item of text.items.slice(0, DIGEST_ITEMS)) {
      body.push({ type: 'TextBlock', text: truncate(item.line, 500), color: COLOR[item.tone], wrap: true, spacing: 'Small' })
    }
    if (text.items.length > DIGEST_ITEMS) {
      body.push({ type: 'TextBlock', text: `…and ${text.items.length - DIGEST_ITEMS} more`, isSubtle: true, wrap: true })
    }
    return jsonPost(configText(channel, 'webhook_url'), {
      type: 'message',
      attachments: [{
        contentType: 'application/vnd.microsoft.card.adaptive',
        contentUrl: null,
        content: {
          $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
          type: 'AdaptiveCard',
          version: '1.4',
          body,
          actions: [{ type: 'Action.OpenUrl', title: text.link.label, url: text.link.url }],
        },
      }],
    })
  },
}
