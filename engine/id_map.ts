// A map keyed by request id that never makes a long string id a Map key.
// V8 hashes a string of more than 16,383 UTF-16 units by its length alone, so
// a Map holding many such keys of one length compares a new one with each of
// them whole: 1,024 ids of 20,000 units that differ only at their end took 9 s
// to hold and find (a red team's measure, Deno 2.9.6), where as many ids of
// as many lengths took 31 ms. And V8 copies a long string whole when it is
// made a Map key (a 60 MiB id with a `€`, 120 MiB as a string, grew the heap
// by 120 MiB on `Map.prototype.set`, and by 240 MiB when not yet flat), so an
// open subscriptions/listen or a call in flight with such an id held it
// twice. An id over HASHED_UNITS is held in an object instead, among the ids
// of its length in the order of their text, and found by a binary search: a
// few comparisons, each free when the two are the same string (the usual
// case: the id a call was opened with, alone of its length). Ordering two
// ids of one length makes both flat, as writing them does.

import type { Id } from "./id.ts";

/** The most UTF-16 units of a string V8 hashes by its content; a longer one it hashes by its length alone. */
const HASHED_UNITS = 16_383;

/** A long string id, held in an object so that the map's own key is the object, never the string. */
class LongId {
  constructor(readonly id: string) {}
}

/**
 * A `Map` from request ids to `V`, in insertion order, that keys a string id
 * longer than {@linkcode HASHED_UNITS} by an object holding it, found among
 * the ids of its length by a binary search: in a few comparisons however many
 * of that length it holds.
 *
 * @example Track something per id, long ids included
 * ```ts
 * import { IdMap } from "./id_map.ts";
 *
 * const open = new IdMap<number>();
 * open.set(7, 1);
 * open.set("x".repeat(100_000), 2);
 * console.log(open.get("x".repeat(100_000))); // 2
 * ```
 */
export class IdMap<V> {
  readonly #map = new Map<Id | LongId, V>();
  // The long ids held, by length, each length's in the order of their text (`<`).
  readonly #long = new Map<number, LongId[]>();

  /** How many ids are held. */
  get size(): number {
    return this.#map.size;
  }

  /** Whether `id` is held. */
  has(id: Id): boolean {
    const key = this.#key(id);
    return key !== undefined && this.#map.has(key);
  }

  /** The value held for `id`, or undefined. */
  get(id: Id): V | undefined {
    const key = this.#key(id);
    return key === undefined ? undefined : this.#map.get(key);
  }

  /** Holds `value` for `id` (in place of any it held). */
  set(id: Id, value: V): this {
    this.#map.set(this.#key(id) ?? this.#hold(id as string), value);
    return this;
  }

  /** Lets go of `id`; false when it was not held. */
  delete(id: Id): boolean {
    const key = this.#key(id);
    if (key === undefined) return false;
    if (isLong(key)) {
      const same = this.#long.get(key.id.length)!;
      if (same.length === 1) this.#long.delete(key.id.length);
      else same.splice(same.indexOf(key), 1);
    }
    return this.#map.delete(key);
  }

  /** Lets go of every id. */
  clear(): void {
    this.#map.clear();
    this.#long.clear();
  }

  /** The ids held, in the order they were first set. */
  *keys(): IterableIterator<Id> {
    for (const key of this.#map.keys()) yield isLong(key) ? key.id : key;
  }

  /** The values held, in the order their ids were first set. */
  values(): IterableIterator<V> {
    return this.#map.values();
  }

  /** Each id with its value, in the order the ids were first set. */
  *[Symbol.iterator](): IterableIterator<[Id, V]> {
    for (const [key, value] of this.#map) yield [isLong(key) ? key.id : key, value];
  }

  /** The key `id` is held under: itself when short; for a long id, its holder, or undefined when none is held. */
  #key(id: Id): Id | LongId | undefined {
    if (typeof id !== "string" || id.length <= HASHED_UNITS) return id;
    const same = this.#long.get(id.length);
    if (same === undefined) return undefined;
    const at = search(same, id);
    return at < 0 ? undefined : same[at];
  }

  /** A holder for the long `id`, not held yet, put in its place among the ids of its length. */
  #hold(id: string): LongId {
    const long = new LongId(id);
    const same = this.#long.get(id.length);
    if (same === undefined) this.#long.set(id.length, [long]);
    else same.splice(~search(same, id), 0, long);
    return long;
  }
}

/**
 * Where `id` is in `sorted` (ids of its length in the order of their text),
 * or, when it is not there, `~` the place it would take. Each comparison
 * reads the two as far as they agree: nothing when they are the same string.
 */
function search(sorted: readonly LongId[], id: string): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    compared++;
    const middle = (low + high) >>> 1;
    const held = sorted[middle].id;
    if (held === id) return middle;
    if (held < id) low = middle + 1;
    else high = middle;
  }
  return ~low;
}

// Long ids compared by search() in this process: what a lookup costs, counted (id_map_test bounds it).
let compared = 0;

/**
 * How many long ids the searches of every IdMap have compared with the one
 * looked for, since the process started: a lookup's cost, counted rather
 * than timed.
 *
 * @example The cost of one lookup
 * ```ts
 * import { comparedIds, IdMap } from "./id_map.ts";
 *
 * const map = new IdMap<number>();
 * map.set("x".repeat(20_000), 1);
 * const before = comparedIds();
 * map.get("x".repeat(20_000));
 * console.log(comparedIds() - before); // 1
 * ```
 */
export function comparedIds(): number {
  return compared;
}

function isLong(key: Id | LongId): key is LongId {
  return key instanceof LongId;
}
