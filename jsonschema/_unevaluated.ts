// `unevaluatedProperties` and `unevaluatedItems`: they apply to what no other
// keyword of the schema evaluated, counting the subschemas it applied in
// place (`allOf`, `$ref`, the branches of `anyOf` that passed…). The schema
// collects those annotations while it runs, then checks the rest; the cost is
// one pass over the keys or items, whatever the nesting.

import { type Check, Failure, isObject, Seen } from "./_check.ts";
import type { Compiler, Location } from "./_compiler.ts";

/** `check` followed by the schema's `unevaluated*` keywords; `check` itself when it has none. */
export function withUnevaluated(c: Compiler, at: Location, check: Check): Check {
  const schema = at.schema as Record<string, unknown>;
  const props = schema.unevaluatedProperties;
  const items = schema.unevaluatedItems;
  if (props === undefined && items === undefined) return check;
  const propsCheck = props === undefined || props === false ? undefined : c.sub(at, "unevaluatedProperties");
  const itemsCheck = items === undefined || items === false ? undefined : c.sub(at, "unevaluatedItems");
  return (value, run, seen) => {
    const object = props !== undefined && isObject(value);
    const array = items !== undefined && Array.isArray(value);
    if (!object && !array) return check(value, run, seen);
    const mine = new Seen();
    const failure = check(value, run, mine);
    if (failure !== undefined) return failure;
    if (object) {
      const record = value as Record<string, unknown>;
      for (const key in record) {
        if (!Object.hasOwn(record, key) || mine.hasProp(key)) continue;
        if (propsCheck === undefined) return new Failure("unevaluatedProperties", "is not an allowed property").at(key);
        const bad = propsCheck(record[key], run, undefined);
        if (bad !== undefined) return bad.at(key);
      }
      mine.allProps = true;
    }
    if (array) {
      const list = value as unknown[];
      for (let i = 0; i < list.length; i++) {
        if (mine.hasItem(i)) continue;
        if (itemsCheck === undefined) return new Failure("unevaluatedItems", "is not an allowed item").at(i);
        const bad = itemsCheck(list[i], run, undefined);
        if (bad !== undefined) return bad.at(i);
      }
      mine.allItems = true;
    }
    seen?.merge(mine);
    return undefined;
  };
}
