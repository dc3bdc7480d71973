import { quote } from "@forge/toolkit/validate";

/** One `auth` entry of the config: an `Authorization` header for exact origins. */
export interface AuthEntry {
  /** Origins (`scheme://host[:port]`) that get the header; nothing else does. */
  readonly origins: readonly string[];
  /** The auth scheme written before the credentials, e.g. `Bearer`; none when absent. */
  readonly scheme?: string;
  /** The secret, always from the environment (`${NAME}`). */
  readonly credentials: string;
}

/**
 * The canonical form of an origin written in the config.
 *
 * @param text An origin such as `https://api.example.com` or `http://127.0.0.1:8080`.
 * @returns The origin as `URL.origin` writes it.
 * @throws {TypeError} When the text is not an http(s) origin without user, path, query or fragment.
 *
 * @example Canonical origins
 * ```ts
 * import { parseOrigin } from "./credentials.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(parseOrigin("HTTPS://API.example.com:443"), "https://api.example.com");
 * assert.throws(() => parseOrigin("https://api.example.com/v1"), TypeError);
 * ```
 */
export function parseOrigin(text: string): string {
  const bad = () =>
    new TypeError(
      `Cannot use origin ${quote(text, 100)}: write only scheme://host[:port], e.g. https://api.example.com`,
    );
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw bad();
  }
  const bare = url.pathname === "/" && url.search === "" && url.hash === "" && !text.endsWith("/");
  if (!["https:", "http:"].includes(url.protocol) || url.username !== "" || url.password !== "" || !bare) throw bad();
  if (text.includes("@")) throw bad();
  return url.origin;
}

/**
 * The `Authorization` value for a request: the first entry that names the
 * URL's exact origin (scheme, host and port). Other origins get nothing.
 *
 * @param auth The config's `auth` entries.
 * @param url The first URL of the request.
 * @returns The header value, or `undefined`.
 *
 * @example Only the configured origin gets the header
 * ```ts
 * import { authorizationFor } from "./credentials.ts";
 * import assert from "node:assert/strict";
 *
 * const auth = [{ origins: ["https://api.example.com"], scheme: "Bearer", credentials: "t0ken" }];
 * assert.equal(authorizationFor(auth, new URL("https://api.example.com/v1")), "Bearer t0ken");
 * assert.equal(authorizationFor(auth, new URL("http://api.example.com/v1")), undefined);
 * ```
 */
export function authorizationFor(auth: readonly AuthEntry[], url: URL): string | undefined {
  for (const entry of auth) {
    if (entry.origins.some((origin) => parseOrigin(origin) === url.origin)) {
      return entry.scheme === undefined ? entry.credentials : `${entry.scheme} ${entry.credentials}`;
    }
  }
  return undefined;
}
