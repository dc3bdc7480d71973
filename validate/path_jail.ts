import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { changed } from "./_anchored.ts";
import { checkCallerPath, refusalFor } from "./_caller_path.ts";
import { chaseStrays, type CheckContext, readChecked, statChecked, type Stray, writeChecked } from "./_checked_file.ts";
import { listChecked } from "./_listing.ts";
import { checkAnchor, type Identity, walkHooks, type What, withRoot } from "./_descriptor_anchor.ts";
import { listAt, readAt, statAt, type Walk, writeAt } from "./_descriptor_ops.ts";
import { compileGlob, type GlobMatcher, matchesOrInside, namesIn } from "./_glob.ts";
import { type CutText, truncationMarker } from "./limits.ts";
import { DEFAULT_DENY, type Policy } from "./policy.ts";
import { PolicyError } from "./policy_error.ts";
import { ownFilePlaces } from "./own_file_places.ts";
import { quote } from "../internal/quote.ts";
import { isMissingPath } from "../internal/missing_path.ts";
import { wholeCharacters } from "./_utf8.ts";
import type { DescriptorAnchorCheck, PathJailOptions } from "./path_jail_options.ts";
import type { DirListing, ListDirOptions } from "./dir_listing.ts";
import type { ReadFileOptions, ResolveReadOptions, WriteFileOptions } from "./file_options.ts";

type Mode = "read" | "write";

/**
 * Layer 1 for files: resolves a caller's path inside the policy's roots and
 * refuses everything else — `..` escapes, sibling prefixes (`/data2` is not in
 * `/data`), symbolic links (the file or any parent) whose real path leaves
 * every root, deny globs, the policy's own files (`readFiles`, `writeFiles`:
 * the server's config or audit file, even inside a root), NUL bytes, empty and
 * over-long paths. Reads may use
 * `readRoots` and `writeRoots`; writes only `writeRoots`. Relative paths start
 * at the first root. Refusals are {@linkcode PolicyError}s whose message shows
 * the path as the caller gave it.
 *
 * Deno's `--allow-read=<root>` does not stop a symbolic link inside the root
 * that points outside it: against that, this real-path check is the only
 * layer. Regular files with several hard links are refused unless
 * `allowHardLinks`. With `descriptorAnchor` (Linux), every file and folder is
 * then reached from a descriptor of its root, one name at a time through the
 * descriptor of the folder before it, each checked by identity (device and
 * inode): a racing process that swaps a folder for a link cannot redirect a
 * call. Without it, files are used by their checked real path and compared by
 * identity after opening, which narrows the window between check and use but
 * does not close it. See docs/security.md.
 *
 * @example Refuse an escape and a sibling prefix
 * ```ts
 * import { definePolicy, PathJail, PolicyError } from "@forge/toolkit/validate";
 * import assert from "node:assert/strict";
 *
 * const jail = new PathJail(definePolicy({ readRoots: ["/srv/data"] }));
 * // In a tool: const { text, marker } = await jail.readTextCut(path, { truncate: true }); and answer
 * // textWithNotice(text, marker) (`@forge/toolkit`), so that the file cannot forge the marker.
 * await assert.rejects(jail.readTextFile("../../etc/passwd"), PolicyError);
 * await assert.rejects(jail.readTextFile("/srv/data2/notes.txt"), PolicyError);
 * ```
 */
export class PathJail {
  #policy: Policy;
  #deny: GlobMatcher[];
  #anywhere: GlobMatcher[];
  #roots: Record<Mode, readonly string[]>;
  // Each root's real path, taken when the jail is built (or, for a root that did not resolve then, when it first
  // does), shared by reads and writes: a root swapped later for a link, by whoever can write its parent, can
  // neither move the roots nor make the read and write checks disagree about one path.
  #pinned = new Map<string, string>();
  // Where a root that did not resolve at construction must resolve once it does: the real path of its nearest
  // folder that did, and the names below it. A root created later as a link (or below a folder created as one)
  // by whoever can write its parent resolves elsewhere: it is not taken, and calls under it are refused.
  #expected = new Map<string, string>();
  #allowHardLinks: boolean;
  #anchor: string | undefined;
  #anchorChecked = false;
  #rootIds = new Map<string, Identity>();
  // The server's own files (the policy's readFiles and writeFiles): never served, by their path or their real path.
  #own: ReadonlySet<string>;

  /**
   * Builds a jail and resolves each root to its real path now (a root
   * that does not resolve yet, when it first does, and only below the real
   * path its nearest folder has now). Every call then checks
   * that the root its path lies in still resolves to that real path, and
   * refuses (`changed`) when it does not.
   *
   * @param policy The policy whose roots, deny globs and limits apply.
   * @param options Whether hard-linked files are served, and the descriptor anchor.
   * @throws {TypeError} When the descriptor anchor is not an absolute path.
   */
  constructor(policy: Policy, options: PathJailOptions = {}) {
    this.#policy = policy;
    this.#allowHardLinks = options.allowHardLinks === true;
    if (options.descriptorAnchor !== undefined && !isAbsolute(options.descriptorAnchor)) {
      throw new TypeError(
        `Cannot use the descriptor anchor ${quote(options.descriptorAnchor, 256)}: it must be absolute`,
      );
    }
    this.#anchor = options.descriptorAnchor;
    // The default globs name secrets wherever they lie: matched against the absolute path, so a root inside
    // `.aws` (or `.config`, beside `gcloud/`) does not make its files relative paths the globs never see. Each
    // starts with `**/`, so a match of the path from its root (the end of the absolute path) is one of the
    // absolute path too: they are not matched against the relative path again.
    const anywhere = (glob: string) => DEFAULT_DENY.includes(glob);
    this.#deny = policy.deny.filter((glob) => !anywhere(glob)).map(compileGlob);
    this.#anywhere = policy.deny.filter(anywhere).map(compileGlob);
    this.#roots = { read: [...new Set([...policy.readRoots, ...policy.writeRoots])], write: policy.writeRoots };
    this.#own = new Set([...policy.readFiles, ...policy.writeFiles]);
    for (const root of this.#roots.read) this.#pinAtStart(root);
  }

  /**
   * Takes a root's real path and its identity at construction. One this
   * process may not read, or that does not exist, is taken when it first
   * resolves (permission is asked first, so no prompt is raised).
   */
  #pinAtStart(root: string): void {
    if (Deno.permissions.querySync({ name: "read", path: root }).state !== "granted") return;
    let real: string;
    try {
      real = Deno.realPathSync(root);
    } catch {
      this.#expectAtStart(root);
      return;
    }
    this.#pinned.set(root, real);
    if (Deno.permissions.querySync({ name: "read", path: real }).state !== "granted") return;
    this.#recordId(real, statOrUndefined(real));
  }

  /**
   * Records where a root that does not resolve at construction must resolve: below the real path of its nearest
   * folder that does. Nothing is recorded when a folder on the way may not be read (Deno's grant of the root then
   * bounds what it reaches) or fails otherwise than as missing.
   */
  #expectAtStart(root: string): void {
    const below = [basename(root)];
    for (let dir = dirname(root);; dir = dirname(dir)) {
      if (Deno.permissions.querySync({ name: "read", path: dir }).state !== "granted") return;
      try {
        this.#expected.set(root, join(Deno.realPathSync(dir), ...below));
        return;
      } catch (err) {
        if (!(err instanceof Deno.errors.NotFound) || dir === dirname(dir)) return;
      }
      below.unshift(basename(dir));
    }
  }

  /** Records the identity of a root's real path, unless one is recorded or it has none. */
  #recordId(real: string, info: Deno.FileInfo | undefined): void {
    if (info === undefined || !info.isDirectory || info.ino === null || this.#rootIds.has(real)) return;
    this.#rootIds.set(real, { dev: info.dev, ino: info.ino });
  }

  /**
   * Checks the descriptor anchor: a symbolic link to exactly `/proc/self/fd`,
   * on Linux, in a folder not writable by group or others (when this process
   * may stat it), through which every root this process can open is the very
   * folder it opened. The jail checks this on first use too; a server calls
   * it at start to refuse a wrong anchor before serving.
   *
   * @returns Whether the anchor's folder mode was checked, and how many roots.
   * @throws {TypeError} When the jail has no descriptor anchor.
   * @throws {Error} When the anchor is missing, not such a link, in a folder others can write, or does not work.
   *
   * @example Refuse an anchor that is not a link to /proc/self/fd
   * ```ts
   * import { definePolicy, PathJail } from "@forge/toolkit/validate";
   * import assert from "node:assert/strict";
   *
   * const jail = new PathJail(definePolicy({ readRoots: ["/srv/data"] }), { descriptorAnchor: "/nonexistent/fd" });
   * assert.throws(() => jail.checkDescriptorAnchor(), /Cannot use the descriptor anchor/);
   * ```
   */
  checkDescriptorAnchor(): DescriptorAnchorCheck {
    const anchor = this.#anchor;
    if (anchor === undefined) throw new TypeError("Cannot check the descriptor anchor: the jail has none");
    const check = checkAnchor(anchor, this.#roots.read.map((root) => this.#pinned.get(root) ?? root), this.#rootIds);
    this.#anchorChecked = true;
    return check;
  }

  /**
   * Resolves a caller's path for reading.
   *
   * @param path The path as the caller gave it, relative to the first root or absolute.
   * @param options `action` words the refusals: a tool that resolves a folder before listing it says
   * "Cannot list …", not "Cannot read …".
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
   * await assert.rejects(jail.resolveRead("/etc", { action: "list" }), /^PolicyError: Cannot list "\/etc"/);
   * ```
   */
  async resolveRead(path: string, options: ResolveReadOptions = {}): Promise<string> {
    return await this.#resolveRead(path, options.action ?? "read");
  }

  /** {@linkcode resolveRead}, its refusals worded for `action` (`list`: "Cannot list …"). */
  async #resolveRead(path: string, action: string): Promise<string> {
    const candidate = this.#lexical(path, "read", action);
    await this.#checkRootsUnmoved(candidate, "read", action, path);
    let real: string;
    try {
      real = await Deno.realPath(candidate);
    } catch (err) {
      real = await this.#missing(err, candidate, "read", path, action);
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
    await this.#checkRootsUnmoved(candidate, "write", action, path);
    let real: string;
    try {
      real = await Deno.realPath(candidate);
    } catch (err) {
      // A name on the way is a file: refused as not found unless a link on the way leads outside (then that is
      // the answer, as for a read), so the answer does not tell that a link's outside target is a file.
      if (err instanceof Deno.errors.NotADirectory) await this.#missing(err, candidate, "write", path);
      if (!(err instanceof Deno.errors.NotFound)) refusalFor(err, action, path);
      // A dangling symbolic link is refused: writing through it would create its target. One that leads
      // outside is refused as any link out is, so the answer does not tell whether its target exists.
      const link = await Deno.lstat(candidate).then(() => true, () => false);
      if (link) {
        await this.#danglingInside(candidate, "write", action, path);
        throw new PolicyError("symlink-escape", `Cannot write ${quote(path)}: it is a dangling symbolic link`);
      }
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
   * with a `[truncated: showed N of M bytes]` marker (inside the text, where
   * a file can write the same line: {@linkcode readTextCut} keeps it apart).
   * A leading byte-order mark is kept, as U+FEFF, so that the text written
   * back is the same bytes.
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
    const cut = await this.readTextCut(path, options);
    return cut.marker === undefined ? cut.text : `${cut.text}\n${cut.marker}`;
  }

  /**
   * Reads a UTF-8 text file inside the jail as {@linkcode readTextFile} does,
   * but with the marker of a cut file apart from its text: a file whose own
   * text ends with `[truncated: …]` cannot pass for a cut one, nor a cut one
   * for whole, once the marker travels where the file cannot write (a content
   * block of its own, `textWithNotice` in `@forge/toolkit`).
   *
   * @param path The caller's path.
   * @param options Cap, truncation and signal.
   * @returns The text, and the marker when the file was cut.
   * @throws {PolicyError} When refused, missing, not a regular file, or changed while opened.
   * @throws {LimitError} When longer than `maxBytes` and `truncate` is false.
   *
   * @example Read the start of a log, the marker apart
   * ```ts
   * import { definePolicy, PathJail, PolicyError } from "@forge/toolkit/validate";
   * import assert from "node:assert/strict";
   *
   * const jail = new PathJail(definePolicy({ readRoots: ["/srv/data"] }));
   * await assert.rejects(jail.readTextCut("logs/.env", { maxBytes: 4096, truncate: true }), PolicyError);
   * ```
   */
  async readTextCut(path: string, options: ReadFileOptions = {}): Promise<CutText> {
    const { bytes, size } = await this.#read(path, options);
    // A leading byte-order mark stays in the text (U+FEFF): dropped, a file read and written back lost it for good.
    const decoder = new TextDecoder("utf-8", { ignoreBOM: true });
    if (bytes.length === size) return { text: decoder.decode(bytes) };
    const end = wholeCharacters(bytes);
    return { text: decoder.decode(bytes.subarray(0, end)), marker: truncationMarker(end, size, "bytes") };
  }

  /**
   * Writes a file inside the writable roots. It opens without truncating,
   * checks the opened file is the one that was resolved, and only then
   * truncates and writes.
   *
   * @param path The caller's path.
   * @param data The content.
   * @param options `createNew`, `append`, `atomic`, `dryRun` (check only, write nothing), signal.
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
    if (options.atomic && options.append) throw new TypeError("Cannot write: atomic and append exclude each other");
    const real = await this.resolveWrite(path);
    const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
    if (this.#anchor !== undefined) {
      await this.#walk(
        real,
        "write",
        { action: "write", path },
        (w) => writeAt(w, path, bytes, this.#context(), options),
      );
      return;
    }
    const strays: Stray[] = [];
    try {
      writeChecked(real, path, bytes, { ...options, allowHardLinks: this.#allowHardLinks }, strays);
    } finally {
      if (strays.length > 0) await chaseStrays(strays);
    }
  }

  /**
   * Describes a file or folder inside the jail (links resolved inside the
   * roots), checked where it lies like a read.
   *
   * @param path The caller's path.
   * @returns What lstat says about the resolved entry.
   * @throws {PolicyError} When refused or missing, or a file with several hard links (unless allowed).
   *
   * @example Refuse a path outside the roots
   * ```ts
   * import { definePolicy, PathJail, PolicyError } from "@forge/toolkit/validate";
   * import assert from "node:assert/strict";
   *
   * const jail = new PathJail(definePolicy({ readRoots: ["/srv/data"] }));
   * await assert.rejects(jail.stat("/etc/passwd"), PolicyError);
   * ```
   */
  async stat(path: string): Promise<Deno.FileInfo> {
    const real = await this.#resolveRead(path, "stat");
    if (this.#anchor !== undefined) {
      return await this.#walk(real, "read", { action: "stat", path }, (w) => statAt(w, path, this.#context()));
    }
    const isRoot = containing(await this.#realRoots("read"), real) === "";
    return statChecked(real, path, isRoot, this.#context());
  }

  /**
   * Lists a folder inside the jail: the first `limit` entries by name, read
   * from the folder the kernel confirms lies inside a root. Entries the deny
   * globs refuse are left out; links are shown as `symlink`, never followed.
   * Deno reads a folder's names all at once: a folder whose entry table is
   * over 2 MiB on disk is refused (`too-large`) before it is read. The deny
   * globs match the folder's path once and then each name, in name order,
   * until `limit` are kept and one more is visible; names past those are
   * neither matched nor looked up. The listing is one synchronous step: with
   * `timeMs` it looks at the clock between entries and stops past it.
   *
   * @param path The caller's path of a folder.
   * @param options The cap, the signal and the time.
   * @returns The entries and whether some were left out.
   * @throws {PolicyError} When refused, missing or not a folder, or (`too-large`) past `timeMs`.
   * @throws {DOMException} The signal's reason, when it fired before the listing or while it ran past `timeMs`.
   *
   * @example Refuse a listing outside the roots
   * ```ts
   * import { definePolicy, PathJail, PolicyError } from "@forge/toolkit/validate";
   * import assert from "node:assert/strict";
   *
   * const jail = new PathJail(definePolicy({ readRoots: ["/srv/data"] }));
   * await assert.rejects(jail.listDir("/srv", { limit: 10 }), PolicyError);
   * ```
   */
  async listDir(path: string, options: ListDirOptions = {}): Promise<DirListing> {
    options.signal?.throwIfAborted();
    const started = performance.now();
    const timeMs = options.timeMs ?? Infinity;
    const real = await this.#resolveRead(path, "list");
    const roots = await this.#realRoots("read");
    const limit = options.limit ?? 1000;
    // The folder's segments are matched once, from every root that holds it; each name then costs one step per
    // glob and root.
    const denied = everyContaining(roots, real).map((rel) => namesIn(this.#deny, globPath(rel)));
    const deniedAnywhere = namesIn(this.#anywhere, globPath(real));
    const own = ownFilePlaces(this.#own);
    const ownHere = new Set([...own.paths].filter((file) => dirname(file) === real).map((file) => basename(file)));
    const visible = (name: string) =>
      !denied.some((d) => d(name)) && !deniedAnywhere(name) && !ownHere.has(name) && !own.names.has(name);
    const linkVisible = (target: string) => {
      const inRoots = everyContaining(roots, target);
      return inRoots.length === 0 || !this.#denied(inRoots, target);
    };
    let late = false;
    const checkTime = () => {
      if (performance.now() - started < timeMs) return;
      late = true;
      throw new PolicyError(
        "too-large",
        `Cannot list ${quote(path)}: listing it took longer than ${timeMs} ms; list or search a folder inside it`,
      );
    };
    try {
      if (this.#anchor !== undefined) {
        const options = { limit, visible, linkVisible, checkTime, realDir: real };
        return await this.#walk(
          real,
          "read",
          { action: "list", path },
          (w) => listAt(w, path, this.#context(), options),
        );
      }
      return listChecked(real, path, this.#context(), { limit, visible, linkVisible, checkTime });
    } catch (err) {
      if (late) {
        // The step held the thread past its time: the timers due meanwhile run first (a tool call's deadline
        // among them), so that a deadline that passed is answered as the deadline.
        await new Promise((resolve) => setTimeout(resolve, 0));
        options.signal?.throwIfAborted();
      }
      if (err instanceof PolicyError && err.cause instanceof Deno.errors.NotADirectory) {
        throw new PolicyError("not-a-file", `Cannot list ${quote(path)}: it is a file, not a folder`, { cause: err });
      }
      throw err;
    }
  }

  async #read(path: string, options: ReadFileOptions): Promise<{ bytes: Uint8Array; size: number }> {
    const real = await this.resolveRead(path);
    const checked = { ...options, maxBytes: options.maxBytes ?? this.#policy.limits.maxReadBytes };
    if (this.#anchor !== undefined) {
      return await this.#walk(real, "read", { action: "read", path }, (w) => readAt(w, path, this.#context(), checked));
    }
    return await readChecked(real, path, this.#context(), checked);
  }

  /**
   * Runs one descriptor walk to `real`: opens its root (the folder first seen
   * there), hands `fn` the names from the root to `real`, and closes the root
   * whatever happens. `fn` is synchronous, so every descriptor it opens is
   * closed before another call can run.
   */
  async #walk<T>(real: string, mode: Mode, what: What, fn: (walk: Walk) => T): Promise<T> {
    const roots = await this.#realRoots(mode);
    if (!this.#anchorChecked) this.checkDescriptorAnchor();
    const root = roots.find((root) => containing([root], real) !== undefined);
    if (root === undefined) {
      throw new PolicyError(
        "outside-roots",
        `Cannot ${what.action} ${quote(what.path)}: the path leaves the allowed folders`,
      );
    }
    const rel = containing([root], real)!;
    return withRoot(this.#anchor!, root, this.#rootIds, what, (fd) =>
      fn({
        anchor: this.#anchor!,
        root: fd,
        rootPath: root,
        names: rel === "" ? [] : rel.split(sep),
      }));
  }

  #context(): CheckContext {
    return { allowHardLinks: this.#allowHardLinks };
  }

  /**
   * Refuses a path that does not resolve. When the nearest existing ancestor
   * lies outside the roots (through a link), the answer is the escape, not
   * "not found", so the jail does not reveal what exists outside it.
   */
  async #missing(err: unknown, candidate: string, mode: Mode, path: string, action: string = mode): Promise<never> {
    if (isMissingPath(err)) {
      await this.#checkRootExists(candidate, mode, action, path);
      const walk = this.#linkWalk(mode, action, path);
      await walk.nearest(candidate);
      await walk.links(candidate);
    }
    refusalFor(err, action, path);
  }

  /**
   * Refuses a path whose root folder does not exist, saying so: "no such file
   * or folder" would send the model after its path when the server's
   * configuration is at fault. The root itself is not named, as no refusal
   * names a host path.
   */
  async #checkRootExists(candidate: string, mode: Mode, action: string, path: string): Promise<void> {
    for (const root of this.#roots[mode]) {
      if (containing([root], candidate) === undefined) continue;
      const missing = await Deno.realPath(root).then(
        () => false,
        isMissingPath,
      );
      if (missing) this.#refuseRootMissing(mode, action, path);
    }
  }

  /** Refuses a call whose root folder does not exist, in words that name neither the root nor any host path. */
  #refuseRootMissing(mode: Mode, action: string, path: string): never {
    throw new PolicyError(
      "not-found",
      `Cannot ${action} ${quote(path)}: the folder this server ${
        mode === "write" ? "writes in" : "reads from"
      } does not exist`,
    );
  }

  /**
   * Refuses a dangling link (or chain of links) whose target lies outside the
   * roots, as a link to an outside file that exists is refused: "not found"
   * for one and "leads outside" for the other would tell what exists outside.
   */
  async #danglingInside(candidate: string, mode: Mode, action: string, path: string): Promise<void> {
    await this.#linkWalk(mode, action, path).links(candidate);
  }

  /**
   * The walk that finds where a path that does not resolve leads: `nearest`
   * refuses it when the nearest of its folders that exists lies outside the
   * roots, or when a folder on the way is a link that leads outside
   * (`dangling/x`: below it, as at it, the answer is the escape); `links`
   * refuses it when it is a link (or chain of links) whose target leads
   * outside, lexically or by that target's own nearest folder, through links
   * again (`d2 -> dangling/x`). Each target is resolved against its link's
   * real folder, and a `..` in it after a name goes up from where that name
   * leads, as the system does ({@linkcode physical}). A chain is followed for
   * 40 links, as the system does; one budget of 256 links read (and real
   * paths taken before a `..`) for the whole walk bounds what links through
   * each other's folders cost, and past it the path is refused.
   */
  #linkWalk(
    mode: Mode,
    action: string,
    path: string,
  ): { nearest(at: string): Promise<void>; links(at: string): Promise<void> } {
    let budget = 256;
    const spend = () => {
      if (--budget < 0) {
        throw new PolicyError(
          "symlink-escape",
          `Cannot ${action} ${quote(path)}: it passes through too many symbolic links`,
        );
      }
    };
    const nearest = async (candidate: string): Promise<void> => {
      for (let dir = dirname(candidate); dir !== dirname(dir); dir = dirname(dir)) {
        const real = await Deno.realPath(dir).catch(() => undefined);
        if (real === undefined) {
          await links(dir);
          continue;
        }
        await this.#checkReal(real, mode, action, path);
        return;
      }
    };
    const links = async (at: string): Promise<void> => {
      // A chain of over 40 links is one the system would not follow either (ELOOP): "not found", as a cycle is.
      for (let hop = 0; hop < 40; hop++) {
        const target = await Deno.readLink(at).catch(() => undefined);
        if (target === undefined) return;
        // Only links count: a deep path that is simply missing reads no link at all.
        spend();
        const folder = await Deno.realPath(dirname(at)).catch(() => undefined);
        if (folder === undefined) return;
        at = await physical(folder, target, spend);
        if (containing(await this.#realRoots(mode), at) === undefined) await this.#checkReal(at, mode, action, path);
        await nearest(at);
      }
    };
    return { nearest, links };
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
    this.#checkDepth(rel, action, path);
    this.#checkDeny(everyContaining(roots, candidate), candidate, action, path);
    if (this.#own.has(candidate)) this.#refuseOwn(action, path);
    return candidate;
  }

  async #checkReal(real: string, mode: Mode, action: string, path: string): Promise<void> {
    const roots = await this.#realRoots(mode);
    const rel = containing(roots, real);
    if (rel === undefined) {
      throw new PolicyError(
        "symlink-escape",
        `Cannot ${action} ${
          quote(path)
        }: it is or passes through a symbolic link that leads outside the allowed folders`,
      );
    }
    this.#checkDepth(rel, action, path);
    this.#checkDeny(everyContaining(roots, real), real, action, path);
    if (this.#own.size > 0 && this.#isOwn(real)) this.#refuseOwn(action, path);
  }

  /**
   * Whether `real` is one of the server's own files: by where they are now ({@linkcode ownFilePlaces}: a redeploy may
   * have swapped a link on their way since the last call), or, where hard links are served, by identity.
   */
  #isOwn(real: string): boolean {
    const own = ownFilePlaces(this.#own);
    if (own.paths.has(real) || own.names.has(basename(real))) return true;
    if (!this.#allowHardLinks) return false;
    const info = statOrUndefined(real);
    if (info === undefined || info.nlink === null || info.nlink <= 1) return false;
    // A file with another name: the own files' identities are looked up only then.
    return ownFilePlaces(this.#own, { ids: true }).ids.has(`${info.dev}:${info.ino}`);
  }

  /** Refuses one of the server's own files in the words of a deny glob: the model learns nothing more of it. */
  #refuseOwn(action: string, path: string): never {
    throw new PolicyError("denied-by-glob", `Cannot ${action} ${quote(path)}: the policy denies this path`);
  }

  /** Refuses a path more than `maxPathDepth` names below its root (`rel` is root-relative). */
  #checkDepth(rel: string, action: string, path: string): void {
    const max = this.#policy.limits.maxPathDepth;
    if (rel === "" || rel.split(sep).length <= max) return;
    throw new PolicyError(
      "invalid-input",
      `Cannot ${action} ${quote(path)}: it lies more than ${max} levels below its root folder`,
    );
  }

  /**
   * Whether the deny globs refuse a path: `rels` from every root that holds it (with nested roots, the globs
   * deny the same paths whichever root is listed first), and `absolute` for the default globs. A path in a
   * denied folder is denied (as `.gitignore` reads a pattern): a glob that matches the folder
   * `secrets` refuses `secrets/api.txt`, and with the default globs a folder above the root counts too.
   */
  #denied(rels: readonly string[], absolute: string): boolean {
    return rels.some((rel) => matchesOrInside(this.#deny, globPath(rel))) ||
      matchesOrInside(this.#anywhere, globPath(absolute));
  }

  #checkDeny(rels: readonly string[], absolute: string, action: string, path: string): void {
    if (this.#denied(rels, absolute)) {
      throw new PolicyError("denied-by-glob", `Cannot ${action} ${quote(path)}: the policy denies this path`);
    }
  }

  /** Whether the folder at a root's real path is the one recorded there (true when none could be). */
  async #sameRoot(real: string): Promise<boolean> {
    const id = this.#rootIds.get(real);
    if (id === undefined) return true;
    const info = await Deno.stat(real).catch(() => undefined);
    return info !== undefined && info.ino === id.ino && info.dev === id.dev;
  }

  /**
   * The real paths of the roots for `mode`, in their order: those taken at construction, the others now. A root that
   * does not resolve yet holds nothing that does: it stands as where it is expected (or as configured), so a call
   * under another root is not failed for it (it failed every call, as an internal error naming the missing root).
   */
  async #realRoots(mode: Mode): Promise<readonly string[]> {
    const real: string[] = [];
    for (const root of this.#roots[mode]) {
      real.push(this.#pinned.get(root) ?? await this.#pinLate(root).catch(() => this.#expected.get(root) ?? root));
    }
    return real;
  }

  /**
   * Takes the real path of a root that did not resolve at construction, for reads and writes alike, unless it
   * resolves elsewhere than its nearest folder then said (then that expected path is answered, untaken).
   */
  async #pinLate(root: string): Promise<string> {
    walkHooks.beforeRootPinned?.(root);
    const real = await Deno.realPath(root).catch((err) => {
      // A missing or unreadable root is a server misconfiguration, not the model's to fix.
      throw new Error(`Cannot open the path jail: root ${quote(root, 256)} cannot be resolved`, { cause: err });
    });
    // Another call may have taken it meanwhile: the first one taken stays.
    const pinned = this.#pinned.get(root);
    if (pinned !== undefined) return pinned;
    // Resolved elsewhere than start expected: not taken, so that a path below it lies outside every root and a call
    // under it is refused (`changed`).
    const expected = this.#expected.get(root);
    if (expected !== undefined && real !== expected) return expected;
    this.#pinned.set(root, real);
    this.#recordId(real, await Deno.stat(real).catch(() => undefined));
    return real;
  }

  /**
   * Refuses a call when a root its path lies in (as given) no longer
   * resolves to the real path taken for it, or is no longer the folder
   * (device and inode) found there: whoever can write a root's parent
   * folder can put a link, or a folder of its own, in its place. A root
   * that does not resolve now is left to the checks after, which say that
   * it does not exist.
   */
  async #checkRootsUnmoved(candidate: string, mode: Mode, action: string, path: string): Promise<void> {
    for (const root of this.#roots[mode]) {
      if (containing([root], candidate) === undefined) continue;
      const now = await Deno.realPath(root).catch(() => undefined);
      if (now === undefined) continue;
      // A root that vanished (or changed) since it resolved a moment ago is refused in the caller's words: the plain
      // Error of #pinLate named the root's host path, as an internal error.
      const pinned = this.#pinned.get(root) ?? await this.#pinLate(root).catch((err: unknown) => {
        if (isMissingPath((err as Error).cause)) this.#refuseRootMissing(mode, action, path);
        throw changed(action, path);
      });
      if (now === pinned && await this.#sameRoot(pinned)) continue;
      throw new PolicyError(
        "changed",
        `Cannot ${action} ${quote(path)}: its root folder was replaced since the server started`,
        { cause: new Error(`root ${quote(root, 256)} resolved to ${quote(pinned, 256)}, now ${quote(now, 256)}`) },
      );
    }
  }
}

/**
 * Where the link target `target`, read in the real folder `folder`, leads as
 * the system follows it: a `..` after a name goes up from that name's real
 * path (a link first followed), where `resolve()` drops `name/..` and so
 * took `lnk/../x` for a path inside the link's folder while the system reads
 * `x` beside the link's target (a red team's oracle: such a dangling link
 * out was "not found", its twin whose target exists "leads outside"). Where
 * the part before a `..` does not resolve, the system stops there, and so
 * does this: that part is the answer. Each real path taken calls `spend`.
 */
async function physical(folder: string, target: string, spend: () => void): Promise<string> {
  let at = isAbsolute(target) ? sep : folder;
  // Whether `at` holds a name since its last real path: only then does a `..` need one.
  let named = false;
  for (const name of target.split(sep)) {
    if (name === "" || name === ".") continue;
    if (name !== "..") {
      at = join(at, name);
      named = true;
      continue;
    }
    if (named) {
      spend();
      const real = await Deno.realPath(at).catch(() => undefined);
      if (real === undefined) return at;
      at = real;
      named = false;
    }
    at = dirname(at);
  }
  return at;
}

/** The file's information, or undefined when it cannot be had. */
function statOrUndefined(path: string): Deno.FileInfo | undefined {
  try {
    return Deno.statSync(path);
  } catch {
    return undefined;
  }
}

/** A path as the deny globs read it: `/` between names, none in front. */
function globPath(path: string): string {
  return path.split(sep).join("/").replace(/^\/+/, "");
}

/** The root-relative path of `candidate` under the first root that contains it, compared by segments. */
function containing(roots: readonly string[], candidate: string): string | undefined {
  return everyContaining(roots, candidate)[0];
}

/** The root-relative paths of `candidate` under every root that contains it, in the roots' order. */
function everyContaining(roots: readonly string[], candidate: string): string[] {
  const found: string[] = [];
  for (const root of roots) {
    const rel = relative(root, candidate);
    if (isAbsolute(rel) || rel === ".." || rel.startsWith(`..${sep}`)) continue;
    found.push(rel);
  }
  return found;
}
