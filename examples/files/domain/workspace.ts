// One config's view of the file system: the path jail built from the roots
// this process can actually use, and the map from a real path back to the
// root it lies in, so results show root-relative paths only.
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import {
  type CutText,
  definePolicy,
  type DirListing,
  LimitError,
  type ListDirOptions,
  PathJail,
  type Policy,
  PolicyError,
  quote,
  type ReadFileOptions,
} from "@forge/toolkit/validate";

/** Whether a path is used for reading or for writing. */
export type Mode = "read" | "write";

/** A configured root and whether this process can use it. */
export interface Root {
  /** The root as configured (absolute): what results and patterns show. */
  readonly shown: string;
  /** Its real path, when it exists and this process may use it. */
  readonly real: string | undefined;
  /** Why it cannot be used: outside the process's permissions, or missing. */
  readonly problem: "not-granted" | "missing" | undefined;
}

/** A caller's path resolved inside the jail. */
export interface Resolved {
  /** The real absolute path (for the server's own use; never shown). */
  readonly real: string;
  /** The root it lies in, as configured. */
  readonly root: string;
  /** The path relative to that root, with `/` separators; `""` for the root itself. */
  readonly rel: string;
  /** The path to hand the jail for this file again (the caller's text where possible). */
  readonly jailPath: string;
}

/**
 * The roots of one config and a {@linkcode PathJail} over those this process
 * can use. Layer 2 (Deno's flags) is fixed at start, so a reloaded config may
 * name roots the process was not started with: those are left out of the
 * jail, and a path into one gets a clear refusal that says to restart.
 */
export class Workspace {
  readonly #read: readonly Root[];
  readonly #write: readonly Root[];
  readonly #jail: PathJail;
  readonly #jailFirst: Record<Mode, string | undefined>;

  private constructor(read: readonly Root[], write: readonly Root[], jail: PathJail) {
    this.#read = read;
    this.#write = write;
    this.#jail = jail;
    this.#jailFirst = {
      read: read.find((r) => r.real !== undefined)?.shown,
      write: write.find((r) => r.real !== undefined)?.shown,
    };
  }

  /**
   * Builds the view of a policy: checks which roots this process may use and
   * resolves their real paths. `ownFiles` (the config, the audit file) are
   * denied inside every root, so no tool can read or replace them. With a
   * `descriptorAnchor`, the jail reaches every file through descriptors.
   *
   * @param policy The config's policy.
   * @param ownFiles Absolute paths of the server's own files.
   * @param options Whether hard links are served; the descriptor anchor.
   * @returns The workspace.
   */
  static async open(
    policy: Policy,
    ownFiles: readonly string[] = [],
    options: { allowHardLinks?: boolean; descriptorAnchor?: string } = {},
  ): Promise<Workspace> {
    const readShown = [...new Set([...policy.readRoots, ...policy.writeRoots])];
    const read = await Promise.all(readShown.map((shown) => rootOf(shown, ["read"])));
    const write = await Promise.all(policy.writeRoots.map((shown) => rootOf(shown, ["read", "write"])));
    const usable = (roots: readonly Root[]) => roots.filter((r) => r.real !== undefined).map((r) => r.shown);
    const deny = [...policy.deny, ...await ownFileGlobs(ownFiles, read)];
    const jail = new PathJail(
      definePolicy({
        readRoots: usable(read),
        writeRoots: usable(write),
        deny,
        // And by their real paths at each call (a link on their way may be swapped after the globs were made).
        readFiles: ownFiles,
        defaultDeny: false,
        tenantConfig: false,
        limits: policy.limits,
      }),
      { allowHardLinks: options.allowHardLinks === true, descriptorAnchor: options.descriptorAnchor },
    );
    return new Workspace(read, write, jail);
  }

  /** False when a configured root does not exist (yet): the view should be rebuilt for the next call. */
  get complete(): boolean {
    return [...this.#read, ...this.#write].every((root) => root.problem !== "missing");
  }

  /** The jail over the usable roots. */
  get jail(): PathJail {
    return this.#jail;
  }

  /**
   * Resolves a caller's path (relative to the first root of its mode, or
   * absolute) inside the jail.
   *
   * @param path The path as the caller gave it.
   * @param mode `read` (roots and writable roots) or `write` (writable roots).
   * @param action For reading, what the caller is about to do, for the refusals' words ("Cannot list …").
   * @returns The real path, its root and the root-relative path.
   * @throws {PolicyError} When the jail refuses, or the path lies in a root this process cannot use.
   */
  async resolve(path: string, mode: Mode, action: "read" | "list" | "stat" = "read"): Promise<Resolved> {
    if (mode === "write" && this.#write.length === 0) {
      throw new PolicyError("outside-roots", `Cannot write ${quote(path)}: this server has no writable folder`);
    }
    const jailPath = this.#jailPath(path, mode, mode === "read" ? action : mode);
    const real = await this.#echo(path, jailPath, () => {
      return mode === "read" ? this.#jail.resolveRead(jailPath, { action }) : this.#jail.resolveWrite(jailPath);
    });
    return { real, jailPath, ...this.locate(real, mode) };
  }

  /**
   * Reads a text file through the jail, the marker of a cut file apart (see {@linkcode PathJail.readTextCut}).
   *
   * @param path The caller's path.
   * @param jailPath What {@linkcode Workspace.resolve} returned for it.
   * @param options Cap, truncation and signal.
   * @returns The text, and the marker when it was cut.
   */
  readText(path: string, jailPath: string, options: ReadFileOptions): Promise<CutText> {
    return this.#echo(path, jailPath, () => this.#jail.readTextCut(jailPath, options));
  }

  /**
   * Lists a folder through the jail (see {@linkcode PathJail.listDir}).
   *
   * @param path The caller's path.
   * @param jailPath What {@linkcode Workspace.resolve} returned for it, or a path under a root.
   * @param options The most entries (the first by name), the signal and the time.
   * @returns The listing.
   */
  listDir(path: string, jailPath: string, options: ListDirOptions): Promise<DirListing> {
    return this.#echo(path, jailPath, () => this.#jail.listDir(jailPath, options));
  }

  /**
   * Describes a path through the jail (see {@linkcode PathJail.stat}).
   *
   * @param path The caller's path.
   * @param jailPath What {@linkcode Workspace.resolve} returned for it.
   * @returns What lstat says about the resolved entry.
   */
  stat(path: string, jailPath: string): Promise<Deno.FileInfo> {
    return this.#echo(path, jailPath, () => this.#jail.stat(jailPath));
  }

  /**
   * Replaces or creates a file atomically through the jail.
   *
   * @param path The caller's path.
   * @param jailPath What {@linkcode Workspace.resolve} returned for it.
   * @param bytes The content.
   * @param options `signal` stops the write before it starts; `createNew` never replaces a file.
   */
  writeAtomic(
    path: string,
    jailPath: string,
    bytes: Uint8Array,
    options: { signal?: AbortSignal; createNew?: boolean } = {},
  ): Promise<void> {
    const { signal, createNew } = options;
    return this.#echo(path, jailPath, () => this.#jail.writeFile(jailPath, bytes, { atomic: true, createNew, signal }));
  }

  /**
   * Refuses what {@linkcode Workspace.writeAtomic} would refuse at a resolved
   * write target — a read-only file, a read-only folder — and writes nothing
   * (the jail's `dryRun`): a probe offers no pattern for a write that fails.
   *
   * @param path The caller's path.
   * @param jailPath What {@linkcode Workspace.resolve} returned for it in `write` mode.
   * @throws {PolicyError} When the write would be refused.
   */
  checkWrite(path: string, jailPath: string): Promise<void> {
    return this.#echo(path, jailPath, () => this.#jail.writeFile(jailPath, new Uint8Array(), DRY_RUN));
  }

  /**
   * What is at a resolved write target now, described by the jail (through
   * the descriptor walk when it has an anchor), never by its path alone.
   *
   * @param path The caller's path.
   * @param resolved What {@linkcode Workspace.resolve} returned for it in `write` mode.
   * @returns What kind of entry is there (a link inside the roots resolved), or undefined when nothing is.
   * @throws {PolicyError} When the jail refuses to describe it (it changed while being looked at, …).
   */
  async existing(path: string, resolved: Resolved): Promise<"file" | "dir" | "other" | undefined> {
    const jailPath = Workspace.under(resolved.root, resolved.rel);
    try {
      const info = await this.#echo(path, jailPath, () => this.#jail.stat(jailPath));
      return info.isFile ? "file" : info.isDirectory ? "dir" : "other";
    } catch (err) {
      if (err instanceof PolicyError && err.code === "not-found") return undefined;
      // The jail does not describe a file with several names; a write may replace one (the rename gives this name
      // a new file and leaves the others alone).
      if (err instanceof PolicyError && err.cause === undefined && /hard links/.test(err.message)) return "file";
      // The lookup is a stat, the caller's action a write: the refusal says what was asked.
      if (err instanceof PolicyError && err.message.startsWith("Cannot stat ")) {
        err.message = `Cannot write ${err.message.slice("Cannot stat ".length)}`;
      }
      throw err;
    }
  }

  /**
   * Runs a jail call; when the jail was handed the absolute path a caller's
   * relative path means, its refusal is made to echo what the caller gave.
   */
  async #echo<T>(path: string, jailPath: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (jailPath !== path && (err instanceof PolicyError || err instanceof LimitError)) {
        err.message = err.message.split(quote(jailPath)).join(quote(path));
      }
      throw err;
    }
  }

  /**
   * The path to give the jail for a caller's path: the caller's own text when
   * the jail resolves it the same way, else the absolute path it means. Refuses
   * a path that lies only in a root this process cannot use.
   */
  #jailPath(path: string, mode: Mode, action: string = mode): string {
    const roots = mode === "read" ? this.#read : this.#write;
    // With every root usable the jail decides everything, from the caller's own text.
    if (roots.every((r) => r.real !== undefined) || typeof path !== "string" || path === "") return path;
    const first = roots[0].shown;
    const sameStart = isAbsolute(path) || this.#jailFirst[mode] === first;
    const candidate = isAbsolute(path) ? resolve(path) : resolve(first, path);
    if (roots.some((r) => r.real !== undefined && inside(r.shown, candidate))) return sameStart ? path : candidate;
    const blocked = roots.find((r) => r.real === undefined && inside(r.shown, candidate));
    if (blocked !== undefined) {
      const why = blocked.problem === "missing"
        ? "its root folder does not exist on this server"
        : "its root folder is in the config but outside what this process was started with; " +
          "restart the server with the flags from --print-permissions";
      throw new PolicyError("no-permission", `Cannot ${action} ${quote(path)}: ${why}`);
    }
    if (sameStart) return path;
    throw new PolicyError("outside-roots", `Cannot ${action} ${quote(path)}: the path leaves the allowed folders`);
  }

  /**
   * The root a real path lies in and the path relative to it.
   *
   * @param real A real path the jail returned.
   * @param mode Which roots to search.
   * @returns The root as configured and the `/`-separated relative path.
   * @throws {PolicyError} When no usable root contains it (cannot happen for a path the jail returned).
   */
  locate(real: string, mode: Mode): { root: string; rel: string } {
    for (const root of mode === "read" ? this.#read : this.#write) {
      if (root.real === undefined || !inside(root.real, real)) continue;
      return { root: root.shown, rel: relative(root.real, real).split(sep).join("/") };
    }
    throw new PolicyError("outside-roots", "Cannot locate the path: it is outside the allowed folders");
  }

  /**
   * The absolute path, under the configured root, of a root-relative path:
   * what the jail accepts for entries found while listing.
   *
   * @param root The root as configured.
   * @param rel The root-relative path.
   * @returns The absolute path.
   */
  static under(root: string, rel: string): string {
    return rel === "" ? root : join(root, ...rel.split("/"));
  }
}

// The options of the write this server makes (writeAtomic), checked only.
const DRY_RUN = Object.freeze({ atomic: true, dryRun: true });

async function rootOf(shown: string, needs: readonly ("read" | "write")[]): Promise<Root> {
  for (const name of needs) {
    const { state } = await Deno.permissions.query({ name, path: shown });
    if (state !== "granted") return { shown, real: undefined, problem: "not-granted" };
  }
  try {
    const real = await Deno.realPath(shown);
    // Deno grants by location, not through links: a root that is a link needs its real path granted too.
    for (const name of needs) {
      const { state } = await Deno.permissions.query({ name, path: real });
      if (state !== "granted") return { shown, real: undefined, problem: "not-granted" };
    }
    return { shown, real, problem: undefined };
  } catch (err) {
    if (err instanceof Deno.errors.NotFound || err instanceof Deno.errors.NotADirectory) {
      return { shown, real: undefined, problem: "missing" };
    }
    throw err;
  }
}

/**
 * Deny globs that name the server's own files inside each root, by the
 * configured and by the real path. A `*` or `?` in such a name only makes the
 * glob deny more.
 */
async function ownFileGlobs(files: readonly string[], roots: readonly Root[]): Promise<string[]> {
  const globs: string[] = [];
  for (const file of files) {
    const real = await Deno.realPath(file).catch(() => file);
    for (const root of roots) {
      for (const [base, path] of [[root.shown, file], [root.real, real]] as const) {
        if (base !== undefined && inside(base, path) && path !== base) {
          globs.push(relative(base, path).split(sep).join("/"));
        }
      }
    }
  }
  return [...new Set(globs)];
}

/** Whether `path` is `root` or below it, compared by path segments. */
export function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (!isAbsolute(rel) && rel !== ".." && !rel.startsWith(`..${sep}`));
}
