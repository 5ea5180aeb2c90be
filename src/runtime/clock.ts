// Time enters through a parameter so that tests can control it.
export type Clock = () => Date

export const systemClock: Clock = () => new Date()
