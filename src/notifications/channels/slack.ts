// PLACEHOLDER until its helper writes it: the slack adapter.
import type { ChannelAdapter } from './types.ts'

export const slackAdapter: ChannelAdapter = {
  forPeople: true,
  render: () => { throw new Error('the slack adapter is not written yet') },
}
