// Discord webhook: `content` (what a phone's notification shows) and one embed with the facts and the link.
import { fitLines, humanText, truncate, type Tone } from '../message.ts'
import { configText, jsonPost } from './fields.ts'
import type { ChannelAdapter } from './types.ts'

const COLOR: Record<Tone, number> = { down: 0xd93025, degraded: 0xf9ab00, up: 0x1e8e3e, flap: 0xf9ab00, expiring: 0xe8710a, info: 0x5f6368 }
const EMOJI: Record<Tone, string> = { down: '🔴', degraded: '⚠️', up: '🟢', flap: '⚠️', expiring: '⏳', info: 'ℹ️' }

// Discord's limits; the description stays below its 4,096 so that the whole embed fits in 6,000.
const CONTENT_MAX = 2000
const TITLE_MAX = 256
const FIELD_VALUE_MAX = 1024
const DESCRIPTION_MAX = 3500

/** Discord reads markdown in content, embed descriptions and field values: a monitor's name is shown as written. */
function discordEscape (text: string): string {
  return text.replace(/([\\*_~`|])/g, '\\$1')
}

export const discordAdapter: ChannelAdapter = {
  forPeople: true,
  render: (channel, message, context) => {
    const text = humanText(channel, message, context)
    const embed: Record<string, unknown> = {
      title: truncate(text.title, TITLE_MAX),
      url: text.link.url,
      color: COLOR[text.tone],
      // The URL checked is left as written, so that Discord still links it.
      fields: text.facts.map((fact) => ({
        name: fact.label, value: truncate(fact.url ? fact.value : discordEscape(fact.value), FIELD_VALUE_MAX), inline: !fact.url,
      })),
      timestamp: context.now.toISOString(),
      footer: { text: 'Pingward' },
    }
    if (text.items.length) {
      embed.description = fitLines(text.items.map((item) => {
        const line = `${EMOJI[item.tone]} ${discordEscape(truncate(item.line, 300))}`
        return item.url ? `${line} ([open](${item.url}))` : line
      }), DESCRIPTION_MAX)
    }
    return jsonPost(configText(channel, 'webhook_url'), {
      content: truncate(`${EMOJI[text.tone]} ${discordEscape(text.title)}`, CONTENT_MAX),
      embeds: [embed],
      // A monitor named "@everyone" must not ping the whole server.
      allowed_mentions: { parse: [] },
    })
  },
}
