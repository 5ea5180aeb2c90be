// PLACEHOLDER until its helper writes it: the webhook adapter.
import type { ChannelAdapter } from './types.ts'

export const webhookAdapter: ChannelAdapter = {
  forPeople: true,
  render: () => { throw new Error('the webhook adapter is not written yet') },
}
