// PLACEHOLDER until its helper writes it: the email adapter.
import type { ChannelAdapter } from './types.ts'

export const emailAdapter: ChannelAdapter = {
  forPeople: true,
  render: () => { throw new Error('the email adapter is not written yet') },
}
