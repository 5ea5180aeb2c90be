// The rules of locations (api-contract section 17): an organization makes, deletes and re-keys its agent locations,
// each change audited in its transaction; built-in ones are the installation's, removed by its operator once silent.
// An agent is known by its token alone, looked up on every request, so a rotation or a deletion locks it out at once.
import { recordChange } from '../audit/service.ts'
import { generateAgentToken, hashApiKey, isWellFormedAgentToken, keyPrefix } from '../auth/keys.ts'
import { atomically, type Database } from '../db/client.ts'
import type { AuditContext } from '../domain/audit.ts'
import { ConflictError, InvalidInputError } from '../domain/errors.ts'
import { LOCATION_TIMING } from '../domain/locations.ts'
import type { AuditAction } from '../domain/vocabulary.ts'
import {
  builtinExists, deleteLocation, deleteSilentBuiltin, findAgentByTokenHash, findLocation, insertAgentLocation, listLocations, recordAgentSeen, setToken,
  type LocationRow,
} from './repository.ts'
import type { NewLocation } from './schema.ts'

/** Who changes the organization's locations, as the audit log names them. */
export interface LocationAdmin { orgId: string, audit: AuditContext }

/** The code is taken: by one of the organization's locations, or by a built-in one. */
class LocationCodeTakenError extends ConflictError {}
/** A built-in location is the installation's: it has no token, and it goes only with its checkers. */
export class BuiltinLocationError extends ConflictError {}

const AUDITED = ['code', 'name', 'kind', 'token_prefix'] as const
const audited = (row: LocationRow) => ({ code: row.code, name: row.name, kind: row.kind, token_prefix: row.tokenPrefix })

const newToken = () => {
  const token = generateAgentToken()
  return { token, stored: { tokenHash: hashApiKey(token), tokenPrefix: keyPrefix(token) } }
}

/** Makes an agent location of the organization; its token is returned this once. */
export async function createAgentLocation (db: Database, who: LocationAdmin, input: NewLocation, now: Date): Promise<{ row: LocationRow, token: string }> {
  if (await builtinExists(db, input.code)) {
    throw new LocationCodeTakenError(`${input.code} is the code of a built-in location: choose another`)
  }
  const { token, stored } = newToken()
  return atomically(db, async (tx) => {
    const row = await insertAgentLocation(tx, { orgId: who.orgId, code: input.code, name: input.name, ...stored, createdAt: now })
    if (!row) throw new LocationCodeTakenError(`The organization has a location ${input.code} already: choose another code`)
    await audit(tx, who, 'location.created', null, row, now)
    return { row, token }
  })
}

/** The organization's agent location `code`, locked; undefined when it has none; a built-in one is refused. */
async function lockAgentLocation (tx: Database, who: LocationAdmin, code: string, refusal: string): Promise<LocationRow | undefined> {
  const row = await findLocation(tx, who.orgId, code, 'lock')
  if (row?.kind === 'builtin') throw new BuiltinLocationError(`${code} is a built-in location (a checker process started with CHECKER_LOCATION=${code}): ${refusal}`)
  return row
}

/** Deletes an agent location: its token is refused from the next request on. False when the organization has none of that code. */
export async function removeAgentLocation (db: Database, who: LocationAdmin, code: string, now: Date): Promise<boolean> {
  return atomically(db, async (tx) => {
    const row = await lockAgentLocation(tx, who, code, 'it cannot be deleted')
    if (!row) return false
    await deleteLocation(tx, row.id)
    await audit(tx, who, 'location.deleted', row, null, now)
    return true
  })
}

/**
 * Removes a built-in location whose checkers are gone (the operator's, not an organization's); false when there is none
 * of that code. Refused while it is online: a running checker would make it again within seconds.
 */
export async function removeSilentBuiltinLocation (db: Database, code: string, now: Date): Promise<boolean> {
  if (await deleteSilentBuiltin(db, code, new Date(now.getTime() - LOCATION_TIMING.onlineWithinMs))) return true
  if (!await builtinExists(db, code)) return false
  throw new BuiltinLocationError(`${code} is online: a checker process started with CHECKER_LOCATION=${code} still runs; stop it first`)
}

/** Gives an agent location a new token, returned this once; the old one is refused from the next request on. */
export async function rotateAgentToken (db: Database, who: LocationAdmin, code: string, now: Date): Promise<{ row: LocationRow, token: string } | undefined> {
  const { token, stored } = newToken()
  return atomically(db, async (tx) => {
    const before = await lockAgentLocation(tx, who, code, 'it has no agent token')
    if (!before) return undefined
    const row = await setToken(tx, before.id, stored)
    await audit(tx, who, 'location.token_rotated', before, row, now)
    return { row, token }
  })
}

/** The agent location of a Bearer token; a token of another form (an API key) is nobody's, without a query. */
export async function agentOfToken (db: Database, token: string | undefined): Promise<LocationRow | undefined> {
  if (token === undefined || !isWellFormedAgentToken(token)) return undefined
  return findAgentByTokenHash(db, hashApiKey(token))
}

/** An agent's hello: its sign of life and version recorded; undefined when its token was rotated or deleted meanwhile. */
export async function greetAgent (db: Database, agent: LocationRow, version: string, now: Date): Promise<LocationRow | undefined> {
  return agent.tokenHash === null ? undefined : recordAgentSeen(db, agent.tokenHash, { at: now, version })
}

/**
 * Refuses, naming the field, a monitor's `locations` that are not all locations the organization sees, and a
 * `location_quorum` without locations or above their number. Returns the built-in ones: the checkers' schedule rows.
 */
export async function assertMonitorLocations (db: Database, orgId: string, codes: readonly string[], quorum: number | null): Promise<string[]> {
  const builtin: string[] = []
  if (codes.length > 0) {
    const known = new Map((await listLocations(db, orgId)).map((row) => [row.code, row]))
    codes.forEach((code, i) => {
      const row = known.get(code)
      if (!row) throw new InvalidInputError(`locations/${i}`, `locations/${i} is not a location: ${code} is none of GET /locations`)
      if (row.kind === 'builtin') builtin.push(code)
    })
  }
  if (quorum !== null && quorum > codes.length) {
    throw new InvalidInputError('location_quorum', codes.length === 0
      ? 'location_quorum needs locations: set it with them, or null'
      : `location_quorum must be at most the number of locations (${codes.length}), or null for a majority`)
  }
  return builtin
}

/** Whether only agents check a monitor of these locations: none of them is a built-in one (and there is one at least). */
export async function checkedOnlyByAgents (db: Database, orgId: string, codes: readonly string[]): Promise<boolean> {
  if (codes.length === 0) return false
  return !(await listLocations(db, orgId)).some((row) => row.kind === 'builtin' && codes.includes(row.code))
}

async function audit (tx: Database, who: LocationAdmin, action: AuditAction, before: LocationRow | null, after: LocationRow | null, now: Date): Promise<void> {
  await recordChange(tx, who.audit, {
    orgId: who.orgId,
    action,
    entityId: (after ?? before)!.id,
    before: before && audited(before),
    after: after && audited(after),
    fields: AUDITED,
    at: now,
  })
}
