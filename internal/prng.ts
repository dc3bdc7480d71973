// A seeded random source (mulberry32), so that a seed replays the same choices: the attack kit's corpus order, and
// the generated cases of the fuzz and regex tests.

/**
 * Returns a function that yields numbers in [0, 1) from `seed` (mulberry32).
 *
 * @param seed Any number; its low 32 bits choose the sequence.
 * @returns The next number of the sequence, each call.
 *
 * @example The same seed, the same sequence
 * ```ts
 * import assert from "node:assert/strict";
 * import { prng } from "./prng.ts";
 *
 * const a = prng(7), b = prng(7);
 * assert.equal(a(), b());
 * ```
 */
export function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Shuffles a copy of `items` with `random` (Fisher–Yates). */
export function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}
