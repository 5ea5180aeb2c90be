// Snapshots shared between API processes through Redis: after a change one process builds a page and the others adopt
// its copy. A counter in Redis orders each build after the changes it must show, whatever the hosts' clocks say.
import { randomUUID } from 'node:crypto'
import { deserialize, serialize } from 'node:v8'
import type { Redis } from 'ioredis'
import type { SharedCopy, SharedSnapshotStore } from './snapshots.ts'

const CLAIM_MS = 10_000
// One step: the counter (KEYS[1]) moves on and its value becomes each page's need (KEYS[2..]), kept ARGV[1] ms.
const SUPERSEDE = `local n = redis.call('incr', KEYS[1])
for i = 2, #KEYS do redis.call('set', KEYS[i], n, 'PX', ARGV[1]) end
return n`

export class RedisSnapshotStore implements SharedSnapshotStore {
  private readonly redis: Redis
  private readonly prefix: string
  private readonly keepMs: number
  private readonly token = randomUUID()

  /** `keepMs`: how long a copy stays in Redis (past a snapshot's longest life it is of no use). */
  constructor (redis: Redis, prefix: string, keepMs: number) {
    this.redis = redis
    this.prefix = `${prefix}status-snapshot:`
    this.keepMs = keepMs
  }

  tick (): Promise<number> {
    return this.redis.incr(`${this.prefix}clock`)
  }

  supersede (names: string[]): Promise<number> {
    const needs = names.map((name) => `${this.prefix}need:${name}`)
    return this.redis.eval(SUPERSEDE, 1 + needs.length, `${this.prefix}clock`, ...needs, this.keepMs) as Promise<number>
  }

  async load (name: string): Promise<{ copy?: SharedCopy, need: number }> {
    const [stored, need] = await this.redis.mgetBuffer(`${this.prefix}copy:${name}`, `${this.prefix}need:${name}`)
    try {
      return { copy: stored ? deserialize(stored) as SharedCopy : undefined, need: Number(need ?? 0) }
    } catch {
      // Written by a Node whose serializer this one cannot read (a rolling upgrade): built again here.
      return { need: Number(need ?? 0) }
    }
  }

  async save (name: string, copy: SharedCopy): Promise<void> {
    await this.redis.set(`${this.prefix}copy:${name}`, serialize(copy), 'PX', this.keepMs)
  }

  async claim (name: string): Promise<boolean> {
    return await this.redis.set(`${this.prefix}claim:${name}`, this.token, 'PX', CLAIM_MS, 'NX') === 'OK'
  }

  async release (name: string): Promise<void> {
    // Only this process's claim: one that lapsed may be another's by now.
    await this.redis.eval('if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) end return 0', 1,
      `${this.prefix}claim:${name}`, this.token)
  }
}
