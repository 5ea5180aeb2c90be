// Slack incoming webhook: `text` (what the phone's notification shows) and Block Kit `blocks` (what the channel shows).
import { fitLines, humanText, truncate, type HumanText, type Tone } from '../message.ts'
import { configText, jsonPost } from './fields.ts'
import type { ChannelAdapter } from './types.ts'

const EMOJI: Record<Tone, string> = { down: ':red_circle:', degraded: ':warning:', up: ':large_green_circle:', flap: ':warning:', expiring: ':hourglass_flowing_sand:', info: ':information_source:' }

// Slack's limits: a header's text 150 characters, a section's text 3,000, a field's 2,000, at most 10 fields.
const HEADER_MAX = 150
const SECTION_MAX = 3000
const FIELD_MAX = 2000

/** Slack reads `&`, `<` and `>` as markup (`<url|label>`), so text from a monitor escapes them. */
function slackEscape (text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
}

function blocks (text: HumanText): unknown[] {
  const out: unknown[] = [
    { type: 'header', text: { type: 'plain_text', text: truncate(`${EMOJI[text.tone]} ${text.title}`, HEADER_MAX), emoji: true } },
  ]
  if (text.facts.length) {
    out.push({
      type: 'section',
      fields: text.facts.slice(0, 10).map((fact) => ({
        type: 'mrkdwn', text: truncate(`*${fact.label}*\n${slackEscape(fact.value)}`, FIELD_MAX),
      })),
    })
  }
  if (text.items.length) {
    const lines = text.items.map((item) => {
      const line = `${EMOJI[item.tone]} ${slackEscape(truncate(item.line, 500))}`
      return item.url ? `${line} <${item.url}|open>` : line
    })
    out.push({ type: 'section', text: { type: 'mrkdwn', text: fitLines(lines, SECTION_MAX) } })
  }
  out.push({ type: 'section', text: { type: 'mrkdwn', text: `<${text.link.url}|${text.link.label}>` } })
  return out
}

/** With blocks, Slack shows `text` only in notifications: the title and the first fact, unless the title says it. */
function preview (text: HumanText): string {
  const first = text.facts[0]?.value
  return first && !text.title.includes(first) ? `${text.title}: ${first}` : text.title
}

export const slackAdapter: ChannelAdapter = {
  forPeople: true,
  render: (channel, message, context) => {
    const text = humanText(channel, message, context)
    return jsonPost(configText(channel, 'webhook_url'), {
      text: slackEscape(truncate(preview(text), SECTION_MAX)),
      blocks: blocks(text),
    })
  },
}
