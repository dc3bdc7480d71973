// The applicator vocabulary: the keywords that apply subschemas, to the
// properties and items of a value (`properties`, `patternProperties`,
// `additionalProperties`, `propertyNames`, `prefixItems`, `items`, `contains`)
// or to the value itself (`dependentSchemas`, `allOf`, `anyOf`, `oneOf`, `not`,
// `if`/`then`/`else`).

import { all, type Check, Failure, isObject, type Run, Seen } from "./_check.ts";
import type { Compiler, Location } from "./_compiler.ts";
import { compilePattern } from "./_validation.ts";

// `propertyNames`, `properties`, `patternProperties`, `additionalProperties`
// (one pass over the value's keys) and `dependentSchemas`. A property's name is
// checked against `propertyNames` before any pattern sees it, so a `maxLength`
// there bounds what a `patternProperties` expression is run on.

/** The check of the object applicators, or undefined when the schema has none. */
export function propertiesCheck(c: Compiler, at: Location): Check | undefined {
  const schema = at.schema as Record<string, unknown>;
  const named = new Map<string, Check>();
  for (const name of c.names(at, "properties") ?? []) named.set(name, c.sub(at, "properties", name));
  const patterns = (c.names(at, "patternProperties") ?? []).map((source) => ({
    re: compilePattern(c, at, ["patternProperties", source], source),
    check: c.sub(at, "patternProperties", source),
  }));
  const extra = schema.additionalProperties;
  const extraCheck = extra === undefined || extra === false ? undefined : c.sub(at, "additionalProperties");
  const nameCheck = schema.propertyNames === undefined ? undefined : c.sub(at, "propertyNames");
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const names = [...named.keys()];
  const dependent = dependentSchemas(c, at);
  if (named.size === 0 && patterns.length === 0 && extra === undefined && nameCheck === undefined) return dependent;
  const each: Check = (value, run, seen) => {
    if (!isObject(value)) return undefined;
    for (const key in value) {
      if (!Object.hasOwn(value, key)) continue;
      if (nameCheck !== undefined) {
        const failure = nameCheck(key, run, undefined);
        if (failure !== undefined) {
          return new Failure("propertyNames", `its name ${failure.rule}`, failure.detail).at(key);
        }
      }
      const item = value[key];
      let evaluated = false;
      const check = named.get(key);
      if (check !== undefined) {
        evaluated = true;
        const failure = check(item, run, undefined);
        if (failure !== undefined) {
          // A model often sends null for an optional argument it means to leave out: the message says how.
          if (item === null && failure.steps.length === 0 && !required.has(key)) failure.nullForOptional = true;
          return failure.at(key);
        }
      }
      for (let i = 0; i < patterns.length; i++) {
        if (!patterns[i].re.test(key)) continue;
        evaluated = true;
        const failure = patterns[i].check(item, run, undefined);
        if (failure !== undefined) return failure.at(key);
      }
      if (!evaluated && extra !== undefined) {
        if (extraCheck === undefined) {
          return new Failure("additionalProperties", "is not an allowed property", undefined, names).at(key);
        }
        const failure = extraCheck(item, run, undefined);
        if (failure !== undefined) return failure.at(key);
      }
      if (seen !== undefined && evaluated) seen.prop(key);
    }
    if (seen !== undefined && extra !== undefined) seen.allProps = true;
    return undefined;
  };
  return dependent === undefined ? each : (value, run, seen) => each(value, run, seen) ?? dependent(value, run, seen);
}

/** `dependentSchemas`: for each property present, a schema the whole object must match. */
function dependentSchemas(c: Compiler, at: Location): Check | undefined {
  const list = (c.names(at, "dependentSchemas") ?? []).map((name) => ({
    name,
    check: c.inPlace(at, "dependentSchemas", name),
  }));
  if (list.length === 0) return undefined;
  return (value, run, seen) => {
    if (!isObject(value)) return undefined;
    for (const { name, check } of list) {
      if (!Object.hasOwn(value, name)) continue;
      const failure = check(value, run, seen);
      if (failure !== undefined) return failure;
    }
    return undefined;
  };
}

// `prefixItems`, `items`, and `contains` with `minContains` and `maxContains`.

/** The check of `prefixItems`, `items` and `contains` with its bounds, or undefined when the schema has none. */
export function arrayItemsCheck(c: Compiler, at: Location): Check | undefined {
  const schema = at.schema as Record<string, unknown>;
  if (schema.items !== undefined && Array.isArray(schema.items)) {
    c.refuse(at, "items", "must be a schema; JSON Schema 2020-12 writes a tuple with prefixItems");
  }
  const prefix = (c.list(at, "prefixItems") ?? []).map((sub) => c.node(sub));
  const itemsFalse = schema.items === false;
  const items = schema.items === undefined || itemsFalse ? undefined : c.sub(at, "items");
  const contains = schema.contains === undefined ? undefined : c.sub(at, "contains");
  const minContains = c.count(at, "minContains") ?? 1;
  const maxContains = c.count(at, "maxContains");
  if (prefix.length === 0 && items === undefined && !itemsFalse && contains === undefined) return undefined;
  const containsCheck = contains === undefined ? undefined : countContains(contains, minContains, maxContains);
  return (value, run, seen) => {
    if (!Array.isArray(value)) return undefined;
    const n = value.length;
    const p = Math.min(prefix.length, n);
    for (let i = 0; i < p; i++) {
      const failure = prefix[i](value[i], run, undefined);
      if (failure !== undefined) return failure.at(i);
    }
    if (itemsFalse && n > prefix.length) {
      return new Failure("items", `must hold at most ${prefix.length} items`, `got ${n}`);
    }
    if (items !== undefined) {
      for (let i = prefix.length; i < n; i++) {
        const failure = items(value[i], run, undefined);
        if (failure !== undefined) return failure.at(i);
      }
    }
    if (seen !== undefined) {
      if (p > seen.items) seen.items = p;
      if (items !== undefined || itemsFalse) seen.allItems = true;
    }
    return containsCheck?.(value, run, seen);
  };
}

function countContains(
  contains: Check,
  min: number,
  max: number | undefined,
): (items: unknown[], run: Run, seen: Seen | undefined) => Failure | undefined {
  const what = "items that match contains";
  return (items, run, seen) => {
    // Without a collector or a maximum, counting can stop at the minimum.
    if (min === 0 && max === undefined && seen === undefined) return undefined;
    let matches = 0;
    for (let i = 0; i < items.length; i++) {
      if (contains(items[i], run, undefined) !== undefined) continue;
      matches++;
      if (seen !== undefined) seen.contains(i);
      else if (max === undefined && matches >= min) return undefined;
      else if (max !== undefined && matches > max) break;
    }
    if (matches < min) {
      const keyword = min === 1 && max === undefined ? "contains" : "minContains";
      return new Failure(keyword, `must hold at least ${min} ${what}`, `got ${matches}`);
    }
    if (max !== undefined && matches > max) {
      return new Failure(
        "maxContains",
        `must hold at most ${max} ${what}`,
        `got ${seen ? matches : `${matches} or more`}`,
      );
    }
    return undefined;
  };
}

// The applicators that combine subschemas on the value itself: `allOf`, `anyOf`,
// `oneOf`, `not`, `if`/`then`/`else`. Only a subschema that passed lends its
// annotations to `unevaluated*`, so with a collector each branch gets one of
// its own, merged when the branch passes; without one, `anyOf` stops at the
// first branch that passes.

/** The checks of `allOf`, `anyOf`, `oneOf`, `not` and `if`, when present. */
export function logicChecks(c: Compiler, at: Location): Check[] {
  const schema = at.schema as Record<string, unknown>;
  const out: Check[] = [];
  const branches = (keyword: string) => c.list(at, keyword)?.map((sub) => c.inPlace(at, ...sub.tokens.slice(-2)));
  const allOf = branches("allOf");
  if (allOf !== undefined) out.push(all(allOf));
  const anyOf = branches("anyOf");
  if (anyOf !== undefined) out.push(anyOfCheck(anyOf));
  const oneOf = branches("oneOf");
  if (oneOf !== undefined) out.push(oneOfCheck(oneOf));
  if (schema.not !== undefined) {
    const not = c.inPlace(at, "not");
    out.push((value, run) =>
      not(value, run, undefined) === undefined ? new Failure("not", "must not match the schema under not") : undefined
    );
  }
  if (schema.if !== undefined) out.push(ifCheck(c, at));
  return out;
}

function anyOfCheck(branches: Check[]): Check {
  return (value, run, seen) => {
    let passed = false;
    const failures: Failure[] = [];
    for (let i = 0; i < branches.length; i++) {
      const mine = seen === undefined ? undefined : new Seen();
      const failure = branches[i](value, run, mine);
      if (failure !== undefined) {
        failures.push(failure);
      } else if (seen === undefined) {
        return undefined;
      } else {
        passed = true;
        seen.merge(mine!);
      }
    }
    return passed ? undefined : noneMatched(failures);
  };
}

/**
 * Why no `anyOf` branch matched, in the words of the two commonest shapes: a
 * list of types (`anyOf: [{type: "integer"}, {type: "null"}]`, as generators
 * write an optional value) and a list of alternative required properties.
 */
function noneMatched(failures: Failure[]): Failure {
  if (failures.every((f) => f.keyword === "type" && f.steps.length === 0)) {
    const types = failures.map((f) => f.rule.replace(/^must be /, ""));
    return new Failure("anyOf", `must be ${[...new Set(types)].join(" or ")}`, failures[0].detail);
  }
  if (failures.every((f) => f.keyword === "required" && f.steps.length === 1)) {
    const names = failures.map((f) => JSON.stringify(f.steps[0]).slice(0, 34));
    return new Failure("anyOf", `must have ${[...new Set(names)].join(" or ")}`);
  }
  return new Failure("anyOf", `matches none of the ${failures.length} allowed forms`);
}

function oneOfCheck(branches: Check[]): Check {
  const rule = `must match exactly one of ${branches.length} forms`;
  return (value, run, seen) => {
    let passed = 0;
    let annotations: Seen | undefined;
    for (let i = 0; i < branches.length; i++) {
      const mine = seen === undefined ? undefined : new Seen();
      if (branches[i](value, run, mine) !== undefined) continue;
      passed++;
      annotations = mine;
    }
    if (passed !== 1) return new Failure("oneOf", rule, `matches ${passed}`);
    if (seen !== undefined) seen.merge(annotations!);
    return undefined;
  };
}

/** `if`/`then`/`else`: without `if`, `then` and `else` do nothing. */
function ifCheck(c: Compiler, at: Location): Check {
  const schema = at.schema as Record<string, unknown>;
  const test = c.inPlace(at, "if");
  const then = schema.then === undefined ? undefined : c.inPlace(at, "then");
  const otherwise = schema.else === undefined ? undefined : c.inPlace(at, "else");
  return (value, run, seen) => {
    // Alone, `if` decides nothing: it runs only to lend its annotations.
    if (then === undefined && otherwise === undefined && seen === undefined) return undefined;
    const mine = seen === undefined ? undefined : new Seen();
    if (test(value, run, mine) === undefined) {
      if (mine !== undefined) seen!.merge(mine);
      return then?.(value, run, seen);
    }
    return otherwise?.(value, run, seen);
  };
}
