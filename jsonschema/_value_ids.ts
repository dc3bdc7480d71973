// `uniqueItems` needs to know which items are equal as JSON. Keying each
// item by its canonical JSON costs the item's size, and a recursive schema
// applies `uniqueItems` at every level of a value: a deep value then paid its
// size once per level. Here every
// value gets a number, equal numbers for equal JSON, built bottom-up from its
// parts' numbers and kept for the whole validation: each object, array and
// string is read once, whatever the depth.

/** The numbers of null, false and true; every other value gets one from 3 up. */
const NULL = 0;
const FALSE = 1;
const TRUE = 2;

/** Numbers the JSON values one validation meets: two values get the same number exactly when their JSON is equal. */
export class ValueIds {
  readonly #containers = new Map<object, number>();
  readonly #shapes = new Map<string, number>();
  readonly #strings = new Map<string, number>();
  readonly #numbers = new Map<number, number>();
  #next = 3;

  /**
   * The number of `value`. Objects are equal whatever the order of their keys,
   * `1` and `1.0` are one number, and a member whose value is `undefined` is
   * left out (as in JSON); a handler's NaN or Infinity counts as null, which is
   * what JSON would carry. Deep values cost no stack.
   *
   * @throws {TypeError} When the value refers to itself (a handler's object, never parsed JSON).
   */
  of(value: unknown): number {
    if (value === null || typeof value !== "object") return this.#scalar(value);
    const known = this.#containers.get(value);
    if (known !== undefined) return known;
    // Post-order without recursion: a container is numbered once all its parts are.
    const stack: { container: object; parts: Parts; entered: boolean }[] = [];
    const push = (container: object) => stack.push({ container, parts: partsOf(container), entered: false });
    const open = new Set<object>();
    push(value);
    while (stack.length > 0) {
      const top = stack[stack.length - 1];
      if (!top.entered) {
        top.entered = true;
        open.add(top.container);
        for (const part of top.parts.values) {
          if (part === null || typeof part !== "object" || this.#containers.has(part)) continue;
          if (open.has(part)) throw new TypeError("Cannot compare values: the value refers to itself");
          push(part);
        }
        continue;
      }
      stack.pop();
      open.delete(top.container);
      if (this.#containers.has(top.container)) continue;
      const { keys, values } = top.parts;
      const ids = values.map((part) => this.of(part));
      const shape = keys === undefined
        ? `[${ids.join(",")}]`
        : `{${keys.map((key, i) => `${this.#string(key)}:${ids[i]}`).join(",")}}`;
      this.#containers.set(top.container, this.#intern(this.#shapes, shape));
    }
    return this.#containers.get(value)!;
  }

  #scalar(value: unknown): number {
    if (typeof value === "string") return this.#string(value);
    if (typeof value === "number") return Number.isFinite(value) ? this.#intern(this.#numbers, value) : NULL;
    if (value === true) return TRUE;
    if (value === false) return FALSE;
    return NULL;
  }

  #string(text: string): number {
    return this.#intern(this.#strings, text);
  }

  #intern<K>(map: Map<K, number>, key: K): number {
    let id = map.get(key);
    if (id === undefined) map.set(key, id = this.#next++);
    return id;
  }
}

/** An array's items, or an object's keys (sorted, without `undefined` members) and values. */
interface Parts {
  keys?: string[];
  values: unknown[];
}

function partsOf(container: object): Parts {
  if (Array.isArray(container)) return { values: container };
  const record = container as Record<string, unknown>;
  const keys: string[] = [];
  const values: unknown[] = [];
  for (const key of Object.keys(record).sort()) {
    const value = record[key];
    if (value === undefined) continue;
    keys.push(key);
    values.push(value);
  }
  return { keys, values };
}
