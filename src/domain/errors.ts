// Domain errors, without HTTP: the edge maps each kind to a status (src/http/error-catalog.ts).

export type DomainErrorKind = 'invalid' | 'unauthenticated' | 'forbidden' | 'conflict'

export abstract class DomainError extends Error {
  abstract readonly kind: DomainErrorKind
}

/**
 * An input value breaks a rule: `field` is its path in the input (`config/token`), `message` a sentence that starts
 * with it (`config/token must ...`); the edge says where the input was (`body/`, see inputErrorMessage).
 */
export class InvalidInputError extends DomainError {
  readonly kind = 'invalid'
  readonly field: string
  constructor (field: string, message: string) {
    super(message)
    this.field = field
  }
}

/** A read found that its owner, an API key, no longer exists. */
export class ApiKeyGoneError extends DomainError {
  readonly kind = 'unauthenticated'
  readonly keyId: string
  constructor (keyId: string) {
    super('Unauthorized')
    this.keyId = keyId
  }
}

/** The caller's role does not allow this change (an admin making an owner); the edge words it as every refusal. */
export class RoleTooLowError extends DomainError {
  readonly kind = 'forbidden'
}

/** The thing to create exists already. */
export class ConflictError extends DomainError {
  readonly kind = 'conflict'
}

/** A create would take its owner past a limit the operator set; the message names the limit. */
export class LimitReachedError extends DomainError {
  readonly kind = 'conflict'
}
