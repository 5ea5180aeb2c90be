// PLACEHOLDER until its helper writes it: the pagerduty adapter.
import type { ChannelAdapter } from './types.ts'

export const pagerdutyAdapter: ChannelAdapter = {
  forPeople: true,
  render: () => { throw new Error('the pagerduty adapter is not written yet') },
}
