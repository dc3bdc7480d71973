// The one loop that accepts an object of checked properties: the fast half of
// the plain-object check (./plain_object.ts) and of the scalar-object
// shortcut (./_scalar_object.ts), and the shape of schema object both may
// take.

/** The annotation keywords a shortcut passes over: they assert nothing. */
export const SCHEMA_ANNOTATIONS: readonly string[] = [
  "description",
  "title",
  "default",
  "examples",
  "deprecated",
  "readOnly",
  "writeOnly",
];

/** The `type` names of one scalar value, the only ones a shortcut's property may name. */
export const SCALAR_TYPES: ReadonlySet<string> = new Set(["string", "integer", "number", "boolean", "null"]);

/** How one property's value is tested, and whether the property is required. */
export interface PropertyRule {
  test: (value: unknown) => boolean;
  required: boolean;
}

/**
 * A test of an object value: true when it is an object (not an array), each
 * own key with a rule passes it, no other key is present when `closed`, and
 * every name of `required` is an own key.
 */
export function objectAcceptor(
  rules: ReadonlyMap<string, PropertyRule>,
  required: ReadonlySet<string>,
  closed: boolean,
): (value: unknown) => boolean {
  // A required name with no property: any value where others are allowed; where none are, no object is valid.
  const tests = new Map<string, PropertyRule>(rules);
  if (!closed) { for (const name of required) if (!tests.has(name)) tests.set(name, { test: ANY, required: true }); }
  const requiredCount = required.size;
  return (value) => {
    if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
    // Own keys are distinct: counting the required ones met tells whether all are there.
    let met = 0;
    // Its own keys, as the engine reads them (for…in, skipping inherited ones): a list of them costs the server
    // less than for…in with a check per key.
    const keys = Object.keys(value);
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i];
      const rule = tests.get(key);
      if (rule === undefined) {
        if (closed) return false;
        continue;
      }
      if (!rule.test((value as Record<string, unknown>)[key])) return false;
      if (rule.required) met++;
    }
    return met === requiredCount;
  };
}

const ANY = (): boolean => true;

/**
 * Whether `schema` is an object whose keywords are all its own enumerable data
 * properties, as `Object.keys` lists them, with no prototype but Object's (or
 * none). The engine reads a keyword wherever it sits, inherited, hidden from
 * `Object.keys` or behind a getter: a shortcut that judges a schema by its
 * keys takes only this shape, and leaves any other to the engine.
 */
export function isPlainSchema(schema: unknown): schema is Record<string, unknown> {
  if (schema === null || typeof schema !== "object" || Array.isArray(schema)) return false;
  const proto = Object.getPrototypeOf(schema);
  if (proto !== Object.prototype && proto !== null) return false;
  for (const key of Object.getOwnPropertyNames(schema)) {
    const slot = Object.getOwnPropertyDescriptor(schema, key);
    if (slot === undefined || !slot.enumerable || !("value" in slot)) return false;
  }
  return true;
}
