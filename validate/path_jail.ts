import { basename, dirname, isAbsolute, relative, resolve, sep } from "node:path";
import { checkCallerPath, refusalFor } from "./_caller_path.ts";
import { readChecked, writeChecked } from "./_checked_file.ts";
import { compileGlob, type GlobMatcher, matchesAny } from "./_glob.ts";
import { truncationMarker } from "./limits.ts";
import type { Policy } from "./policy.ts";
import { PolicyError } from "./policy_error.ts";
import { quote } from "./_quote.ts";
import { wholeCharacters } from "./_utf8.ts";

/** Options of {@linkcode PathJail.readFile} and {@linkcode PathJail.readTextFile}. */
export interface ReadFileOptions {
  /**
   * The most bytes to return.
   * @default {policy.limits.maxReadBytes}
   */
  maxBytes?: number;
  /**
   * Whether a longer file is cut at `maxBytes` instead of refused. Text reads
   * end a cut file with a `[truncated: …]` marker.
   * @default {false}
   */
  truncate?: boolean;
  /** Stops the read. */
  signal?: AbortSignal;
}

/** Options of {@linkcode PathJail.writeFile}. */
export interface WriteFileOptions {
  /**
   * Refuse when the file already exists.
   * @default {false}
   */
  createNew?: boolean;
  /**
   * Append instead of replacing the content.
   * @default {false}
   */
  append?: boolean;
  /** Stops the write between chunks. */
  signal?: AbortSignal;
}

type Mode = "read" | "write";

/**
 * Layer 1 for files: resolves a caller's path inside the policy's roots and
 * refuses everything else — `..` escapes, sibling prefixes (`/data2` is not in
 * `/data`), symbolic links (the file or any parent) whose real path leaves
 * every root, deny globs, NUL bytes, empty and over-long paths. Reads may use
 * `readRoots` and `writeRoots`; writes only `writeRoots`. Relative paths start
 * at the first root. Refusals are {@linkcode PolicyError}s whose message shows
 * the path as the caller gave it.
 *
 * Deno's `--allow-read=<root>` does not stop a symbolic link inside the root
 * that points outside it: against that, this real-path check is the only
 * layer. See docs/security.md for the window between check and use.
 *
 * @example Refuse an escape and a sibling prefix
 * ```ts
 * import { definePolicy, PathJail, PolicyError } from "@forge/toolkit/validate";
 * import assert from "node:assert/strict";
 *
 * const jail = new PathJail(definePolicy({ readRoots: ["/srv/data"] }));
 * // In a tool: const text = await jail.readTextFile(path, { truncate: true });
 * await assert.rejects(jail.readTextFile("../../etc/passwd"), PolicyError);
 * await assert.rejects(jail.readTextFile("/srv/data2/notes.txt"), PolicyError);
 * ```
 */
export class PathJail {
  #policy: Policy;
  #deny: GlobMatcher[];
  #roots: Record<Mode, readonly string[]>;
  #real: Partial<Record<Mode, readonly string[]>> = {};

  /**
   * Builds a jail; roots are resolved to real paths on first use.
   *
   * @param policy The policy whose roots, deny globs and limits apply.
   */
  constructor(policy: Policy) {
    this.#policy = policy;
    this.#deny = policy.deny.map(compileGlob);
    this.#roots = { read: [...new Set([...policy.readRoots, ...policy.writeRoots])], write: policy.writeRoots };
  }

  /**
   * Resolves a caller's path for reading.
   *
   * @param path The path as the caller gave it, relative to the first root or absolute.
   * @returns The real absolute path to open.
   * @throws {PolicyError} When the path is refused or does not exist.
   *
   * @example Refuse a NUL byte
   * ```ts
   * import { definePolicy, PathJail, PolicyError } from "@forge/toolkit/validate";
   * import assert from "node:assert/strict";
   *
   * const jail = new PathJail(definePolicy({ readRoots: ["/srv/data"] }));
   * await assert.rejects(jail.resolveRead("notes/\0.txt"), PolicyError);
   * ```
   */
  async resolveRead(path: string): Promise<string> {
    const action = "read";
    const candidate = this.#lexical(path, "read", action);
    let real: string;
    try {
      real = await Deno.realPath(candidate);
    } catch (err) {
      real = await this.#missing(err, candidate, "read", path);
    }
    await this.#checkReal(real, "read", action, path);
    return real;
  }

  /**
   * Resolves a caller's path for writing. The file may not exist yet; then
   * its parent folder must, and the parent's real path must be inside a
   * writable root.
   *
   * @param path The path as the caller gave it, relative to the first writable root or absolute.
   * @returns The real absolute path to write.
   * @throws {PolicyError} When the path is refused or its folder does not exist.
   *
   * @example Refuse a write outside the writable roots
   * ```ts
   * import { definePolicy, PathJail, PolicyError } from "@forge/toolkit/validate";
   * import assert from "node:assert/strict";
   *
   * const jail = new PathJail(definePolicy({ readRoots: ["/srv/data"] }));
   * await assert.rejects(jail.resolveWrite("/srv/data/a.txt"), PolicyError);
   * ```
   */
  async resolveWrite(path: string): Promise<string> {
    const action = "write";
    const candidate = this.#lexical(path, "write", action);
    let real: string;
    try {
      real = await Deno.realPath(candidate);
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound)) refusalFor(err, action, path);
      // A dangling symbolic link is refused: writing through it would create its target.
      const link = await Deno.lstat(candidate).then(() => true, () => false);
      if (link) throw new PolicyError("symlink-escape", `Cannot write ${quote(path)}: it is a dangling symbolic link`);
      let parent: string;
      try {
        parent = await Deno.realPath(dirname(candidate));
      } catch (err) {
        parent = await this.#missing(err, dirname(candidate), "write", path);
      }
      real = resolve(parent, basename(candidate));
    }
    await this.#checkReal(real, "write", action, path);
    return real;
  }

  /**
   * Reads a file inside the jail, capped at `maxBytes`. After opening it checks
   * again that the real path is unchanged and names the same file, which
   * narrows (but cannot close) the window for a swap between check and open.
   *
   * @param path The caller's path.
   * @param options Cap, truncation and signal.
   * @returns The bytes.
   * @throws {PolicyError} When refused, missing, not a regular file, or changed while opened.
   * @throws {LimitError} When longer than `maxBytes` and `truncate` is false.
   *
   * @example Refuse a denied file
   * ```ts
   * import { definePolicy, PathJail, PolicyError } from "@forge/toolkit/validate";
   * import assert from "node:assert/strict";
   *
   * const jail = new PathJail(definePolicy({ readRoots: ["/srv/data"] }));
   * // Deny globs beat the root: `.env` files are refused by default.
   * await assert.rejects(jail.readFile("app/.env"), PolicyError);
   * ```
   */
  async readFile(path: string, options: ReadFileOptions = {}): Promise<Uint8Array> {
    return (await this.#read(path, options)).bytes;
  }

  /**
   * Reads a UTF-8 text file inside the jail; with `truncate`, a cut file ends
   * with a `[truncated: showed N of M bytes]` marker.
   *
   * @param path The caller's path.
   * @param options Cap, truncation and signal.
   * @returns The text.
   * @throws {PolicyError} When refused, missing, not a regular file, or changed while opened.
   * @throws {LimitError} When longer than `maxBytes` and `truncate` is false.
   *
   * @example Refuse a file inside .git
   * ```ts
   * import { definePolicy, PathJail, PolicyError } from "@forge/toolkit/validate";
   * import assert from "node:assert/strict";
   *
   * const jail = new PathJail(definePolicy({ readRoots: ["/srv/data"] }));
   * await assert.rejects(jail.readTextFile("repo/.git/config", { maxBytes: 4096 }), PolicyError);
   * ```
   */
  async readTextFile(path: string, options: ReadFileOptions = {}): Promise<string> {
    const { bytes, size } = await this.#read(path, options);
    if (bytes.length === size) return new TextDecoder().decode(bytes);
    const end = wholeCharacters(bytes);
    const text = new TextDecoder().decode(bytes.subarray(0, end));
    return `${text}\n${truncationMarker(end, size, "bytes")}`;
  }

  /**
   * Writes a file inside the writable roots. It opens without truncating,
   * checks the opened file is the one that was resolved, and only then
   * truncates and writes.
   *
   * @param path The caller's path.
   * @param data The content.
   * @param options `createNew`, `append`, signal.
   * @throws {PolicyError} When refused, or the file changed while opened.
   *
   * @example Refuse a write that leaves the root
   * ```ts
   * import { definePolicy, PathJail, PolicyError } from "@forge/toolkit/validate";
   * import assert from "node:assert/strict";
   *
   * const jail = new PathJail(definePolicy({ writeRoots: ["/srv/out"] }));
   * await assert.rejects(jail.writeFile("../etc/cron.d/job", "* * * * * sh"), PolicyError);
   * ```
   */
  async writeFile(path: string, data: string | Uint8Array, options: WriteFileOptions = {}): Promise<void> {
    const real = await this.resolveWrite(path);
    await writeChecked(real, path, typeof data === "string" ? new TextEncoder().encode(data) : data, options);
  }

  async #read(path: string, options: ReadFileOptions): Promise<{ bytes: Uint8Array; size: number }> {
    const real = await this.resolveRead(path);
    return await readChecked(real, path, {
      ...options,
      maxBytes: options.maxBytes ?? this.#policy.limits.maxReadBytes,
    });
  }

  /**
   * Refuses a path that does not resolve. When the nearest existing ancestor
   * lies outside the roots (through a link), the answer is the escape, not
   * "not found", so the jail does not reveal what exists outside it.
   */
  async #missing(err: unknown, candidate: string, mode: Mode, path: string): Promise<never> {
    if (err instanceof Deno.errors.NotFound || err instanceof Deno.errors.NotADirectory) {
      for (let dir = dirname(candidate); dir !== dirname(dir); dir = dirname(dir)) {
        const real = await Deno.realPath(dir).catch(() => undefined);
        if (real === undefined) continue;
        await this.#checkReal(real, mode, mode, path);
        break;
      }
    }
    refusalFor(err, mode, path);
  }

  /** Resolves the caller's text lexically and checks it against the roots and deny globs. */
  #lexical(path: string, mode: Mode, action: string): string {
    checkCallerPath(path, this.#policy.limits.maxPathLength, action);
    const roots = this.#roots[mode];
    if (roots.length === 0) {
      throw new PolicyError(
        "outside-roots",
        `Cannot ${action} ${quote(path)}: no folder is open for ${mode === "read" ? "reading" : "writing"}`,
      );
    }
    const candidate = isAbsolute(path) ? resolve(path) : resolve(roots[0], path);
    const rel = containing(roots, candidate);
    if (rel === undefined) {
      throw new PolicyError("outside-roots", `Cannot ${action} ${quote(path)}: the path leaves the allowed folders`);
    }
    this.#checkDeny(rel, action, path);
    return candidate;
  }

  async #checkReal(real: string, mode: Mode, action: string, path: string): Promise<void> {
    const rel = containing(await this.#realRoots(mode), real);
    if (rel === undefined) {
      throw new PolicyError(
        "symlink-escape",
        `Cannot ${action} ${
          quote(path)
        }: it is or passes through a symbolic link that leads outside the allowed folders`,
      );
    }
    this.#checkDeny(rel, action, path);
  }

  #checkDeny(rel: string, action: string, path: string): void {
    if (matchesAny(this.#deny, rel.split(sep).join("/"))) {
      throw new PolicyError("denied-by-glob", `Cannot ${action} ${quote(path)}: the policy denies this path`);
    }
  }

  /** Real paths of the roots, computed once they all resolve. */
  async #realRoots(mode: Mode): Promise<readonly string[]> {
    const cached = this.#real[mode];
    if (cached) return cached;
    const real = await Promise.all(this.#roots[mode].map((root) =>
      Deno.realPath(root).catch((err) => {
        // A missing or unreadable root is a server misconfiguration, not the model's to fix.
        throw new Error(`Cannot open the path jail: root ${quote(root, 256)} cannot be resolved`, { cause: err });
      })
    ));
    this.#real[mode] = real;
    return real;
  }
}

/** The root-relative path of `candidate` under the first root that contains it, compared by segments. */
function containing(roots: readonly string[], candidate: string): string | undefined {
  for (const root of roots) {
    const rel = relative(root, candidate);
    if (rel === "") return "";
    if (isAbsolute(rel)) continue;
    if (rel === ".." || rel.startsWith(`..${sep}`)) continue;
    return rel;
  }
  return undefined;
}
