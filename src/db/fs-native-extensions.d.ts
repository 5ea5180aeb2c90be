// The part of fs-native-extensions' API that data-dir-lock.ts uses (the package ships no types).
declare module 'fs-native-extensions' {
  /**
   * Takes an exclusive (or, with `shared`, a shared) OFD lock on the open file `fd` without waiting:
   * false when another open file description holds a conflicting lock. `length` 0 means the whole file.
   */
  export function tryLock (fd: number, offset?: number, length?: number, options?: { shared?: boolean }): boolean
}
