import { lookup } from "node:dns/promises";
import { isIPv4, isIPv6 } from "../internal/ip.ts";
import { classifyAddress } from "./address.ts";
import type { NetPolicy, Policy } from "./policy.ts";
import { PolicyError } from "./policy_error.ts";
import { quote } from "../internal/quote.ts";

/** Resolves a host name to its addresses. */
export type HostLookup = (hostname: string) => Promise<readonly string[]>;

/** Options of {@linkcode UrlPolicy}. */
export interface UrlPolicyOptions {
  /**
   * How host names are resolved. Deno checks `--allow-net=<host>` (all ports)
   * for this call.
   * @default {node:dns lookup, every address}
   */
  lookup?: HostLookup;
  /**
   * Applied to the URL and its parts before a refusal quotes them: a
   * redirect hop is a server's text, and a secret it echoes there must be
   * hidden whole before the quote cuts it (a cut would show its start).
   * @default {no change}
   */
  redact?: (text: string) => string;
}

const DEFAULT_PORTS: Record<string, number> = { "https:": 443, "http:": 80 };

/**
 * Layer 1 for the network: decides whether a URL may be fetched. The
 * synchronous {@linkcode UrlPolicy.check} looks at the text: the scheme,
 * userinfo, the form of an IP literal (decimal `2130706433`, octal, hex and
 * IPv4-mapped IPv6 are refused, only the canonical form passes), the host
 * (exact or `*.suffix`) and the port. {@linkcode UrlPolicy.checkResolved}
 * resolves the host and refuses it when any address is loopback, private,
 * link-local, cloud metadata, multicast, unspecified or reserved — unless
 * the host is in `privateHosts`.
 *
 * @example Check URLs against a policy
 * ```ts
 * import { definePolicy, PolicyError, UrlPolicy } from "@forge/toolkit/validate";
 * import assert from "node:assert/strict";
 *
 * const urls = new UrlPolicy(definePolicy({ net: { hosts: ["api.example.com"] } }));
 * assert.equal(urls.check("https://api.example.com/v1").hostname, "api.example.com");
 * assert.throws(() => urls.check("http://api.example.com/"), PolicyError);
 * assert.throws(() => urls.check("https://2130706433/"), PolicyError);
 * ```
 */
export class UrlPolicy {
  #net: NetPolicy;
  #maxLength: number;
  #lookup: HostLookup;
  #redact: (text: string) => string;

  /**
   * Builds the checker.
   *
   * @param policy The policy whose `net` and `limits.maxUrlLength` apply.
   * @param options The resolver, and what hides secrets in a refusal.
   */
  constructor(policy: Policy, options: UrlPolicyOptions = {}) {
    this.#net = policy.net;
    this.#maxLength = policy.limits.maxUrlLength;
    this.#lookup = options.lookup ?? lookupAll;
    this.#redact = options.redact ?? ((text) => text);
  }

  /**
   * Checks the text of a URL without touching the network.
   *
   * @param input The URL as the caller gave it.
   * @returns The parsed URL.
   * @throws {PolicyError} When any part is not allowed.
   *
   * @example Refuse userinfo
   * ```ts
   * import { definePolicy, PolicyError, UrlPolicy } from "@forge/toolkit/validate";
   * import assert from "node:assert/strict";
   *
   * const urls = new UrlPolicy(definePolicy({ net: { hosts: ["example.com"] } }));
   * assert.throws(() => urls.check("https://user@example.com/"), PolicyError);
   * ```
   */
  check(input: string): URL {
    const refuse = (code: PolicyError["code"], state: string): never => {
      throw new PolicyError(code, `Cannot fetch ${this.#quoted(input)}: ${state}`);
    };
    if (typeof input !== "string") throw new PolicyError("invalid-input", "Cannot fetch: the URL must be a string");
    if (input.length > this.#maxLength) refuse("invalid-input", `the URL is longer than ${this.#maxLength} characters`);
    const authority = rawAuthority(input);
    if (authority === undefined) refuse("invalid-input", "it is not an absolute URL of the form scheme://host/path");
    let url: URL;
    try {
      url = new URL(input);
    } catch {
      return refuse("invalid-input", "it is not a valid URL");
    }
    const scheme = url.protocol.slice(0, -1);
    if (!this.#net.schemes.includes(scheme)) {
      refuse(
        "scheme",
        `the scheme ${quote(this.#redact(scheme))} is not allowed (allowed: ${this.#net.schemes.join(", ") || "none"})`,
      );
    }
    if (authority!.includes("@") || url.username !== "" || url.password !== "") {
      refuse("userinfo", "URLs with a user name or password are not allowed");
    }
    const host = url.hostname;
    const literal = isIPv4(host) || (host.startsWith("[") && isIPv6(host.slice(1, -1)));
    if (literal) {
      // Mapped first: the canonical spelling of a mapped address is refused too, so it is never the advice.
      if (host.startsWith("[::ffff:")) refuse("ip-literal", "IPv4-mapped IPv6 addresses are not allowed");
      if (rawHost(authority!) !== host) refuse("ip-literal", `the IP address is not in canonical form, write ${host}`);
    } else if (host === "" || host.endsWith(".")) {
      refuse("host", "the host name is empty or ends with a dot");
    }
    if (!this.#hostAllowed(host)) refuse("host", `the host ${quote(this.#redact(host))} is not allowed`);
    const port = url.port === "" ? DEFAULT_PORTS[url.protocol] : Number(url.port);
    if (!this.#net.ports.includes(port)) refuse("port", `the port ${port} is not allowed`);
    if (literal && !this.#net.privateHosts.includes(host)) {
      const kind = classifyAddress(host.replace(/^\[|\]$/g, ""));
      if (kind) refuse("address", `${host} is a ${kind} address`);
    }
    return url;
  }

  /**
   * Resolves the URL's host and checks every address it has (this is where
   * DNS rebinding to an internal address is caught). Hosts in `privateHosts`
   * are not resolved here.
   *
   * @param url A URL that passed {@linkcode UrlPolicy.check}.
   * @returns The addresses the host resolved to (empty for a private host).
   * @throws {PolicyError} When the host does not resolve or any address is not public.
   *
   * @example Refuse a name that resolves to loopback
   * ```ts
   * import { definePolicy, PolicyError, UrlPolicy } from "@forge/toolkit/validate";
   * import assert from "node:assert/strict";
   *
   * const policy = definePolicy({ net: { hosts: ["intranet.example"] } });
   * const urls = new UrlPolicy(policy, { lookup: () => Promise.resolve(["10.0.0.8"]) });
   * await assert.rejects(urls.checkResolved(urls.check("https://intranet.example/")), PolicyError);
   * ```
   */
  async checkResolved(url: URL): Promise<readonly string[]> {
    const host = url.hostname;
    if (this.#net.privateHosts.includes(host)) return [];
    const bare = host.replace(/^\[|\]$/g, "");
    if (isIPv4(bare) || isIPv6(bare)) return [bare];
    const shown = `Cannot fetch ${this.#quoted(url.href)}`;
    let addresses: readonly string[];
    try {
      addresses = await this.#lookup(host);
    } catch (err) {
      throw new PolicyError("network", `${shown}: the host name does not resolve`, { cause: err });
    }
    if (addresses.length === 0) throw new PolicyError("network", `${shown}: the host name does not resolve`);
    for (const address of addresses) {
      const kind = classifyAddress(address);
      if (kind) throw new PolicyError("address", `${shown}: the host resolves to a ${kind} address`);
    }
    return addresses;
  }

  /** A URL as a refusal shows it: redacted, then quoted and cut. */
  #quoted(url: string): string {
    return quote(this.#redact(url), 100);
  }

  #hostAllowed(host: string): boolean {
    for (const allowed of this.#net.hosts) {
      if (allowed === host) return true;
      if (allowed.startsWith("*.") && host.endsWith(allowed.slice(1)) && host.length > allowed.length - 1) return true;
    }
    return false;
  }
}

async function lookupAll(hostname: string): Promise<readonly string[]> {
  const found = await lookup(hostname, { all: true, verbatim: true });
  return found.map((entry) => entry.address);
}

/**
 * The authority exactly as typed: what follows `scheme://` up to `/`, `?` or
 * `#`. Undefined when the text is not of that form or holds whitespace,
 * control characters or backslashes (which the URL parser would silently
 * drop or turn into slashes).
 */
function rawAuthority(input: string): string | undefined {
  for (let i = 0; i < input.length; i++) {
    const code = input.charCodeAt(i);
    if (code <= 0x20 || code === 0x7f || input[i] === "\\") return undefined;
  }
  let i = 0;
  while (i < input.length && /[A-Za-z0-9+.-]/.test(input[i])) i++;
  if (i === 0 || !/[A-Za-z]/.test(input[0]) || !input.startsWith("://", i)) return undefined;
  const start = i + 3;
  let end = start;
  while (end < input.length && !"/?#".includes(input[end])) end++;
  return input.slice(start, end);
}

/** The host part of a raw authority, lower-cased, without the port. */
function rawHost(authority: string): string {
  const text = authority.toLowerCase();
  if (text.startsWith("[")) return text.slice(0, text.indexOf("]") + 1);
  const colon = text.lastIndexOf(":");
  return colon === -1 ? text : text.slice(0, colon);
}
