import { dirname } from "node:path";
import { type FileSafety, fileSafety } from "./_file_safety.ts";
import { parseConfigText } from "./_parse_text.ts";
import { quote } from "../internal/quote.ts";
import { ChangedError, RACY_MS, readBounded, stamp } from "./_read_file.ts";
import { sha256Hex } from "../internal/sha256_hex.ts";
import { ConfigError } from "./config_error.ts";
import { type EnvReader, expand, type Expansion } from "./expand.ts";
import type { ConfigParser } from "./from_schema.ts";
import { REDACTED } from "./_redacted.ts";
import { raceHooks } from "./_race_hooks.ts";

/** Options of {@linkcode Loader}. */
export interface LoaderOptions<T = unknown> {
  /**
   * Where `${VAR}` values come from; only referenced names are read.
   * @default {Deno.env}
   */
  env?: EnvReader;
  /**
   * When true, a file that does not exist (yet) means the defaults: the parser
   * gets `{}`. Use it for a tenant file. A file that existed and was deleted
   * still keeps the last good config.
   * @default {false}
   */
  optional?: boolean;
  /**
   * Development only: load a file even when it is writable by group or others,
   * or a symlink that leaves its directory. Each time it matters, a warning
   * goes to the log.
   * @default {false}
   */
  allowUnsafeFile?: boolean;
  /**
   * The largest file accepted, in bytes.
   * @default {4194304}
   */
  maxBytes?: number;
  /**
   * The deepest nesting accepted.
   * @default {64}
   */
  maxDepth?: number;
  /**
   * The most values (arrays, objects, strings, numbers, booleans, nulls) a
   * file may hold. Each costs many times its bytes once parsed, copied and
   * validated (a schema reports an issue per bad one), so this, with
   * `maxBytes`, bounds what a load costs.
   * @default {100000}
   */
  maxValues?: number;
  /**
   * The most `${` a file may hold in its string values (references, and
   * malformed attempts at one): each is recorded for validation. See {@linkcode expand}.
   * @default {10000}
   */
  maxReferences?: number;
  /**
   * The most characters variables' values may add to the document, in all.
   * See {@linkcode expand}.
   * @default {4194304}
   */
  maxExpandedChars?: number;
  /**
   * Where the loader reports a refused new version (one line each, never a
   * value from the environment).
   * @default {console.error}
   */
  log?: (line: string) => void;
  /**
   * What the log lines start with, e.g. the server's name.
   * @default {"config"}
   */
  name?: string;
  /**
   * Why a new version may not replace the config first loaded, or `undefined`
   * when it may: for what a running server fixed at start (its audit file).
   * A version refused is treated as invalid: `get()` keeps the last good
   * config and one line with the reason goes to `log`.
   * @default {every valid version is used}
   */
  refuseReload?: (next: T, first: T) => string | undefined;
}

interface Good<T> {
  readonly config: T;
  readonly hash: string;
  readonly expansion: Expansion;
}

// A modification time within RACY_MS of our last read may hide a later write
// within the file system's timestamp granularity, so such a file is re-read.
// Bad versions are remembered by hash so that an unchanged one is not parsed
// again: at most this many, holding at most BAD_ISSUES issues in all (a version
// can have a bad field per value: 32 hostile versions would hold millions).
const BAD_CACHE = 32;
const BAD_ISSUES = 100_000;

/**
 * Loads a config file and reloads it when its content changes, keyed on the
 * content's SHA-256 (a `stat` first, so an unchanged file is not read again).
 *
 * Guarantees:
 * - `get()` only ever returns a config that `parse` accepted; until one has,
 *   it throws {@linkcode ConfigError}.
 * - A new version that is unreadable, not UTF-8, not JSONC, invalid, unsafe
 *   (see `allowUnsafeFile`) or deleted is not used: `get()` keeps returning the
 *   last good config, and one line per distinct bad version goes to `log`.
 * - A valid new version is used from the next `get()` that starts after it
 *   was written, whether it allows more or less: what the server allows
 *   changes only through a file that validated. (The Deno permissions fixed at
 *   start cap what any version can add.) A version that `refuseReload` gives a
 *   reason for is not used, as an invalid one.
 * - Concurrent `get()` calls share one read, and one reload runs at a time.
 * - A read that a write tore (the file rewritten in place or truncated while
 *   it was read) is never used: the next call reads again.
 * - What a load costs is bounded whatever the file holds: past `maxBytes`,
 *   `maxDepth`, `maxValues`, `maxReferences` or `maxExpandedChars` a version
 *   is refused as an invalid one, its message naming the limit, and the bad
 *   versions remembered hold at most 100,000 issues in all.
 *
 * Permissions: read of the file, and env access to the names the file
 * references. The directory's mode is checked only when the process may read
 * the directory; otherwise one line says so (see docs/configuration.md).
 *
 * @example Run with the defaults when there is no config file
 * ```ts
 * import { fromSchema, Loader } from "@forge/toolkit/configreload";
 * import { z } from "zod";
 * import assert from "node:assert/strict";
 *
 * const schema = z.strictObject({ roots: z.array(z.string()).default([]) });
 * const loader = new Loader(undefined, fromSchema(schema));
 * assert.deepEqual(await loader.get(), { roots: [] });
 * ```
 *
 * @example Reload a file on each call
 * ```ts ignore
 * // Needs --allow-read and --allow-write for the file, which doc tests lack.
 * import { fromSchema, Loader } from "@forge/toolkit/configreload";
 * import { z } from "zod";
 * import assert from "node:assert/strict";
 *
 * const dir = await Deno.makeTempDir();
 * const path = `${dir}/files.json`;
 * await Deno.writeTextFile(path, '{ "roots": ["/srv/a", "/srv/b"] }');
 * const loader = new Loader(path, fromSchema(z.strictObject({ roots: z.array(z.string()) })));
 * assert.deepEqual((await loader.get()).roots, ["/srv/a", "/srv/b"]);
 *
 * await Deno.writeTextFile(path, '{ "roots": ["/srv/a"] }');
 * assert.deepEqual((await loader.get()).roots, ["/srv/a"]);
 * ```
 */
export class Loader<T> {
  /** The config file, or `undefined` for the defaults. */
  readonly path: string | undefined;
  readonly #parse: ConfigParser<T>;
  readonly #options: LoaderOptions<T>;
  readonly #log: (line: string) => void;
  #good: Good<T> | undefined;
  #first: T | undefined;
  #failure: Error | undefined;
  #stampKey: string | undefined;
  #stampAt = 0;
  readonly #bad = new Map<string, ConfigError>();
  #badIssues = 0;
  readonly #logged = new Set<string>();
  #inflight: Promise<T> | undefined;
  #queued: Promise<T> | undefined;
  #watcher: Deno.FsWatcher | undefined;
  #watching: Promise<void> | undefined;
  #eager: Promise<void> | undefined;
  #eagerAgain = false;

  /**
   * Makes a loader; nothing is read until the first `get()`.
   *
   * @param path The config file (from {@linkcode resolveConfigPath}), or
   *   `undefined` to use the defaults: the parser gets `{}`, so the schema's
   *   defaults must allow nothing.
   * @param parse Validates the expanded document, e.g. {@linkcode fromSchema}.
   * @param options See {@linkcode LoaderOptions}.
   * @throws {RangeError} When a limit (`maxBytes`, `maxDepth`, `maxValues`,
   *   `maxReferences`, `maxExpandedChars`) is not a positive integer.
   */
  constructor(path: string | undefined, parse: ConfigParser<T>, options: LoaderOptions<T> = {}) {
    for (const key of ["maxBytes", "maxDepth", "maxValues", "maxReferences", "maxExpandedChars"] as const) {
      const value = options[key];
      if (value !== undefined && !(Number.isSafeInteger(value) && value > 0)) {
        throw new RangeError(`Cannot create loader: ${key} ${quote(value)} is not a positive integer`);
      }
    }
    this.path = path;
    this.#parse = parse;
    this.#options = options;
    const name = options.name ?? "config";
    const log = options.log ?? ((line: string) => console.error(line));
    this.#log = (line) => log(`${name}: ${line.replace(/\s*[\r\n]+\s*/g, " ")}`);
  }

  /**
   * The current config, re-read first if the file changed.
   *
   * @returns The last config that validated.
   * @throws {ConfigError} When no version has validated yet; the message names
   *   the file and every bad field.
   */
  get(): Promise<T> {
    // A call that arrives during a read waits for one more read, shared with
    // the other late callers, so it sees writes that finished before it began.
    if (this.#queued !== undefined) return this.#queued;
    if (this.#inflight !== undefined) {
      const after = this.#inflight.then(() => {}, () => {});
      this.#queued = after.then(() => {
        this.#queued = undefined;
        return this.#start();
      });
      return this.#queued;
    }
    return this.#start();
  }

  /** The names of the variables the current config references, sorted. */
  get variables(): readonly string[] {
    return this.#good?.expansion.names ?? [];
  }

  /**
   * Replaces every value in `text` that came from the environment with
   * `${NAME}`, whole or JSON-escaped: use it before printing anything derived
   * from the config. (The loader's own messages also hide a value's start
   * where `quote()` cut it; here a start before a `…` is left as it is.)
   *
   * @param text Any text, e.g. a permission flag or a tool result.
   * @param cuts Whether a value's start before a `…` is hidden too: true only
   *   for a message of the toolkit's own that `quote()` cut (a policy's
   *   refusal of a config value), never for a tool's result.
   * @returns The text with environment values hidden.
   */
  redact(text: string, cuts = false): string {
    // Whole values and their escaped forms: a start of one before a `…` in a tool's result is not a cut of it.
    return this.#good?.expansion.redact(text, cuts) ?? text;
  }

  /**
   * Watches the file's directory and reloads eagerly on every change, so bad
   * versions are reported at once; `get()` stays correct without it. Needs
   * read permission on the directory.
   *
   * @param onChange Called with each new config that validated.
   * @throws {TypeError} When there is no file, or it is already watched.
   */
  watch(onChange?: (config: T) => void): void {
    if (this.path === undefined) throw new TypeError("Cannot watch config: there is no config file");
    if (this.#watcher !== undefined) throw new TypeError("Cannot watch config: it is already watched");
    const watcher = Deno.watchFs(dirname(this.path), { recursive: false });
    this.#watcher = watcher;
    this.#watching = (async () => {
      for await (const _event of watcher) this.#refreshEagerly(onChange);
    })();
  }

  /**
   * Stops watching. The loader still works; `get()` reads on demand.
   *
   * @returns Resolves once the watcher and any eager reload have finished.
   */
  async close(): Promise<void> {
    this.#watcher?.close();
    this.#watcher = undefined;
    await this.#watching;
    await this.#eager;
  }

  #start(): Promise<T> {
    const run = this.#refresh();
    this.#inflight = run;
    const clear = () => {
      if (this.#inflight === run) this.#inflight = undefined;
    };
    run.then(clear, clear);
    return run;
  }

  async #refresh(): Promise<T> {
    const path = this.path;
    if (path === undefined) return this.#good?.config ?? this.#defaults();
    const startedAt = Date.now();
    let seen;
    try {
      seen = await stamp(path);
    } catch (err) {
      return this.#fail(`stat ${String(err)}`, err);
    }
    if (seen === undefined) return this.#missing(path);
    const racy = seen.mtime === null || seen.mtime >= this.#stampAt - RACY_MS;
    if (seen.key === this.#stampKey && !racy) return this.#current();
    const hooks = raceHooks.get(this);
    await hooks?.afterStamp?.();

    let safety: FileSafety;
    try {
      safety = await fileSafety(path);
    } catch (err) {
      // Deleted since the stat (a deploy's rm, then cp): gone, as the stat would have said, not unsafe.
      if (err instanceof Deno.errors.NotFound) return this.#missing(path);
      safety = { reason: `it cannot be checked: ${(err as Error).message}`, unchecked: [] };
    }
    // A folder it may not read goes unchecked in silence: least privilege grants the
    // config file, not its folder, so that is how a correct setup looks.
    const reason = safety.reason;
    // Renamed over while checked or read: an operator's atomic replace, seen mid-way. The config in use stays, in
    // silence (no "keeping the last good config" alarm), and the next call looks again (the stamp is not taken).
    if (safety.changed && this.#good !== undefined) return this.#good.config;
    if (reason !== undefined && !this.#options.allowUnsafeFile) {
      return this.#fail(`unsafe ${reason}`, new ConfigError(`Cannot load config ${quote(path, 256)}: ${reason}`));
    }
    if (this.#options.allowUnsafeFile) {
      this.#logOnce("unsafe-on", "WARNING: config file safety checks are off (allowUnsafeFile); development only");
      if (reason !== undefined) this.#logOnce(`unsafe ${reason}`, `WARNING: using an unsafe config file: ${reason}`);
    }

    await hooks?.afterCheck?.();
    let bytes;
    try {
      // The file read is the one checked: a swap between the check and the open is refused, not read.
      bytes = await readBounded(path, this.#options.maxBytes ?? 4 * 1024 * 1024, safety, hooks?.afterChunk);
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) return this.#missing(path);
      if (err instanceof ChangedError && this.#good !== undefined) return this.#good.config;
      return this.#fail(`read ${String(err)}`, err);
    }
    await hooks?.afterRead?.();
    const hash = await sha256Hex(bytes);
    this.#stampKey = seen.key;
    this.#stampAt = startedAt;
    if (hash === this.#good?.hash) {
      this.#failure = undefined;
      return this.#good.config;
    }
    const known = this.#bad.get(hash);
    if (known !== undefined) return this.#fail(hash, known);
    let expansion: Expansion | undefined;
    try {
      const { env, maxDepth, maxValues, maxReferences, maxExpandedChars } = this.#options;
      expansion = expand(parseConfigText(bytes, { maxDepth, maxValues }), { env, maxReferences, maxExpandedChars });
      const config = this.#parse(expansion);
      const refused = this.#first === undefined ? undefined : this.#options.refuseReload?.(config, this.#first);
      if (refused !== undefined) throw new ConfigError(`Cannot reload config: ${refused}`);
      return this.#accept({ config, hash, expansion });
    } catch (err) {
      const error = this.#wrap(err, expansion);
      this.#remember(hash, error);
      return this.#fail(hash, error);
    }
  }

  #remember(hash: string, error: ConfigError): void {
    for (const [oldest, known] of this.#bad) {
      if (this.#bad.size < BAD_CACHE && this.#badIssues + error.issues.length <= BAD_ISSUES) break;
      this.#bad.delete(oldest);
      this.#badIssues -= known.issues.length;
    }
    this.#bad.set(hash, error);
    this.#badIssues += error.issues.length;
  }

  #defaults(): T {
    const expansion = expand({}, { env: this.#options.env });
    try {
      return this.#accept({ config: this.#parse(expansion), hash: "defaults", expansion });
    } catch (err) {
      throw this.#wrap(err, expansion, "(the defaults)");
    }
  }

  #accept(good: Good<T>): T {
    this.#good = good;
    this.#first ??= good.config;
    this.#failure = undefined;
    this.#logged.clear();
    return good.config;
  }

  #current(): T {
    if (this.#good !== undefined) return this.#good.config;
    throw this.#failure ?? new ConfigError("Cannot load config: nothing was loaded");
  }

  #missing(path: string): T {
    this.#stampKey = undefined;
    if (this.#good !== undefined) {
      if (this.#good.hash !== "defaults") {
        this.#logOnce("missing", `config ${quote(path, 256)} is gone; keeping the last good config`);
      }
      return this.#good.config;
    }
    if (this.#options.optional) return this.#defaults();
    throw (this.#failure = new ConfigError(`Cannot load config ${quote(path, 256)}: the file does not exist`));
  }

  #fail(key: string, err: unknown): T {
    const error = err instanceof ConfigError ? err : this.#wrap(err, undefined);
    if (this.#good === undefined) throw (this.#failure = error);
    this.#logOnce(key, `keeping the last good config: ${error.message}`);
    return this.#good.config;
  }

  #wrap(err: unknown, expansion: Expansion | undefined, label?: string): ConfigError {
    const redact = (text: string) => expansion?.redact(text) ?? text;
    const file = label ?? quote(this.path, 256);
    if (err instanceof ConfigError && err.issues.length > 0) {
      // fromSchema()'s issues are redacted already, and the keys they name must not be.
      const issues = REDACTED.has(err)
        ? err.issues
        : err.issues.map((issue) => ({ path: issue.path, message: redact(issue.message) }));
      return new ConfigError(issues, { file: label === undefined ? this.path : undefined, cause: err });
    }
    const message = redact(err instanceof Error ? err.message : String(err));
    const detail = message.replace(/^Cannot \w+ config: /, "");
    return new ConfigError(`Cannot load config ${file}: ${detail}`, { cause: err });
  }

  #logOnce(key: string, line: string): void {
    if (this.#logged.has(key)) return;
    if (this.#logged.size >= 1024) this.#logged.clear();
    this.#logged.add(key);
    this.#log(line);
  }

  #refreshEagerly(onChange: ((config: T) => void) | undefined): void {
    if (this.#eager !== undefined) {
      this.#eagerAgain = true;
      return;
    }
    this.#eager = (async () => {
      do {
        this.#eagerAgain = false;
        const before = this.#good?.hash;
        try {
          const config = await this.get();
          if (this.#good?.hash !== before) onChange?.(config);
        } catch (err) {
          this.#logOnce(`eager ${(err as Error).message}`, (err as Error).message);
        }
      } while (this.#eagerAgain);
      this.#eager = undefined;
    })();
  }
}
