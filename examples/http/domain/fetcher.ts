import { PolicyError, quote, safeFetch } from "@forge/toolkit/validate";
import { bodyText } from "./body_text.ts";
import { type AuthEntry, authorizationFor } from "./credentials.ts";
import type { NetRules } from "./net_rules.ts";
import type { SecretFilter } from "./secret_filter.ts";

/** What `fetch_url` returns: the structured result. */
export interface FetchResult {
  /** The URL that answered, after redirects. */
  url: string;
  /** The HTTP status; a non-2xx status is a result, not an error. */
  status: number;
  /** The response's `Content-Type`, `""` when absent. */
  content_type: string;
  /** The body as text, or a bracketed note when it is not text. */
  body: string;
  /** Whether the body was cut at `max_bytes`. */
  truncated: boolean;
  /** Every URL redirected to, in order. */
  redirects: string[];
  /** Whether the body was not decoded (binary, or an unknown charset). */
  binary: boolean;
  // An index signature so the result can be a tool's structuredContent.
  [key: string]: unknown;
}

/** Options of {@linkcode fetchText}. */
export interface FetchTextOptions {
  /** The rules of the current config. */
  rules: NetRules;
  /**
   * The caller's request headers, already checked.
   * @default {new Headers()}
   */
  headers?: Headers;
  /**
   * The config's credentials; the first URL's exact origin decides.
   * @default {[]}
   */
  auth?: readonly AuthEntry[];
  /** Cancels the fetch (the tool call's signal). */
  signal?: AbortSignal;
  /**
   * The deadline in milliseconds.
   * @default {the policy's fetchTimeoutMs}
   */
  timeoutMs?: number;
  /**
   * Hides the credentials in the raw body before it is decoded, where a
   * credential in another charset's bytes can still be found; in the decoded
   * body cut at the cap (a start of a credential percent-encoded or
   * JSON-escaped at its end); and in the `Content-Type`, the `Content-Encoding`
   * and each redirect hop before they are cut for the result (a cut can fall
   * inside an escape, `%3…`). The rest of the result and errors are the
   * caller's to filter (the Manager does it for everything the model sees).
   * @default {no change}
   */
  filter?: SecretFilter;
}

const OUTSIDE_FLAGS = "is outside what this process was started with; " +
  "restart the server with the flags from --print-permissions";

/**
 * GETs a URL under the rules and returns its body as text: the URL and every
 * redirect hop are checked by `safeFetch` (scheme, host, canonical IP,
 * resolved addresses, port), and by the per-host port rule; before a redirect
 * hop is requested it must stay within the `allow_hosts` entry that allowed
 * the caller's URL, and never go from https to http; the body is cut
 * at the cap and marked; the first origin gets its configured credentials
 * (dropped by `safeFetch` on a cross-origin redirect). A status other than
 * 2xx is a result. A host the process was not started with is refused with
 * the flags to restart with.
 *
 * @param url The URL as the caller gave it.
 * @param options The rules, headers, credentials, signal and deadline.
 * @returns The response, decoded (its raw body filtered first when a filter is given).
 * @throws {PolicyError} When a hop is refused, times out, or cannot connect.
 *
 * @example Fetch an allowed local page
 * ```ts ignore
 * import { fetchText } from "./fetcher.ts";
 * import { NetRules } from "./net_rules.ts";
 *
 * const rules = new NetRules({
 *   allow_hosts: ["127.0.0.1:8080"], allow_schemes: ["http"], allow_private_hosts: ["127.0.0.1"],
 *   timeout_ms: 5000, max_bytes: 65536, max_redirects: 3,
 * });
 * console.log((await fetchText("http://127.0.0.1:8080/", { rules })).status);
 * ```
 */
export async function fetchText(url: string, options: FetchTextOptions): Promise<FetchResult> {
  const { rules } = options;
  const target = rules.check(url);
  await assertStartedWith(target, url);
  const headers = new Headers(options.headers);
  const authorization = authorizationFor(options.auth ?? [], target);
  if (authorization !== undefined) headers.set("authorization", authorization);
  let response;
  try {
    response = await safeFetch(url, {
      policy: rules.policy,
      headers,
      signal: options.signal,
      timeoutMs: options.timeoutMs,
      truncate: true,
      checkRedirect: (next, from) => rules.assertRedirect(next, from, target, url),
    });
  } catch (err) {
    if (err instanceof PolicyError && err.code === "no-permission") {
      const message = `Cannot fetch ${
        quote(url, 100)
      }: a connection it needed (the URL or a redirect) ${OUTSIDE_FLAGS}`;
      throw new PolicyError("no-permission", message, { cause: err });
    }
    throw err;
  }
  // What the server sent is filtered before anything cuts it: a cut can fall inside a credential's escape (`%3…`).
  const filtered = (text: string, cutEnd = false) => options.filter?.text(text, cutEnd) ?? text;
  const contentType = filtered(response.headers.get("content-type") ?? "");
  const bytes = options.filter?.bytes(response.body, response.truncated) ?? response.body;
  const coding = undecodedCoding(response.headers.get("content-encoding"));
  const body = coding === undefined ? bodyText(bytes, contentType === "" ? null : contentType) : {
    text: `[body not shown: it is encoded as ${
      quote(filtered(coding), 40)
    }, which is not decoded; ${bytes.length} bytes]`,
    binary: true,
  };
  return {
    url: response.url,
    status: response.status,
    // A header is no part of max_bytes: what the server sends there reaches the model cut.
    content_type: cut(contentType, MAX_SHOWN_HEADER),
    body: body.binary ? body.text : filtered(body.text, response.truncated),
    truncated: response.truncated,
    redirects: response.redirects.map((hop) => cut(filtered(hop), MAX_SHOWN_URL)),
    binary: body.binary,
  };
}

/** The most of the Content-Type header a result shows, in UTF-16 units. */
const MAX_SHOWN_HEADER = 256;
/** The most of each redirect's URL a result shows. */
const MAX_SHOWN_URL = 1024;

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}

/**
 * The first content coding of a response: safeFetch asks for none
 * (`identity`), so a body that has one is the coded bytes, never text.
 */
function undecodedCoding(header: string | null): string | undefined {
  if (header === null) return undefined;
  for (const coding of header.split(",")) {
    const name = coding.trim().toLowerCase();
    if (name !== "" && name !== "identity") return name;
  }
  return undefined;
}

/**
 * Refuses a first hop that Deno's flags (fixed at start) do not cover, with
 * a message that says what to do, instead of a failed lookup or connection.
 */
async function assertStartedWith(target: URL, url: string): Promise<void> {
  const port = target.port === "" ? (target.protocol === "https:" ? 443 : 80) : Number(target.port);
  const status = await Deno.permissions.query({ name: "net", host: `${target.hostname}:${port}` });
  if (status.state !== "granted") {
    throw new PolicyError("no-permission", `Cannot fetch ${quote(url, 100)}: the host ${OUTSIDE_FLAGS}`);
  }
}
