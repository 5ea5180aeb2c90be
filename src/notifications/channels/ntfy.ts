// ntfy: a JSON publish to the server's root (the channel's server_url, else NTFY_URL), a token as a Bearer token.
import { humanText, plainBody, type Tone } from '../message.ts'
import { configText, jsonPost, optionalConfigText } from './fields.ts'
import type { ChannelAdapter } from './types.ts'

// Priorities 1 (min) to 5 (max): an outage is high (4), so it sounds on a phone; the rest (slowness too) is the default (3).
const PRIORITY: Record<Tone, number> = { down: 4, degraded: 3, up: 3, flap: 3, expiring: 3, info: 3 }
// Tags that ntfy shows as emojis in front of the title.
const TAGS: Record<Tone, string[]> = { down: ['rotating_light'], degraded: ['warning'], up: ['white_check_mark'], flap: ['warning'], expiring: ['hourglass_flowing_sand'], info: ['information_source'] }

// A message over 4,096 bytes would be turned into an attachment: the body is cut below that.
const MESSAGE_MAX_BYTES = 3900

function cutToBytes (text: string, max: number): string {
  if (Buffer.byteLength(text) <= max) return text
  let cut = text
  while (Buffer.byteLength(cut) > max - 3) cut = cut.slice(0, Math.floor(cut.length * 0.9))
  return `${cut}…`
}

export const ntfyAdapter: ChannelAdapter = {
  forPeople: true,
  render: (channel, message, context) => {
    const text = humanText(channel, message, context)
    const server = (optionalConfigText(channel, 'server_url') ?? context.serviceUrls.ntfy).replace(/\/+$/, '')
    const token = optionalConfigText(channel, 'token')
    return jsonPost(`${server}/`, {
      topic: configText(channel, 'topic'),
      title: text.title,
      message: cutToBytes(plainBody(text), MESSAGE_MAX_BYTES),
      priority: PRIORITY[text.tone],
      tags: TAGS[text.tone],
      click: text.link.url,
    }, token ? { authorization: `Bearer ${token}` } : {})
  },
}
