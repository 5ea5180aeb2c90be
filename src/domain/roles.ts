// The order of roles (api-contract section 12): each includes the powers of the ones before it.
import { ROLES, type Role } from './vocabulary.ts'

const rank = (role: Role): number => ROLES.indexOf(role)

/** Whether `role` may do what `needed` may. */
export const includesRole = (role: Role, needed: Role): boolean => rank(role) >= rank(needed)

/** The lesser of two roles: what a key may do for its maker. */
export const lowerRole = (a: Role, b: Role): Role => rank(a) <= rank(b) ? a : b
