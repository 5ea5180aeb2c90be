// A location row as the API shows it: `online` from its last sign of life and the one online window.
import { LOCATION_TIMING } from '../domain/locations.ts'
import type { LocationRow } from './repository.ts'
import type { AgentHello, Location, LocationWithToken } from './schema.ts'

/** Whether the location was seen within the online window before `now`. */
const isOnline = (row: Pick<LocationRow, 'lastSeenAt'>, now: Date): boolean =>
  row.lastSeenAt !== null && now.getTime() - row.lastSeenAt.getTime() <= LOCATION_TIMING.onlineWithinMs

export function presentLocation (row: LocationRow, now: Date): Location {
  return {
    code: row.code,
    name: row.name,
    kind: row.kind,
    last_seen_at: row.lastSeenAt?.toISOString() ?? null,
    version: row.version,
    online: isOnline(row, now),
  }
}

export function presentLocationWithToken (row: LocationRow, token: string, now: Date): LocationWithToken {
  return { ...presentLocation(row, now), agent_token: token }
}

export function presentHello (row: LocationRow, now: Date): AgentHello {
  return { location: { code: row.code, name: row.name }, server_time: now.toISOString() }
}
