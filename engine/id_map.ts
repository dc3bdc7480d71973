// A map keyed by request id that never hashes a long string id. V8 copies a
// long string whole when it is made a Map key (measured on Deno 2.9.6: a 60
// MiB id with a `€`, 120 MiB as a string, grew the heap by 120 MiB on
// `Map.prototype.set`, and by 240 MiB when not yet flat), so an open
// subscriptions/listen or a call in flight with such an id held it twice. An
// id over LARGE_UNITS is found by its length instead, and told apart from
// another of that length by comparing the two, which is free when they are
// the same string (the usual case: the id a call was opened with) and is
// paid only by a lookup with another copy of the id (a cancellation) or by
// two long ids of one length in flight at once.

import type { Id } from "./id.ts";
import { LARGE_UNITS } from "./json_parts.ts";

/** A long string id, held in an object so that the map's own key is the object, never the string. */
class LongId {
  constructor(readonly id: string) {}
}

/**
 * A `Map` from request ids to `V`, in insertion order, that keys a string id
 * longer than 64 Ki units by an object holding it, found by the id's length
 * and compared whole only against another string of that length.
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
  // The long ids held, by length.
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
    let key = this.#key(id);
    if (key === undefined) {
      const long = new LongId(id as string);
      const same = this.#long.get(long.id.length);
      if (same === undefined) this.#long.set(long.id.length, [long]);
      else same.push(long);
      key = long;
    }
    this.#map.set(key, value);
    return this;
  }

  /** Lets go of `id`; false when it was not held. */
  delete(id: Id): boolean {
    const key = this.#key(id);
    if (key === undefined) return false;
    if (isLong(key)) {
      const same = this.#long.get(key.id.length)!;
      same.splice(same.indexOf(key), 1);
      if (same.length === 0) this.#long.delete(key.id.length);
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
    if (typeof id !== "string" || id.length <= LARGE_UNITS) return id;
    const same = this.#long.get(id.length);
    if (same === undefined) return undefined;
    // The same string first (no character read), then another of the same length compared whole.
    return same.find((long) => long.id === id);
  }
}

function isLong(key: Id | LongId): key is LongId {
  return key instanceof LongId;
}
