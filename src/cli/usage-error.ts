// A command line the CLI cannot run: the operator gets its message, the usage and exit code 2.
export class UsageError extends Error {}
