// How Pingward names itself to the sites it checks and the services it notifies.
export const USER_AGENT = 'Pingward/0.1 (+https://github.com/pingward/pingward)'
