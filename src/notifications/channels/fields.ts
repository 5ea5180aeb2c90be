// Reading a stored channel config: the API validated it against its type's schema, so a missing field here is a bug.
import { USER_AGENT } from '../../net/user-agent.ts'
import type { ChannelForSending } from './types.ts'

export function configText (channel: ChannelForSending, key: string): string {
  const value = channel.config[key]
  if (typeof value === 'string' || typeof value === 'number') return String(value)
  throw new Error(`the ${channel.type} channel ${channel.id} has no ${key} in its config`)
}

export function optionalConfigText (channel: ChannelForSending, key: string): string | undefined {
  return channel.config[key] === undefined || channel.config[key] === null ? undefined : configText(channel, key)
}

/** A JSON POST, saying it is Pingward's: what every HTTP service here takes. */
export function jsonPost (url: string, body: unknown, headers: Record<string, string> = {}) {
  return { kind: 'http' as const, url, headers: { 'content-type': 'application/json', 'user-agent': USER_AGENT, ...headers }, body: JSON.stringify(body) }
}
