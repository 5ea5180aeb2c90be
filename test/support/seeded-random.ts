// A seeded random number generator (mulberry32) for tests that draw their data, so that a failure can be repeated.

/** Numbers in [0, 1) drawn from `seed`: the same seed, the same sequence. */
export function seededRandom (seed: number): () => number {
  return () => {
    seed = (seed + 0x6D2B79F5) | 0
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296
  }
}
