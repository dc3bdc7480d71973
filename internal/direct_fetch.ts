// Granted by derivePermissions and set by run() at start: one predicate and one
// spelling, so the printed flags and what the process does cannot drift.

/** The part of a policy's `net` that {@linkcode fetchesDirectly} reads (`NetPolicy` has it). */
export interface DirectFetchNet {
  /** The allowed hosts. */
  readonly hosts: readonly string[];
  /** Whether the policy keeps the environment's proxy. */
  readonly environmentProxy: boolean;
}

/**
 * The variables that make Deno's `fetch` connect to the URL's host whatever
 * proxy the environment names, when set to {@linkcode NO_PROXY_VALUE} (both
 * spellings: Deno reads either).
 *
 * @example Grant them
 * ```ts
 * import { NO_PROXY_VARIABLES } from "./direct_fetch.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(`--allow-env=${NO_PROXY_VARIABLES.join(",")}`, "--allow-env=NO_PROXY,no_proxy");
 * ```
 */
export const NO_PROXY_VARIABLES: readonly string[] = Object.freeze(["NO_PROXY", "no_proxy"]);

/**
 * What {@linkcode NO_PROXY_VARIABLES} are set to: every name (`*`), every IPv4
 * and every IPv6 address. On Deno 2.9.6 `*` alone matches names only: a URL
 * whose host is an IP literal still goes to the proxy.
 *
 * @example Three entries
 * ```ts
 * import { NO_PROXY_VALUE } from "./direct_fetch.ts";
 * import assert from "node:assert/strict";
 *
 * assert.deepEqual(NO_PROXY_VALUE.split(","), ["*", "0.0.0.0/0", "::/0"]);
 * ```
 */
export const NO_PROXY_VALUE = "*,0.0.0.0/0,::/0";

/**
 * Whether a server under `net` turns off the environment's proxy at start:
 * it allows a host and has not opted out with `environmentProxy`.
 *
 * @param net The policy's network part.
 * @returns True when the server sets {@linkcode NO_PROXY_VARIABLES}.
 *
 * @example Only a policy that uses the network
 * ```ts
 * import { fetchesDirectly } from "./direct_fetch.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(fetchesDirectly({ hosts: ["example.com"], environmentProxy: false }), true);
 * assert.equal(fetchesDirectly({ hosts: [], environmentProxy: false }), false);
 * assert.equal(fetchesDirectly({ hosts: ["example.com"], environmentProxy: true }), false);
 * ```
 */
export function fetchesDirectly(net: DirectFetchNet): boolean {
  return net.hosts.length > 0 && !net.environmentProxy;
}

/**
 * Sets every {@linkcode NO_PROXY_VARIABLES} to {@linkcode NO_PROXY_VALUE} in this process's
 * environment. Deno's `fetch` reads the proxy variables when it makes its
 * client, on the first fetch: call it before any.
 *
 * @throws {Deno.errors.NotCapable} Without `--allow-env` for both names.
 *
 * @example At start, before any handler can fetch
 * ```ts ignore
 * import { bypassEnvironmentProxy } from "./direct_fetch.ts";
 *
 * bypassEnvironmentProxy();
 * ```
 */
export function bypassEnvironmentProxy(): void {
  for (const name of NO_PROXY_VARIABLES) Deno.env.set(name, NO_PROXY_VALUE);
}
