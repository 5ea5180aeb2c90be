// PLACEHOLDER until its helper writes it: the discord adapter.
import type { ChannelAdapter } from './types.ts'

export const discordAdapter: ChannelAdapter = {
  forPeople: true,
  render: () => { throw new Error('the discord adapter is not written yet') },
}
