import { type Config, MAX_BYTES_LIMIT } from "./config.ts";
import { type FetchResult, fetchText } from "./fetcher.ts";
import { NetRules } from "./net_rules.ts";
import { fetchReplyBytes } from "./reply_bounds.ts";
import { requestHeaders } from "./request_headers.ts";
import { SecretFilter } from "./secret_filter.ts";

/** Options of {@linkcode Manager}. */
export interface ManagerOptions {
  /**
   * The `timeout_ms` the server started with. The tool's deadline is fixed
   * from it at start, so a reload may lower the fetch deadline but not raise
   * it past this.
   */
  timeoutMs: number;
  /**
   * Names environment values in everything the model sees: the config
   * loader's `redact`. The config's credentials are hidden in any case.
   * @default {no change}
   */
  redact?: (text: string) => string;
  /**
   * The config the server started with: what {@linkcode Manager.replyBytes} counts until a call has read one.
   * @default {the largest max_bytes and max_redirects a config may set}
   */
  initial?: Config;
}

/** A `fetch_url` request. */
export interface FetchRequest {
  /** The URL to GET. */
  url: string;
  /**
   * Extra request headers.
   * @default {{}}
   */
  headers?: Readonly<Record<string, string>>;
}

/** Time the tool gets beyond the fetch deadline, to decode and answer. */
const GRACE_MS = 1_000;

/**
 * The one object per process: reads the current config on every call (an
 * edited config applies at the next call), keeps the rules built for each
 * config version, and runs fetches. Everything it returns or throws, and so
 * everything the tool shows the model (results, refusals, errors built from
 * a server's headers or `Location`), passes the current config's
 * {@linkcode SecretFilter}: one place, so that no message can skip it.
 *
 * @example Refuse a host the config does not list
 * ```ts
 * import { Manager } from "./manager.ts";
 * import { ConfigSchema } from "./config.ts";
 * import { PolicyError } from "@forge/toolkit/validate";
 * import assert from "node:assert/strict";
 *
 * const config = ConfigSchema.parse({ allow_hosts: ["api.example.com"] });
 * const mgr = new Manager(() => Promise.resolve(config), { timeoutMs: config.timeout_ms });
 * await assert.rejects(mgr.check({ url: "https://evil.example/" }), PolicyError);
 * ```
 */
export class Manager {
  readonly #config: () => Promise<Config>;
  readonly #options: ManagerOptions;
  readonly #rules = new WeakMap<Config, { rules: NetRules; filter: SecretFilter }>();
  // The caps of the config a call last read: what the next call's reply is counted by.
  #caps: Pick<Config, "max_bytes" | "max_redirects">;

  /**
   * Builds the manager; nothing is read until the first call.
   *
   * @param config Returns the current config (the loader's `get`).
   * @param options The start-up deadline and the redaction.
   */
  constructor(config: () => Promise<Config>, options: ManagerOptions) {
    this.#config = config;
    this.#options = options;
    this.#caps = options.initial ?? { max_bytes: MAX_BYTES_LIMIT, max_redirects: 10 };
  }

  /**
   * The most bytes a reply of {@linkcode Manager.fetch} can take, as JSON, under the config a call last read
   * (`fetch_url`'s maxResultBytes). A reload that raises `max_bytes` is counted from the call after the first that
   * reads it.
   */
  replyBytes(): number {
    return fetchReplyBytes(this.#caps);
  }

  /** The tool's per-call deadline in milliseconds: the start-up fetch deadline plus a little to answer. */
  get callTimeoutMs(): number {
    return this.#options.timeoutMs + GRACE_MS;
  }

  /**
   * Checks a request under the current config without any I/O: the URL's
   * text (scheme, host, port, IP form, userinfo) and the headers.
   *
   * @param request The URL and headers.
   * @returns The parsed URL.
   * @throws {PolicyError} When the URL is refused.
   * @throws {PolicyError} When a header is refused.
   */
  async check(request: FetchRequest): Promise<URL> {
    const { rules, filter } = await this.#current();
    try {
      const url = rules.check(request.url);
      requestHeaders(request.headers ?? {});
      return url;
    } catch (err) {
      throw filter.error(err);
    }
  }

  /**
   * GETs the URL under the current config.
   *
   * @param request The URL and headers.
   * @param signal The call's signal (deadline, cancellation, shutdown).
   * @returns The response as text.
   * @throws {PolicyError} When the URL, a redirect or an address is refused, on timeout, or when the connection fails.
   * @throws {PolicyError} When a header is refused.
   */
  async fetch(request: FetchRequest, signal?: AbortSignal): Promise<FetchResult> {
    const { config, rules, filter } = await this.#current();
    try {
      const headers = requestHeaders(request.headers ?? {});
      return filter.value(
        await fetchText(request.url, {
          rules,
          headers,
          auth: config.auth,
          signal,
          timeoutMs: Math.min(config.timeout_ms, this.#options.timeoutMs),
          filter,
        }),
      );
    } catch (err) {
      throw filter.error(err);
    }
  }

  /**
   * Releases what the manager holds (nothing outlives a call today; kept so
   * `onClose` has one place to call).
   *
   * @returns Resolves at once.
   */
  close(): Promise<void> {
    return Promise.resolve();
  }

  async #current(): Promise<{ config: Config; rules: NetRules; filter: SecretFilter }> {
    const config = await this.#config();
    this.#caps = config;
    let built = this.#rules.get(config);
    if (built === undefined) {
      const secrets = config.auth.map((entry) => entry.credentials);
      built = { rules: new NetRules(config), filter: new SecretFilter(secrets, this.#options.redact) };
      this.#rules.set(config, built);
    }
    return { config, ...built };
  }
}
