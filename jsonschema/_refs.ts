// `$ref` and `$dynamicRef`: resolved at compile time against the document's
// own resources (anything else is refused, never fetched), and followed at run
// time through a memo, so that a recursive schema checks each object or array
// once per target, whatever a hostile value's shape: without it, an `anyOf`
// whose branches both recurse would cost 2^depth.

import type { Check, Run, Scope } from "./_check.ts";
import type { Compiler, Location } from "./_compiler.ts";
import { follow, pointerOf, type Resource } from "./_document.ts";

let nextScope = 1;

/** A new run's state: an empty dynamic scope when the schema needs one; the memo comes with the first object or array a reference meets. */
export function newRun(dynamic: boolean): Run {
  return {
    scope: dynamic ? { providers: new Map(), id: nextScope++, inner: new Map(), registry: new Map() } : undefined,
    memo: undefined,
    ids: undefined,
  };
}

/**
 * Runs `check` with `resource` entered into the dynamic scope. Only the
 * dynamic anchors it declares that no outer resource declares change the
 * scope; entering any other resource leaves it as it is.
 */
export function entering(resource: Resource, check: Check): Check {
  return (value, run, seen) => {
    const outer = run.scope!;
    let scope = outer.inner.get(resource);
    if (scope === undefined) {
      scope = widen(outer, resource);
      outer.inner.set(resource, scope);
    }
    if (scope === outer) return check(value, run, seen);
    run.scope = scope;
    const failure = check(value, run, seen);
    run.scope = outer;
    return failure;
  };
}

/** The scope `outer` becomes when `resource` is entered: the run's one scope with those providers. */
function widen(outer: Scope, resource: Resource): Scope {
  const added = [...resource.dynamicAnchors].filter((anchor) => !outer.providers.has(anchor));
  if (added.length === 0) return outer;
  const providers = new Map(outer.providers);
  for (const anchor of added) providers.set(anchor, resource);
  const key = [...providers].map(([anchor, by]) => `${anchor}\u0000${(by as Resource).uri}`).sort().join("\u0001");
  let scope = outer.registry.get(key);
  if (scope === undefined) {
    scope = { providers, id: nextScope++, inner: new Map(), registry: outer.registry } satisfies Scope;
    outer.registry.set(key, scope);
  }
  return scope;
}

/** The checks of `$ref` and `$dynamicRef`, when present. */
export function refChecks(c: Compiler, at: Location): Check[] {
  const schema = at.schema as Record<string, unknown>;
  const out: Check[] = [];
  if (Object.hasOwn(schema, "$ref")) out.push(via(c, at, c.resolve(at, "$ref", schema.$ref).target));
  if (Object.hasOwn(schema, "$dynamicRef")) out.push(dynamicRef(c, at));
  return out;
}

/** Follows a reference from `at` to `target`, through the memo. */
function via(c: Compiler, at: Location, target: Location): Check {
  const dynamic = c.doc.dynamic;
  const key = pointerOf(target.tokens);
  const check = dynamic ? entering(target.resource, c.target(at, target)) : c.target(at, target);
  return (value, run, seen) => {
    // A collector needs the target's annotations, which the memo does not keep.
    if (seen !== undefined || value === null || typeof value !== "object") return check(value, run, seen);
    const memo = run.memo ??= new Map();
    const slot = dynamic ? `${run.scope!.id}${key}` : key;
    let verdicts = memo.get(value);
    if (verdicts === undefined) {
      verdicts = new Map();
      memo.set(value, verdicts);
    } else {
      const known = verdicts.get(slot);
      if (known !== undefined) return known === null ? undefined : known.clone();
    }
    const failure = check(value, run, seen);
    verdicts.set(slot, failure === undefined ? null : failure.clone());
    return failure;
  };
}

/**
 * `$dynamicRef`: like `$ref`, unless its target is a `$dynamicAnchor`; then
 * the outermost resource of the dynamic scope with a `$dynamicAnchor` of that
 * name supplies the schema.
 */
function dynamicRef(c: Compiler, at: Location): Check {
  const { target, anchor } = c.resolve(at, "$dynamicRef", (at.schema as Record<string, unknown>).$dynamicRef);
  const initial = via(c, at, target);
  const bookend = anchor !== undefined && (target.schema as Record<string, unknown>)?.$dynamicAnchor === anchor;
  if (!bookend) return initial;
  const candidates = new Map<object, Check>();
  for (const resource of c.doc.resources.values()) {
    if (!resource.dynamicAnchors.has(anchor)) continue;
    const tokens = resource.anchors.get(anchor)!;
    candidates.set(resource, via(c, at, { schema: follow(c.doc.root, tokens), tokens, resource }));
  }
  return (value, run, seen) => {
    const provider = run.scope!.providers.get(anchor);
    const outermost = provider === undefined ? undefined : candidates.get(provider);
    return (outermost ?? initial)(value, run, seen);
  };
}
