// Every channel type's adapter: a Record over CHANNEL_TYPES, so a type without an adapter fails to compile.
import type { ChannelType } from '../../domain/vocabulary.ts'
import type { ChannelAdapter } from './types.ts'
import { discordAdapter } from './discord.ts'
import { emailAdapter } from './email.ts'
import { ntfyAdapter } from './ntfy.ts'
import { pagerdutyAdapter } from './pagerduty.ts'
import { slackAdapter } from './slack.ts'
import { teamsAdapter } from './teams.ts'
import { telegramAdapter } from './telegram.ts'
import { webhookAdapter } from './webhook.ts'

export const CHANNEL_ADAPTERS: Record<ChannelType, ChannelAdapter> = {
  webhook: webhookAdapter,
  slack: slackAdapter,
  discord: discordAdapter,
  teams: teamsAdapter,
  telegram: telegramAdapter,
  ntfy: ntfyAdapter,
  pagerduty: pagerdutyAdapter,
  email: emailAdapter,
}
