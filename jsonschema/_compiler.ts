// Compiles the subschemas of one document, each location once. Keyword
// modules ask it for their subschemas' checks, the checks `$ref` points at,
// and the well-formedness of their values; it throws SchemaError for anything
// it cannot enforce, so a compiled schema is enforced in full.

import type { Check, Run } from "./_check.ts";
import { follow, pointerOf, pointerTokens, resolveRef, type Resource, type SchemaDocument } from "./_document.ts";
import { SchemaError } from "./schema_error.ts";

/** A subschema and where it sits. */
export interface Location {
  /** The subschema (an object or a boolean, once checked). */
  readonly schema: unknown;
  /** Where it sits in the document. */
  readonly tokens: readonly string[];
  /** The resource it belongs to, whose URI is its base. */
  readonly resource: Resource;
}

/** What the compiler needs from the caller's options. */
export interface CompilerOptions {
  /** The schema's name in messages, e.g. `inputSchema`. */
  readonly name: string;
  /** Whether `format` asserts the formats it knows. */
  readonly assertFormats: boolean;
}

/** Compiles one subschema object; set by the module that knows every keyword. */
export type CompileNode = (compiler: Compiler, at: Location) => Check;

/** The compiler of one schema document. */
export class Compiler {
  readonly #nodes = new Map<string, Check>();
  readonly #inPlace = new Map<string, Set<string>>();
  /** The locations `$ref` and `$dynamicRef` point at: their checks are memoized per run. */
  readonly #targets = new Set<string>();

  /**
   * @param doc The document's resources and anchors.
   * @param options The caller's options.
   * @param compileNode Compiles one subschema.
   */
  constructor(readonly doc: SchemaDocument, readonly options: CompilerOptions, readonly compileNode: CompileNode) {}

  /** The check of the subschema at `at`, compiled once per location. */
  node(at: Location): Check {
    const key = pointerOf(at.tokens);
    const known = this.#nodes.get(key);
    if (known !== undefined) return known;
    // A recursive reference meets this forwarder while its target compiles.
    const slot: { check?: Check } = {};
    this.#nodes.set(key, (value, run, seen) => slot.check!(value, run, seen));
    slot.check = this.compileNode(this, at);
    this.#nodes.set(key, slot.check);
    return slot.check;
  }

  /** The location of `at`'s subschema under `tokens` (e.g. `properties`, `name`). */
  child(at: Location, ...tokens: string[]): Location {
    let schema = at.schema;
    for (const token of tokens) schema = (schema as Record<string, unknown>)[token];
    const path = [...at.tokens, ...tokens];
    return { schema, tokens: path, resource: this.doc.resourceAt(path) };
  }

  /** The check of a subschema that applies to a part of the value (a property, an item). */
  sub(at: Location, ...tokens: string[]): Check {
    return this.node(this.#schemaAt(at, tokens));
  }

  /** The check of a subschema that applies to the same value (`allOf`, `not`, `if`…). */
  inPlace(at: Location, ...tokens: string[]): Check {
    const target = this.#schemaAt(at, tokens);
    this.#edge(at, target);
    return this.node(target);
  }

  /** Where `ref` (the value of `at`'s `keyword`) points, refusing what the document does not hold. */
  resolve(at: Location, keyword: string, ref: unknown): { target: Location; anchor: string | undefined } {
    if (typeof ref !== "string") this.refuse(at, keyword, "must be a string (a URI reference)");
    const resolved = resolveRef(ref, at.resource.uri);
    if (resolved === undefined) this.refuse(at, keyword, `is not a URI reference: ${JSON.stringify(ref)}`);
    const resource = this.doc.resources.get(resolved.uri);
    if (resource === undefined) {
      this.refuse(
        at,
        keyword,
        `${JSON.stringify(ref)} refers to a schema outside this one (${
          JSON.stringify(resolved.uri)
        }): remote references are refused, never fetched; put the schema under $defs`,
      );
    }
    const { fragment } = resolved;
    let tokens: readonly string[] | undefined;
    let anchor: string | undefined;
    if (fragment === "") {
      tokens = resource.tokens;
    } else if (fragment.startsWith("/")) {
      tokens = [...resource.tokens, ...pointerTokens(fragment)];
    } else {
      anchor = fragment;
      tokens = resource.anchors.get(fragment);
      if (tokens === undefined) this.refuse(at, keyword, `${JSON.stringify(ref)} names no $anchor of this schema`);
    }
    const schema = follow(this.doc.root, tokens);
    if (schema === undefined) this.refuse(at, keyword, `${JSON.stringify(ref)} points at nothing in this schema`);
    return { target: { schema, tokens, resource: this.doc.resourceAt(tokens) }, anchor };
  }

  /** The check of a reference's target, which applies to the same value. */
  target(at: Location, target: Location): Check {
    this.#edge(at, target);
    this.#targets.add(pointerOf(target.tokens));
    return this.node(target);
  }

  /** Whether any reference was compiled: then each run keeps a memo. */
  get hasReferences(): boolean {
    return this.#targets.size > 0;
  }

  /** Whether a check keeps numbers of values for the run (`uniqueItems`): then each run has its own state. */
  comparesValues = false;

  /** A non-negative integer keyword (`minLength`, `maxItems`…), or undefined when absent. */
  count(at: Location, keyword: string): number | undefined {
    const value = (at.schema as Record<string, unknown>)[keyword];
    if (value === undefined) return undefined;
    if (!Number.isSafeInteger(value) || (value as number) < 0) {
      this.refuse(at, keyword, "must be a non-negative integer");
    }
    return value as number;
  }

  /** A numeric keyword (`minimum`, `maximum`…), or undefined when absent. */
  number(at: Location, keyword: string): number | undefined {
    const value = (at.schema as Record<string, unknown>)[keyword];
    if (value === undefined) return undefined;
    if (typeof value !== "number" || !Number.isFinite(value)) this.refuse(at, keyword, "must be a finite number");
    return value;
  }

  /** A keyword whose value is a non-empty list of subschemas: their locations. */
  list(at: Location, keyword: string): Location[] | undefined {
    const value = (at.schema as Record<string, unknown>)[keyword];
    if (value === undefined) return undefined;
    if (!Array.isArray(value) || value.length === 0) this.refuse(at, keyword, "must be a non-empty array of schemas");
    return value.map((_, i) => this.child(at, keyword, String(i)));
  }

  /** A keyword whose value maps names to subschemas: the names, in order. */
  names(at: Location, keyword: string): string[] | undefined {
    const value = (at.schema as Record<string, unknown>)[keyword];
    if (value === undefined) return undefined;
    if (value === null || typeof value !== "object" || Array.isArray(value)) {
      this.refuse(at, keyword, "must be an object of schemas");
    }
    return Object.keys(value);
  }

  /** Throws the SchemaError for `at`'s `keyword`. */
  refuse(at: Location, keyword: string | readonly string[], problem: string): never {
    const tokens = typeof keyword === "string" ? [...at.tokens, keyword] : [...at.tokens, ...keyword];
    throw new SchemaError(`${this.options.name}${pointerOf(tokens)} ${problem}`);
  }

  /**
   * Refuses a chain of in-place applicators that leads back to where it
   * started: such a schema would check the same value forever.
   */
  refuseLoops(): void {
    const done = new Set<string>();
    const active = new Set<string>();
    const visit = (key: string): void => {
      if (done.has(key)) return;
      if (active.has(key)) {
        throw new SchemaError(
          `${this.options.name}${key} refers back to itself without going into the value: checking would never end`,
        );
      }
      active.add(key);
      for (const next of this.#inPlace.get(key) ?? []) visit(next);
      active.delete(key);
      done.add(key);
    };
    for (const key of this.#nodes.keys()) visit(key);
  }

  #schemaAt(at: Location, tokens: string[]): Location {
    const child = this.child(at, ...tokens);
    const schema = child.schema;
    if (typeof schema !== "boolean" && (schema === null || typeof schema !== "object" || Array.isArray(schema))) {
      this.refuse(at, tokens, "must be a schema (an object or a boolean)");
    }
    return child;
  }

  #edge(from: Location, to: Location): void {
    const key = pointerOf(from.tokens);
    let edges = this.#inPlace.get(key);
    if (edges === undefined) this.#inPlace.set(key, edges = new Set());
    edges.add(pointerOf(to.tokens));
  }
}

/** A run with no state: what a schema without `$dynamicRef` or recursion needs. */
export const STATELESS: Run = Object.freeze({ scope: undefined, memo: undefined, ids: undefined });
