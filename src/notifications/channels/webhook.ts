// The webhook adapter: the event's JSON as it is, signed as the Standard Webhooks specification says.
import { createHmac } from 'node:crypto'
import { USER_AGENT } from '../../net/user-agent.ts'
import type { ChannelAdapter } from './types.ts'

/** One signature per secret in effect (two after a rotation); the key is the base64-decoded bytes after `whsec_`. */
function webhookSignature (secrets: string[], id: string, timestamp: number, body: string): string {
  return secrets.map((secret) => {
    const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64')
    return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`
  }).join(' ')
}

export const webhookAdapter: ChannelAdapter = {
  // A program receives it: one event per request, never a flap or a digest it could not parse.
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
