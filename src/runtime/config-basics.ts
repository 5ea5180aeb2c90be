// What an entry point needs before parsing the configuration; no TypeBox here, so the CLI can reach a server without it.

/** The environment is not valid: the message lists every bad variable, for the operator. */
export class ConfigError extends Error {}

export const DEFAULT_DATA_DIR = './data'
