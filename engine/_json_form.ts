// What a client receives of a result's structuredContent is its JSON: a Date
// arrives as a string, a key whose value is undefined or that is not
// enumerable does not arrive at all, a NaN arrives as null. The outputSchema
// check must judge that, not the handler's object, or a result that passed it
// reaches the client breaking it (and a Date refused as "not a string" was in
// fact a string). For a value already as its JSON reads back, nothing is
// copied; any other is replaced by its JSON read back, checked and sent.

/**
 * `value` itself when `JSON.parse(JSON.stringify(value))` would equal it as
 * the outputSchema check reads it (plain objects and arrays of strings,
 * finite numbers, booleans and null, with no object key that JSON drops; an
 * array is its items to the check, as to JSON, so a named key on one is
 * left), otherwise that round trip. Throws a TypeError when the value has no
 * JSON (a BigInt, a cycle, a getter that throws, a revoked Proxy).
 */
export function jsonForm(value: unknown): unknown {
  let text: string | undefined;
  try {
    // The walk reads what JSON would: a getter that throws there would throw in JSON.stringify too.
    if (sameAsJson(value, 0)) return value;
    text = JSON.stringify(value);
  } catch (err) {
    throw new TypeError(`its structuredContent has no JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
  return text === undefined ? undefined : JSON.parse(text);
}

// Past this depth the value is taken through JSON rather than walked further (a walk of its own has no stack bound).
const MAX_WALK_DEPTH = 64;

function sameAsJson(value: unknown, depth: number): boolean {
  if (value === null) return true;
  switch (typeof value) {
    case "string":
    case "boolean":
      return true;
    case "number":
      return Number.isFinite(value);
    case "object":
      break;
    default:
      return false;
  }
  if (depth >= MAX_WALK_DEPTH) return false;
  const object = value as Record<string, unknown>;
  if (Array.isArray(object)) {
    // A hole reads undefined, refused below (it is null in JSON). A named key JSON drops is left: the check reads an
    // array's items only (jsonschema/_json_types.ts, _value_ids.ts), and Object.keys() here would cost a string per
    // item, more than JSON.stringify() of an array of numbers.
    if (Object.getPrototypeOf(object) !== Array.prototype) return false;
    for (let i = 0; i < object.length; i++) if (!sameAsJson(object[i], depth + 1)) return false;
    return true;
  }
  const proto = Object.getPrototypeOf(object);
  if ((proto !== Object.prototype && proto !== null) || typeof object.toJSON === "function") return false;
  const keys = Object.keys(object);
  // A key that is not enumerable is seen by the check (required names are own keys) and never sent.
  if (Object.getOwnPropertyNames(object).length !== keys.length) return false;
  for (let i = 0; i < keys.length; i++) if (!sameAsJson(object[keys[i]], depth + 1)) return false;
  return true;
}
