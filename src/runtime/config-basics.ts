// What an entry point needs of the configuration before (or without) parsing it: its error class and the
// embedded database's default directory. No TypeBox here: the CLI reaches a running server without it.

/** The environment is not valid: the message lists every bad variable, for the operator. */
export class ConfigError extends Error {}

export const DEFAULT_DATA_DIR = './data'
