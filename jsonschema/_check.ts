// The shape every compiled keyword shares. A schema is compiled once into
// checks; a call runs only the checks its keywords produced and never reads
// the schema object again. A check returns its first failure and, when asked,
// collects what it evaluated (Seen) for `unevaluated*` around it.

import type { ValueIds } from "./_value_ids.ts";

/** Where and why a value broke a rule. The path grows, innermost step first, as the failure climbs out. */
export class Failure {
  /** Steps from the checked value down to the one that broke the rule, innermost first. */
  readonly steps: (string | number)[] = [];
  /** The value was null where an optional property was expected. */
  nullForOptional = false;

  /**
   * @param keyword The rule's keyword, shown in parentheses.
   * @param rule What the value must be, e.g. `must be at most 10`.
   * @param detail What it was instead, e.g. `got 12`.
   * @param names The allowed property names, for `additionalProperties`.
   */
  constructor(
    readonly keyword: string,
    readonly rule: string,
    readonly detail?: string,
    readonly names?: readonly string[],
  ) {}

  /** Puts the failure one step further down: under property or index `step`. */
  at(step: string | number): Failure {
    this.steps.push(step);
    return this;
  }

  /** A copy, for a memo: the original goes on climbing out and growing its path. */
  clone(): Failure {
    const copy = new Failure(this.keyword, this.rule, this.detail, this.names);
    copy.steps.push(...this.steps);
    copy.nullForOptional = this.nullForOptional;
    return copy;
  }
}

/** The state one validation carries: the dynamic scope and the verdicts of references already followed. */
export interface Run {
  /** The dynamic scope, for `$dynamicRef`; undefined when the schema has none. */
  scope: Scope | undefined;
  /** Per object or array: the verdict of each reference target already checked on it, `null` for a pass. */
  memo: Map<object, Map<string, Failure | null>> | undefined;
  /** The numbers `uniqueItems` compares items by, kept for the whole run; made by the first check that needs them. */
  ids: ValueIds | undefined;
}

/**
 * The dynamic scope, as far as `$dynamicRef` can tell it apart: for each
 * `$dynamicAnchor` name, the outermost resource entered that declares it.
 * Two chains of resources that agree on those resolve every `$dynamicRef`
 * alike, so they are one scope: scopes are interned per run by that content
 * (`registry`), and the memo keys verdicts by scope without telling apart
 * the paths that led there.
 */
export interface Scope {
  /** `$dynamicAnchor` name → the outermost resource entered that declares it. */
  readonly providers: ReadonlyMap<string, object>;
  /** Unique among scopes, for memo keys. */
  readonly id: number;
  /** The scope each resource leads to when entered from this one, by resource. */
  readonly inner: Map<object, Scope>;
  /** Every scope of the run, by its providers (shared by all of them). */
  readonly registry: Map<string, Scope>;
}

/**
 * A compiled schema: `undefined` when `value` keeps every rule, else the
 * first failure. `seen`, when given, collects what the schema evaluated, for
 * `unevaluatedProperties` and `unevaluatedItems` around it.
 */
export type Check = (value: unknown, run: Run, seen: Seen | undefined) => Failure | undefined;

/** The check of the `true` schema and of a schema without assertions. */
export const PASS: Check = (): undefined => undefined;

/** Runs `checks` in order and returns the first failure. */
export function all(checks: readonly Check[]): Check {
  if (checks.length === 0) return PASS;
  if (checks.length === 1) return checks[0];
  if (checks.length === 2) {
    const [a, b] = checks;
    return (value, run, seen) => a(value, run, seen) ?? b(value, run, seen);
  }
  if (checks.length === 3) {
    const [a, b, c] = checks;
    return (value, run, seen) => a(value, run, seen) ?? b(value, run, seen) ?? c(value, run, seen);
  }
  return (value, run, seen) => {
    for (let i = 0; i < checks.length; i++) {
      const failure = checks[i](value, run, seen);
      if (failure !== undefined) return failure;
    }
    return undefined;
  };
}

/** Whether `value` is a JSON object (not null, not an array). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

// What a schema evaluated of one object or array: the annotations that
// `unevaluatedProperties` and `unevaluatedItems` read. Only a schema with one
// of those keywords creates a collector, so every other check runs without.

/** The properties and items a schema (and the subschemas it applied in place) evaluated. */
export class Seen {
  /** Every property was evaluated (`additionalProperties`, `unevaluatedProperties`). */
  allProps = false;
  /** The properties evaluated by name or pattern. */
  props: Set<string> | undefined;
  /** Items `0` up to this index (excluded) were evaluated (`prefixItems`). */
  items = 0;
  /** Every item was evaluated (`items`, `unevaluatedItems`). */
  allItems = false;
  /** Items that matched `contains`. */
  contained: Set<number> | undefined;

  /** Records that property `name` was evaluated. */
  prop(name: string): void {
    (this.props ??= new Set()).add(name);
  }

  /** Records that item `index` matched `contains`. */
  contains(index: number): void {
    (this.contained ??= new Set()).add(index);
  }

  /** Whether property `name` was evaluated. */
  hasProp(name: string): boolean {
    return this.allProps || this.props?.has(name) === true;
  }

  /** Whether item `index` was evaluated. */
  hasItem(index: number): boolean {
    return this.allItems || index < this.items || this.contained?.has(index) === true;
  }

  /** Adds what `other`, a subschema that passed, evaluated. */
  merge(other: Seen): void {
    if (other.allProps) this.allProps = true;
    else if (other.props !== undefined && !this.allProps) { for (const name of other.props) this.prop(name); }
    if (other.allItems) this.allItems = true;
    if (other.items > this.items) this.items = other.items;
    if (other.contained !== undefined && !this.allItems) { for (const index of other.contained) this.contains(index); }
  }
}
