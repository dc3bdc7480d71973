// What the differential tests of the two shortcuts (plain_object_test.ts,
// _scalar_object_test.ts) share: the engine alone to compare with, and a
// seeded generator, so that a failing case can be replayed.
import { compileSchema } from "../compile_schema.ts";

/** The engine alone: a root `$comment` asserts nothing, and neither shortcut takes a schema holding one. */
export function engineOnly(schema: Record<string, unknown>): ReturnType<typeof compileSchema> {
  return compileSchema({ ...schema, $comment: "engine only" });
}

/** mulberry32: a small deterministic generator of numbers in [0, 1). */
export function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Values at the edges of JSON's types that both tests draw from: a big integer, non-finite numbers, every other type. */
export const EDGE_VALUES: readonly unknown[] = [2 ** 53, NaN, Infinity, true, false, null, undefined, {}, []];
