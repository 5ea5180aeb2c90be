// An organization's slug (api-contract section 12): the CLI's `--org`, unique on the server.
export const SLUG_PATTERN = '^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$'
export const SLUG_MAX_LENGTH = 63
export const SLUG_RULE = `1-${SLUG_MAX_LENGTH} lowercase letters, digits and hyphens, starting and ending with a letter or digit`

export const isSlug = (value: string): boolean => value.length <= SLUG_MAX_LENGTH && new RegExp(SLUG_PATTERN).test(value)
