// PLACEHOLDER until its helper writes it: the teams adapter.
import type { ChannelAdapter } from './types.ts'

export const teamsAdapter: ChannelAdapter = {
  forPeople: true,
  render: () => { throw new Error('the teams adapter is not written yet') },
}
