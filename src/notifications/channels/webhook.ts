// The webhook adapter: the event's JSON as it is, signed as the Standard Webhooks specification says.
import { createHmac } from 'node:crypto'
import { USER_AGENT } from '../../checker/probe.ts'
import type { ChannelAdapter } from './types.ts'

/**
 * The `webhook-signature` header: `v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">` for each secret,
 * space-separated. A secret is `whsec_` + base64 of the key bytes, and the key is those bytes (not the text).
 * During the 24 h after a rotation there are two secrets, so a receiver holding either one can verify.
 */
function webhookSignature (secrets: string[], id: string, timestamp: number, body: string): string {
  return secrets.map((secret) => {
    const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64')
    return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`
  }).join(' ')
}

export const webhookAdapter: ChannelAdapter = {
  // A webhook's receiver is a program: it gets every event as it is, one request each, never a merged
  // "down and up again" message nor a digest, which it could not parse.
  forPeople: false,
  render (channel, message, context) {
    if (message.kind !== 'event') throw new Error(`a webhook is sent events one by one, not a ${message.kind}`)
    const { id, event } = message.told
    const body = JSON.stringify(event)
    const timestamp = Math.floor(context.now.getTime() / 1000)
    const url = channel.config.url
    if (typeof url !== 'string') throw new Error('the webhook channel has no url')
    return {
      kind: 'http',
      url,
      headers: {
        'content-type': 'application/json',
        'user-agent': USER_AGENT,
        'webhook-id': id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': webhookSignature(channel.secrets, id, timestamp, body),
      },
      body,
    }
  },
}
