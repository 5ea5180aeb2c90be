// Telegram Bot API sendMessage: the text as HTML (bold title, the facts, the link), to `${TELEGRAM_API_URL}/bot<token>/sendMessage`.
import { fitLines, humanText, truncate, type Tone } from '../message.ts'
import { configText, jsonPost } from './fields.ts'
import type { ChannelAdapter } from './types.ts'

const EMOJI: Record<Tone, string> = { down: '🔴', degraded: '⚠️', up: '🟢', flap: '⚠️', expiring: '⏳', info: 'ℹ️' }

// A message is at most 4,096 characters after its markup is parsed; the digest's lines get what the rest leaves.
const DIGEST_MAX = 3500

/** With parse_mode HTML, Telegram wants `<`, `>` and `&` escaped everywhere, and `"` in attributes. */
function html (text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')
}

export const telegramAdapter: ChannelAdapter = {
  forPeople: true,
  render: (channel, message, context) => {
    const text = humanText(channel, message, context)
    const lines = [`${EMOJI[text.tone]} <b>${html(truncate(text.title, 300))}</b>`, '']
    for (const fact of text.facts) lines.push(`<b>${html(fact.label)}:</b> ${html(truncate(fact.value, 500))}`)
    if (text.items.length) {
      lines.push(fitLines(text.items.map((item) => {
        const line = `${EMOJI[item.tone]} ${html(truncate(item.line, 300))}`
        return item.url ? `${line} <a href="${html(item.url)}">open</a>` : line
      }), DIGEST_MAX))
    }
    lines.push('', `<a href="${html(text.link.url)}">${html(text.link.label)}</a>`)
    const token = configText(channel, 'bot_token')
    return jsonPost(`${context.serviceUrls.telegram}/bot${token}/sendMessage`, {
      chat_id: channel.config.chat_id,
      text: lines.join('\n'),
      parse_mode: 'HTML',
      // The link is to the dashboard: a preview of its sign-in page would only push the facts off the screen.
      link_preview_options: { is_disabled: true },
    })
  },
}
