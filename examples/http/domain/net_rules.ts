import { isIPv6 } from "node:net";
import { definePolicy, type NetPolicyInit, type Policy, PolicyError, quote, UrlPolicy } from "@forge/toolkit/validate";

/** The part of the config that decides where requests may go. */
export interface NetConfig {
  /** `host`, `host:port`, `*.suffix[:port]` or `[v6][:port]`; without a port, the scheme's default port. */
  readonly allow_hosts: readonly string[];
  /** `https` and/or `http`. */
  readonly allow_schemes: readonly string[];
  /** Exact hosts (also listed in `allow_hosts`) that may be loopback, private or otherwise internal. */
  readonly allow_private_hosts: readonly string[];
  /** Deadline of one fetch, redirects and body included. */
  readonly timeout_ms: number;
  /** Most body bytes kept; the rest is cut and marked. */
  readonly max_bytes: number;
  /** Most redirects followed. */
  readonly max_redirects: number;
}

/** One `allow_hosts` entry. */
export interface HostEntry {
  /** The host as written, lower-cased: a name, `*.suffix`, an IPv4 literal or `[v6]`. */
  readonly host: string;
  /** The one port allowed for it, or `undefined` for the default port of each allowed scheme. */
  readonly port: number | undefined;
}

const DEFAULT_PORTS: Readonly<Record<string, number>> = { https: 443, http: 80 };

/**
 * Splits an `allow_hosts` entry into host and port. The host itself is
 * checked later by `definePolicy` (canonical names and IP literals only).
 *
 * @param entry The entry as written in the config.
 * @returns The host and its port, if any.
 * @throws {TypeError} When the port is not a number from 1 to 65535, or an IPv6 address lacks brackets.
 *
 * @example Entries with and without a port
 * ```ts
 * import { parseHostEntry } from "./net_rules.ts";
 * import assert from "node:assert/strict";
 *
 * assert.deepEqual(parseHostEntry("api.example.com"), { host: "api.example.com", port: undefined });
 * assert.deepEqual(parseHostEntry("127.0.0.1:8080"), { host: "127.0.0.1", port: 8080 });
 * assert.deepEqual(parseHostEntry("[::1]:8443"), { host: "[::1]", port: 8443 });
 * ```
 */
export function parseHostEntry(entry: string): HostEntry {
  const text = entry.toLowerCase();
  const bad = (why: string) => new TypeError(`Cannot use host ${quote(entry, 100)}: ${why}`);
  let host = text;
  let port: string | undefined;
  if (text.startsWith("[")) {
    const close = text.indexOf("]");
    if (close === -1) throw bad("the IPv6 address has no closing bracket");
    host = text.slice(0, close + 1);
    const rest = text.slice(close + 1);
    if (rest !== "" && !rest.startsWith(":")) throw bad("expected :port after the IPv6 address");
    if (rest !== "") port = rest.slice(1);
  } else if (isIPv6(text)) {
    throw bad("write an IPv6 address in brackets, e.g. [::1]:8080");
  } else if (text.includes(":")) {
    const colon = text.lastIndexOf(":");
    host = text.slice(0, colon);
    port = text.slice(colon + 1);
  }
  if (port === undefined) return { host, port: undefined };
  const number = Number(port);
  if (!/^\d{1,5}$/.test(port) || number < 1 || number > 65535) throw bad("the port is not a number from 1 to 65535");
  return { host, port: number };
}

/**
 * The network part of the policy for a config: hosts, schemes, the private
 * hosts, and every port any entry uses. Deno's flags and the toolkit's URL
 * policy know ports only per policy, not per host; {@linkcode NetRules}
 * narrows that back to per-host ports.
 *
 * @param config The network fields of the config.
 * @returns The init for `definePolicy`'s `net`.
 * @throws {TypeError} When an entry is malformed, or a private host is not also in `allow_hosts`.
 *
 * @example The ports of every entry
 * ```ts
 * import { netPolicyInit } from "./net_rules.ts";
 * import assert from "node:assert/strict";
 *
 * const init = netPolicyInit({
 *   allow_hosts: ["api.example.com", "127.0.0.1:8080"],
 *   allow_schemes: ["https"],
 *   allow_private_hosts: ["127.0.0.1"],
 * });
 * assert.deepEqual(init.ports, [443, 8080]);
 * ```
 */
export function netPolicyInit(
  config: Pick<NetConfig, "allow_hosts" | "allow_schemes" | "allow_private_hosts">,
): NetPolicyInit {
  const entries = config.allow_hosts.map(parseHostEntry);
  const hosts = entries.map((entry) => entry.host);
  // A set: a list looked up once per private host is quadratic (50,000 of each took seconds).
  const listed = new Set(hosts);
  for (const host of config.allow_private_hosts) {
    if (!listed.has(host.toLowerCase())) {
      throw new TypeError(
        `Cannot allow private host ${quote(host, 100)}: it is not a host of allow_hosts (list it there too)`,
      );
    }
  }
  const ports = new Set<number>();
  for (const entry of entries) {
    if (entry.port !== undefined) ports.add(entry.port);
    else for (const scheme of config.allow_schemes) ports.add(DEFAULT_PORTS[scheme]);
  }
  return {
    schemes: config.allow_schemes,
    hosts: [...new Set(hosts)],
    ports: [...ports],
    privateHosts: config.allow_private_hosts.map((host) => host.toLowerCase()),
  };
}

/** Where a redirect hop comes from, for {@linkcode NetRules.assertRedirect}. */
export interface RedirectOrigin {
  /** The URL that redirected to the hop. */
  from: URL;
  /** The URL the caller asked for, parsed. */
  first: URL;
  /** The URL as the caller gave it, for the message. */
  asked: string;
  /**
   * The hop as the server wrote it: what a refusal quotes, never a form URL
   * parsing derives from it (lower-cased, escapes decoded, punycode), which
   * could spell a secret the server echoed there in a form `redact` does not know.
   * @default {next.href}
   */
  written?: string;
  /**
   * Applied to the hop before a message quotes (and so cuts) it: a secret a
   * server echoes in a `Location` is hidden whole, never cut to its start.
   * @default {no change}
   */
  redact?: (text: string) => string;
}

/**
 * Layer 1 for one version of the config: the policy `safeFetch` enforces on
 * every hop, plus the per-host port rule that the policy cannot express.
 *
 * @example Check a URL's text
 * ```ts
 * import { NetRules } from "./net_rules.ts";
 * import { PolicyError } from "@forge/toolkit/validate";
 * import assert from "node:assert/strict";
 *
 * const rules = new NetRules({
 *   allow_hosts: ["api.example.com", "127.0.0.1:8080"],
 *   allow_schemes: ["https", "http"],
 *   allow_private_hosts: ["127.0.0.1"],
 *   timeout_ms: 5000,
 *   max_bytes: 65536,
 *   max_redirects: 3,
 * });
 * assert.equal(rules.check("http://127.0.0.1:8080/x").port, "8080");
 * assert.throws(() => rules.check("https://api.example.com:8080/"), PolicyError);
 * ```
 */
export class NetRules {
  /** The policy for `safeFetch`: net, byte cap, deadline and redirects of this config. */
  readonly policy: Policy;
  readonly #entries: readonly HostEntry[];
  readonly #urls: UrlPolicy;

  /**
   * Builds the rules.
   *
   * @param config The network fields of the config.
   * @throws {TypeError} When an entry is malformed (see {@linkcode netPolicyInit}).
   * @throws {RangeError} When a limit is out of range.
   */
  constructor(config: NetConfig) {
    this.#entries = config.allow_hosts.map(parseHostEntry);
    this.policy = definePolicy({
      net: netPolicyInit(config),
      limits: {
        maxFetchBytes: config.max_bytes,
        fetchTimeoutMs: config.timeout_ms,
        maxRedirects: config.max_redirects,
      },
      tenantConfig: false,
    });
    this.#urls = new UrlPolicy(this.policy);
  }

  /**
   * Checks a URL's text without touching the network: the URL policy, then
   * the port of the entry that allowed its host.
   *
   * @param url The URL as the caller gave it.
   * @returns The parsed URL.
   * @throws {PolicyError} When any part is not allowed.
   */
  check(url: string): URL {
    const parsed = this.#urls.check(url);
    this.assertPort(parsed, { asked: url });
    return parsed;
  }

  /**
   * Refuses a URL whose port is not the one allowed for its host (a port
   * another entry allows passes the policy, which has one port list).
   *
   * @param url A URL that passed the policy.
   * @param shown The URL the caller asked for, and what hides secrets in the host, for the message.
   * @throws {PolicyError} When no entry for the host allows the port.
   */
  assertPort(url: URL, shown: Pick<RedirectOrigin, "asked" | "redact">): void {
    const { asked, redact = (text: string) => text } = shown;
    if (!this.#entries.some((entry) => fits(entry, url))) {
      throw new PolicyError(
        "port",
        `Cannot fetch ${quote(asked, 100)}: the port ${portOf(url)} is not allowed for ${
          quote(redact(url.hostname), 100)
        }`,
      );
    }
  }

  /**
   * Refuses a redirect hop, before it is requested, unless it stays within
   * the `allow_hosts` entries that allowed the URL the caller asked for (same
   * host pattern, that entry's port) and does not go from https to http. A
   * server answering one call thus never sends it to another entry — above
   * all to a private host's port — that the caller did not ask for; the
   * caller can fetch that URL itself, under the same rules.
   *
   * @param next The hop, already accepted by the URL policy.
   * @param origin Where it comes from: the URL that redirected to it and the one the caller asked for.
   * @throws {PolicyError} When the hop leaves those entries or downgrades to http.
   */
  assertRedirect(next: URL, origin: RedirectOrigin): void {
    const { from, first, asked, written = next.href, redact = (text: string) => text } = origin;
    const shown = quote(redact(written), 200);
    if (!this.#entries.some((entry) => fits(entry, next))) {
      throw new PolicyError(
        "port",
        `Cannot fetch ${quote(asked, 100)}: it redirects to ${shown}, and its port is not allowed for its host`,
      );
    }
    if (from.protocol === "https:" && next.protocol === "http:") {
      throw new PolicyError(
        "redirect",
        `Cannot fetch ${quote(asked, 100)}: it redirects from https to http (${shown})`,
      );
    }
    const allowing = this.#entries.filter((entry) => fits(entry, first));
    if (!allowing.some((entry) => fits(entry, next))) {
      // An entry written as ${NAME} is named so, as stderr names it: the loader's redaction knows the value in the
      // letter case the policy holds it in.
      const names = allowing.map((entry) =>
        quote(redact(entry.port === undefined ? entry.host : `${entry.host}:${entry.port}`), 100)
      );
      throw new PolicyError(
        "redirect",
        `Cannot fetch ${quote(asked, 100)}: it redirects to ${shown}, outside the allow_hosts entry that allowed it ` +
          `(${names.join(", ")}); fetch that URL directly if it is allowed`,
      );
    }
  }
}

/** Whether an entry allows a URL's host and port (no port in the entry: the scheme's default port). */
function fits(entry: HostEntry, url: URL): boolean {
  const port = portOf(url);
  const scheme = url.protocol.slice(0, -1);
  return matches(entry.host, url.hostname) &&
    (entry.port === undefined ? port === DEFAULT_PORTS[scheme] : entry.port === port);
}

function portOf(url: URL): number {
  return url.port === "" ? DEFAULT_PORTS[url.protocol.slice(0, -1)] : Number(url.port);
}

/** Host matching as the URL policy does it: exact, or `*.suffix` for subdomains only. */
function matches(allowed: string, host: string): boolean {
  if (allowed === host) return true;
  return allowed.startsWith("*.") && host.endsWith(allowed.slice(1)) && host.length > allowed.length - 1;
}
