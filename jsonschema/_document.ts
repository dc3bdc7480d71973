// One schema document, walked once before anything is compiled: which schema
// resources it holds (`$id`), their anchors (`$anchor`, `$dynamicAnchor`), and
// which resource every subschema belongs to, with the URI references and JSON
// Pointers that name them. `$ref` resolves against this map only: a reference
// to anything the document does not hold is remote, and refused. Resolution is
// the WHATWG URL parser's (RFC 3986 for the URIs schemas use); nothing here
// ever fetches anything.

import { SUBSCHEMA_KEYWORDS } from "./subschema_keywords.ts";

/** A schema resource: the root schema or a subschema with `$id`. */
export interface Resource {
  /** Its absolute URI, without fragment. */
  readonly uri: string;
  /** Where its root sits in the document. */
  readonly tokens: readonly string[];
  /** Anchor name → where the anchored subschema sits in the document. */
  readonly anchors: Map<string, readonly string[]>;
  /** The names of its `$dynamicAnchor`s. */
  readonly dynamicAnchors: Set<string>;
}

const { single: SINGLE, maps: MAPS, lists: LISTS } = SUBSCHEMA_KEYWORDS;

/** Throws the error for a schema that cannot be compiled, at `tokens` in the document. */
export type Refuse = (tokens: readonly string[], problem: string) => never;

/** The resources and anchors of one schema document. */
export class SchemaDocument {
  /** Resources by absolute URI. */
  readonly resources: Map<string, Resource> = new Map();
  /** Whether any subschema uses `$dynamicRef`, so that checks must track the dynamic scope. */
  dynamic = false;
  readonly #owners = new Map<string, Resource>();
  readonly #refuse: Refuse;

  /**
   * @param root The schema, as parsed JSON.
   * @param refuse Throws for an `$id` or anchor that cannot be used.
   */
  constructor(readonly root: unknown, refuse: Refuse) {
    this.#refuse = refuse;
    this.#walk(root, [], undefined);
  }

  /** The root resource. */
  get rootResource(): Resource {
    return this.#owners.get("")!;
  }

  /** The resource the subschema at `tokens` belongs to (for a location the walk did not visit, its nearest ancestor's). */
  resourceAt(tokens: readonly string[]): Resource {
    for (let n = tokens.length; n >= 0; n--) {
      const owner = this.#owners.get(pointerOf(tokens.slice(0, n)));
      if (owner !== undefined) return owner;
    }
    return this.rootResource;
  }

  #walk(schema: unknown, tokens: string[], parent: Resource | undefined): void {
    if (schema === null || typeof schema !== "object" || Array.isArray(schema)) {
      if (parent === undefined) this.#add(DEFAULT_BASE, tokens);
      return;
    }
    const node = schema as Record<string, unknown>;
    let resource = parent;
    if (Object.hasOwn(node, "$id")) {
      const id = node.$id;
      if (typeof id !== "string") this.#refuse([...tokens, "$id"], "must be a string");
      const resolved = resolveRef(id, parent?.uri ?? DEFAULT_BASE);
      if (resolved === undefined) this.#refuse([...tokens, "$id"], `is not a URI reference: ${JSON.stringify(id)}`);
      if (resolved.fragment !== "") {
        this.#refuse(
          [...tokens, "$id"],
          `must not hold a fragment (${JSON.stringify(id)}); name a subschema with $anchor`,
        );
      }
      if (this.resources.has(resolved.uri)) {
        this.#refuse([...tokens, "$id"], `repeats the $id ${JSON.stringify(id)} of another subschema`);
      }
      resource = this.#add(resolved.uri, tokens);
    } else if (resource === undefined) {
      resource = this.#add(DEFAULT_BASE, tokens);
    }
    this.#owners.set(pointerOf(tokens), resource);
    this.#anchor(node, "$anchor", tokens, resource);
    if (this.#anchor(node, "$dynamicAnchor", tokens, resource)) {
      resource.dynamicAnchors.add(node.$dynamicAnchor as string);
    }
    if (Object.hasOwn(node, "$dynamicRef")) this.dynamic = true;
    for (const keyword of SINGLE) {
      if (Object.hasOwn(node, keyword)) this.#walk(node[keyword], [...tokens, keyword], resource);
    }
    for (const keyword of MAPS) {
      const map = node[keyword];
      if (!Object.hasOwn(node, keyword) || map === null || typeof map !== "object" || Array.isArray(map)) continue;
      for (const name of Object.keys(map)) {
        this.#walk((map as Record<string, unknown>)[name], [...tokens, keyword, name], resource);
      }
    }
    for (const keyword of LISTS) {
      const list = node[keyword];
      if (!Object.hasOwn(node, keyword) || !Array.isArray(list)) continue;
      list.forEach((sub, i) => this.#walk(sub, [...tokens, keyword, String(i)], resource));
    }
  }

  #add(uri: string, tokens: string[]): Resource {
    const resource: Resource = { uri, tokens, anchors: new Map(), dynamicAnchors: new Set() };
    this.resources.set(uri, resource);
    if (tokens.length === 0) this.#owners.set("", resource);
    return resource;
  }

  /** Registers the anchor `keyword` names, if any; returns whether there was one. */
  #anchor(node: Record<string, unknown>, keyword: string, tokens: string[], resource: Resource): boolean {
    if (!Object.hasOwn(node, keyword)) return false;
    const name = node[keyword];
    if (typeof name !== "string" || !ANCHOR.test(name)) {
      this.#refuse(
        [...tokens, keyword],
        "must be a name: a letter or '_', then letters, digits, '-', '_' or '.'",
      );
    }
    const known = resource.anchors.get(name);
    if (known !== undefined && pointerOf(known) !== pointerOf(tokens)) {
      this.#refuse([...tokens, keyword], `repeats the anchor ${JSON.stringify(name)} within one schema resource`);
    }
    resource.anchors.set(name, tokens);
    return true;
  }
}

// URI references and JSON Pointers, as `$id`, `$ref` and `$dynamicRef` use them.

/**
 * The base URI of a schema without `$id`. A hierarchical URI of its own
 * scheme, so relative references resolve against it, and no schema's `$id`
 * can name it by accident.
 */
export const DEFAULT_BASE = "forge-json-schema:/root";

/** `ref` resolved against `base`, without its fragment, and the fragment decoded; undefined when it cannot resolve. */
export function resolveRef(ref: string, base: string): { uri: string; fragment: string } | undefined {
  let href: string;
  try {
    href = new URL(ref, base).href;
  } catch {
    return undefined;
  }
  const hash = href.indexOf("#");
  if (hash === -1) return { uri: href, fragment: "" };
  try {
    return { uri: href.slice(0, hash), fragment: decodeURIComponent(href.slice(hash + 1)) };
  } catch {
    return undefined;
  }
}

/** The tokens of a JSON Pointer (`/a/b~1c` → `["a", "b/c"]`). */
export function pointerTokens(pointer: string): string[] {
  if (pointer === "") return [];
  return pointer.slice(1).split("/").map((token) => token.replaceAll("~1", "/").replaceAll("~0", "~"));
}

/** The JSON Pointer of `tokens` (`["a", "b/c"]` → `/a/b~1c`). */
export function pointerOf(tokens: readonly string[]): string {
  let out = "";
  for (const token of tokens) out += `/${token.replaceAll("~", "~0").replaceAll("/", "~1")}`;
  return out;
}

/** The value `tokens` lead to inside `root`, or undefined. Own properties only: `__proto__` is a name like any other. */
export function follow(root: unknown, tokens: readonly string[]): unknown {
  let node = root;
  for (const token of tokens) {
    if (Array.isArray(node)) {
      if (!/^(0|[1-9][0-9]*)$/.test(token)) return undefined;
      node = node[Number(token)];
    } else if (node !== null && typeof node === "object" && Object.hasOwn(node, token)) {
      node = (node as Record<string, unknown>)[token];
    } else {
      return undefined;
    }
  }
  return node;
}

/** Anchor names as 2020-12 allows them: a letter or underscore, then letters, digits, `-`, `_`, `.`. */
export const ANCHOR = /^[A-Za-z_][-A-Za-z0-9._]*$/;
