// PLACEHOLDER until its helper writes it: the ntfy adapter.
import type { ChannelAdapter } from './types.ts'

export const ntfyAdapter: ChannelAdapter = {
  forPeople: true,
  render: () => { throw new Error('the ntfy adapter is not written yet') },
}
