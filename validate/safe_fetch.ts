import { LimitError, readCapped } from "./limits.ts";
import type { Policy } from "./policy.ts";
import { PolicyError } from "./policy_error.ts";
import { type HostLookup, UrlPolicy } from "./url_policy.ts";
import { quote } from "../internal/quote.ts";

/** Options of {@linkcode safeFetch}. */
export interface SafeFetchOptions {
  /** The policy whose `net` and `limits` apply. */
  policy: Policy;
  /**
   * The HTTP method.
   * @default {"GET"}
   */
  method?: string;
  /**
   * Request headers; `authorization`, `cookie` and `proxy-authorization` are dropped on a cross-origin redirect.
   * Without an `accept-encoding` of the caller's, the request asks for `identity`: the body is read as sent, and
   * `maxBytes` caps the bytes that cross the network. (Deno's fetch decodes gzip and br when it asked for them: a
   * stream of empty compressed blocks then decoded to nothing while it downloaded until the deadline.) A server
   * that compresses anyway is read as sent too; see its `content-encoding`.
   */
  headers?: HeadersInit;
  /** A request body; kept on 307/308 redirects, dropped when a redirect turns the request into a GET. */
  body?: string | Uint8Array<ArrayBuffer>;
  /** Cancels the whole fetch, redirects and body included. */
  signal?: AbortSignal;
  /**
   * The most body bytes.
   * @default {policy.limits.maxFetchBytes}
   */
  maxBytes?: number;
  /**
   * Whether a longer body is cut at `maxBytes` (and marked `truncated`) instead of refused.
   * @default {false}
   */
  truncate?: boolean;
  /**
   * Deadline of the whole fetch in milliseconds.
   * @default {policy.limits.fetchTimeoutMs}
   */
  timeoutMs?: number;
  /**
   * The most redirects followed.
   * @default {policy.limits.maxRedirects}
   */
  maxRedirects?: number;
  /**
   * How host names are resolved for the address check.
   * @default {node:dns lookup}
   */
  lookup?: HostLookup;
  /**
   * Called for each redirect hop after the policy accepted it and before it
   * is requested, with the hop, the URL that redirected to it and the hop as
   * the server wrote it (what a refusal should quote: a form parsing derives
   * from it could spell a secret the server echoed there that `redact` does
   * not know): throw (a {@linkcode PolicyError}) to refuse the hop, e.g. to
   * keep a call on the origins its caller asked for.
   * @default {every hop the policy allows is followed}
   */
  checkRedirect?: (next: URL, from: URL, written: string) => void;
  /**
   * Applied to every text a server sent before a refusal quotes it (a
   * redirect's `Location`, the hop it leads to, the hop's host and scheme):
   * a secret the server echoes there is hidden whole before the quote cuts
   * it, where a cut would show its start.
   * @default {no change}
   */
  redact?: (text: string) => string;
}

/** A fully read response. */
export interface SafeResponse {
  /** The URL that answered, after redirects. */
  url: string;
  /** The HTTP status. */
  status: number;
  /** The response headers. */
  headers: Headers;
  /** The body, at most `maxBytes`. */
  body: Uint8Array;
  /** Whether the body was cut at `maxBytes`. */
  truncated: boolean;
  /** Every URL redirected to, in order. */
  redirects: readonly string[];
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const SECRET_HEADERS = ["authorization", "cookie", "proxy-authorization"];

/**
 * Fetches a URL under the policy: checks the URL and the addresses its host
 * resolves to, follows redirects by hand (checking every hop the same way,
 * up to `maxRedirects`), caps the body and the time. Refusals are
 * {@linkcode PolicyError}s, a body over the cap is a {@linkcode LimitError}.
 *
 * Layer 2 (Deno's `--allow-net` and `--deny-net`, derived from the same
 * policy) checks every connection again; `--deny-net` ranges are checked on
 * the address Deno actually connects to, which closes the window between this
 * function's DNS lookup and the connection.
 *
 * @param url The URL as the caller gave it.
 * @param options The policy, request and caps.
 * @returns The response with its body read.
 * @throws {PolicyError} When a hop is refused, times out, or cannot connect.
 * @throws {LimitError} When the body is over the cap and `truncate` is false.
 *
 * @example Fetch an allowed API
 * ```ts ignore
 * import { definePolicy, safeFetch } from "@forge/toolkit/validate";
 *
 * const policy = definePolicy({ net: { hosts: ["api.example.com"] } });
 * const response = await safeFetch("https://api.example.com/v1/items", { policy });
 * console.log(response.status, new TextDecoder().decode(response.body));
 * ```
 */
export async function safeFetch(url: string, options: SafeFetchOptions): Promise<SafeResponse> {
  const { policy } = options;
  const redact = options.redact ?? ((text: string) => text);
  const urls = new UrlPolicy(policy, { lookup: options.lookup, redact });
  const maxBytes = options.maxBytes ?? policy.limits.maxFetchBytes;
  const maxRedirects = options.maxRedirects ?? policy.limits.maxRedirects;
  const timeoutMs = options.timeoutMs ?? policy.limits.fetchTimeoutMs;
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  const headers = new Headers(options.headers);
  // Deno decodes only a coding it asked for: asking for none keeps every byte read a byte that crossed the network.
  if (!headers.has("accept-encoding")) headers.set("accept-encoding", "identity");
  let method = (options.method ?? "GET").toUpperCase();
  let body = options.body;
  const redirects: string[] = [];
  let current = url;
  let from: URL | undefined;
  try {
    while (true) {
      let target: URL;
      try {
        target = urls.check(current);
        // A lookup cannot be stopped, but the fetch does not wait for one past its deadline.
        await untilAborted(urls.checkResolved(target), signal);
      } catch (err) {
        // The deadline (or the caller) ended the lookup: said below as any fetch that ran out of time.
        if (signal.aborted) throw err;
        throw from === undefined ? err : hopRefusal(err, url, current, redact);
      }
      if (from !== undefined) options.checkRedirect?.(target, from, current);
      signal.throwIfAborted();
      const response = await fetch(target, { method, headers, body, redirect: "manual", signal });
      const location = response.headers.get("location");
      if (REDIRECTS.has(response.status) && location !== null) {
        await response.body?.cancel();
        if (redirects.length >= maxRedirects) {
          throw new PolicyError("redirect", `Cannot fetch ${quote(url, 100)}: more than ${maxRedirects} redirects`);
        }
        const next = nextHop(location, target, url, redact);
        if (new URL(next).origin !== target.origin) {
          for (const name of SECRET_HEADERS) headers.delete(name);
        }
        if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === "POST")) {
          if (method !== "HEAD") method = "GET";
          body = undefined;
          headers.delete("content-type");
        }
        current = next;
        from = target;
        redirects.push(current);
        continue;
      }
      const action = `fetch ${quote(url, 100)}`;
      const declared = Number(response.headers.get("content-length") ?? NaN);
      if (declared > maxBytes && !options.truncate) {
        await response.body?.cancel();
        throw new LimitError(action, maxBytes, "bytes");
      }
      const read = response.body
        ? await readCapped(response.body, { maxBytes, truncate: options.truncate, signal, action })
        : { bytes: new Uint8Array(), truncated: false };
      return {
        url: target.href,
        status: response.status,
        headers: response.headers,
        body: read.bytes,
        truncated: read.truncated,
        redirects,
      };
    }
  } catch (err) {
    if (err instanceof PolicyError || err instanceof LimitError) throw err;
    if (options.signal?.aborted) throw err;
    throw failure(err, url, timeout.aborted ? timeoutMs : undefined);
  }
}

/** `work`'s outcome, or the signal's reason as soon as it aborts (the work goes on, unwatched). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/**
 * The next URL in the form the server wrote it, so the next check sees a
 * non-canonical host as written: `new URL(location, base)` would already
 * have turned `http://2130706433/` into `http://127.0.0.1/`.
 */
function nextHop(location: string, target: URL, url: string, redact: (text: string) => string): string {
  const invalid = (state: string) => new PolicyError("redirect", `Cannot fetch ${quote(url, 100)}: ${state}`);
  for (let i = 0; i < location.length; i++) {
    const code = location.charCodeAt(i);
    if (code <= 0x20 || code === 0x7f || location[i] === "\\") {
      throw invalid("a redirect location holds whitespace, a control character or a backslash");
    }
  }
  const notAUrl = () => invalid(`a redirect's Location ${quote(redact(location), 100)} is not a valid URL`);
  if (location.startsWith("//")) {
    if (!URL.canParse(location, target)) throw notAUrl();
    return `${target.protocol}${location}`;
  }
  let end = 0;
  while (end < location.length && /[A-Za-z0-9+.-]/.test(location[end])) end++;
  if (end > 0 && location[end] === ":" && /[A-Za-z]/.test(location[0])) {
    if (!URL.canParse(location)) throw notAUrl();
    return location;
  }
  try {
    return new URL(location, target).href;
  } catch {
    throw notAUrl();
  }
}

/**
 * What a hop's refusal says instead of the policy's words where those quote the hop's host or port as URL parsing
 * wrote them (lower-cased, escapes decoded, punycode, a number as an IPv4 address, "write 1.18.214.135"): a server
 * wrote the hop, and a secret it echoed there would come back in a form derived from it that `redact` need not
 * know. The hop is quoted as sent instead, which `redact` filters.
 */
const HOP_STATES: Partial<Record<PolicyError["code"], string>> = {
  "ip-literal": "its IP address is not allowed in that form",
  host: "its host is not allowed",
  port: "its port is not allowed",
};

/**
 * A redirect hop's refusal, named by the URL the caller asked for: the policy
 * words it by the hop (`Cannot fetch "file:///etc/passwd": the scheme "file"
 * is not allowed`), which reads as if the caller's own URL were wrong. The
 * hop is quoted as the server wrote it, redacted; nothing derived from it by
 * parsing is shown ({@linkcode HOP_STATES}).
 */
function hopRefusal(err: unknown, asked: string, hop: string, redact: (text: string) => string): unknown {
  if (!(err instanceof PolicyError)) return err;
  const shown = quote(redact(hop), 100);
  const start = `Cannot fetch ${quote(asked, 100)}: it redirects to ${shown}, and `;
  const state = HOP_STATES[err.code];
  // Without the policy's message as its cause: that message holds the derived form.
  if (state !== undefined) return new PolicyError(err.code, `${start}${state}`);
  const prefix = [`Cannot fetch ${shown}: `, `Cannot fetch ${quote(redact(new URL(hop).href), 100)}: `]
    .find((p) => err.message.startsWith(p));
  if (prefix === undefined) return err;
  return new PolicyError(err.code, `${start}${err.message.slice(prefix.length)}`, { cause: err });
}

function failure(err: unknown, url: string, timedOutAfter: number | undefined): PolicyError {
  const shown = `Cannot fetch ${quote(url, 100)}`;
  if (timedOutAfter !== undefined) {
    return new PolicyError("network", `${shown}: no complete response within ${timedOutAfter} ms`, { cause: err });
  }
  // Deno reports a layer-2 refusal either directly or as the cause of "fetch failed".
  const cause = err instanceof Error ? err.cause : undefined;
  const denied = err instanceof Deno.errors.NotCapable ||
    (cause instanceof Error && cause.message.includes("Requires net access"));
  if (denied) {
    return new PolicyError("no-permission", `${shown}: the server's permissions do not allow this connection`, {
      cause: err,
    });
  }
  // Deno's client refuses more than 100 response headers, or a head of some 400 KB, in these words.
  if (cause instanceof Error && cause.message.includes("message head is too large")) {
    return new PolicyError("network", `${shown}: the response's headers are too many or too large`, { cause: err });
  }
  return new PolicyError("network", `${shown}: the connection failed`, { cause: err });
}
