import { PolicyError, quote, safeFetch } from "@forge/toolkit/validate";
import { bodyText } from "./body_text.ts";
import { type AuthEntry, authorizationFor } from "./credentials.ts";
import type { NetRules } from "./net_rules.ts";
import { SecretFilter } from "./secret_filter.ts";

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
   * Hides the credentials in everything the server sent, before anything
   * cuts it: the body is read {@linkcode SecretFilter.reach} bytes past
   * `max_bytes`, filtered as raw bytes (where a credential in another
   * charset's bytes can still be found) and as decoded text, and cut at
   * `max_bytes` counted on what is shown (each credential as its
   * placeholder, whole, never its start), so that nothing shown, `truncated`
   * included, tells a credential's length; the `Content-Type`, the
   * `Content-Encoding`, each redirect hop and every `Location` or hop a
   * refusal quotes are filtered before they are cut. The rest of the result
   * and errors are the caller's to filter (the Manager does it for
   * everything the model sees).
   * @default {no credentials}
   */
  filter?: SecretFilter;
}

const NO_SECRETS = new SecretFilter([]);

const OUTSIDE_FLAGS = "is outside what this process was started with; " +
  "restart the server with the flags from --print-permissions";

/**
 * GETs a URL under the rules and returns its body as text: the URL and every
 * redirect hop are checked by `safeFetch` (scheme, host, canonical IP,
 * resolved addresses, port), and by the per-host port rule; before a redirect
 * hop is requested it must stay within the `allow_hosts` entry that allowed
 * the caller's URL, and never go from https to http; the body is cut
 * at the cap (never inside a credential) and marked; the first origin gets its configured credentials
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
  const filter = options.filter ?? NO_SECRETS;
  const redact = (text: string) => filter.text(text);
  const max = rules.policy.limits.maxFetchBytes;
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
      // Past the cap, so that a credential starting before it is whole in what is filtered.
      maxBytes: max + filter.reach,
      truncate: true,
      redact,
      checkRedirect: (next, from, written) =>
        rules.assertRedirect(next, { from, first: target, asked: url, written, redact }),
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
  // What the server sent is filtered before anything cuts it: a cut would leave the start of a credential, and the
  // filter never hides a start (that would tell the model which text starts one).
  const contentType = redact(response.headers.get("content-type") ?? "");
  const whole = !response.truncated;
  const bytes = filter.cutBytes(response.body, { max, whole });
  // A note gives no size that a credential's length moves: the raw size of a body that holds one would.
  const size = bytes.cut
    ? "more than max_bytes"
    : bytes.hidden > 0
    ? "at most max_bytes"
    : `${bytes.shown.length} bytes`;
  const coding = undecodedCoding(response.headers.get("content-encoding"));
  let body: { text: string; binary: boolean };
  let truncated = bytes.cut;
  if (coding !== undefined) {
    body = {
      text: `[body not shown: it is encoded as ${quote(redact(coding), 40)}, which is not decoded; ${size}]`,
      binary: true,
    };
  } else {
    // Judged text or not on the first max_bytes as filtered: the same whatever the credentials' lengths.
    const judged = bytes.shown.subarray(0, max);
    const after = concat(bytes.shown.subarray(max), bytes.rest);
    const decoded = bodyText(judged, contentType === "" ? null : contentType, { after, size, whole });
    body = decoded;
    if (!decoded.binary) {
      const { encoding } = decoded;
      const shown = filter.cutText(decoded.text, {
        rest: decoded.after,
        max,
        whole,
        encoding,
      });
      body = { text: shown.text, binary: false };
      truncated = shown.cut;
    }
  }
  return {
    url: response.url,
    status: response.status,
    // A header is no part of max_bytes: what the server sends there reaches the model cut.
    content_type: cut(filter, contentType, MAX_SHOWN_HEADER),
    body: body.text,
    truncated,
    redirects: response.redirects.map((hop) => cut(filter, redact(hop), MAX_SHOWN_URL)),
    binary: body.binary,
  };
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (b.length === 0) return a;
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** The most of the Content-Type header a result shows, in UTF-16 units. */
const MAX_SHOWN_HEADER = 256;
/** The most of each redirect's URL a result shows. */
const MAX_SHOWN_URL = 1024;

/** A filtered text cut at `max`, marked with `…` (never inside a placeholder). */
function cut(filter: SecretFilter, text: string, max: number): string {
  const fitted = filter.fit(text, max);
  return fitted.length < text.length ? `${fitted}…` : fitted;
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
