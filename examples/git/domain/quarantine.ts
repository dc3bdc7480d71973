// Where a commit's `git add` writes its new objects. git writes each object to
// a temporary file first (a big file streamed into `objects/pack/tmp_pack_*`,
// a small one into `objects/xx/tmp_obj_*`) and renames it once it is whole; a
// git stopped before that (the deadline, a cancellation, the output cap)
// leaves the temporary file in the store, where no git reads it and only
// `git gc`, two weeks later, removes it. A call repeated with a deadline it
// knows will stop `git add` on a big file filled the disk. So `git add` runs
// with a private object folder inside the store (git's own push quarantine,
// receive-pack's tmp-objdir, keeps incoming objects apart the same way), its
// objects are moved into the store once git has succeeded, and the folder is
// removed whole in every case.
import { join } from "node:path";
import { hasControl } from "./_has_control.ts";

/** The start of every quarantine folder's name in an object store (git's own are `tmp_objdir-*` and `incoming-*`). */
export const QUARANTINE_PREFIX = "forge-incoming-";

/**
 * How long nothing in a quarantine folder must have changed for a commit to take it for one a dead server left
 * (killed between its `git add` and the move): a live one is written by one git run, which a deadline of at most
 * 120 s (`timeout_ms`) ends, and is then moved and removed at once.
 */
export const STALE_QUARANTINE_MS = 10 * 60_000;

/** The most entries a stale folder may hold for the sweep to look at it (a commit adds at most 1,000 paths). */
const MAX_SWEPT_ENTRIES = 100_000;

const LOOSE_FOLDER = /^[0-9a-f]{2}$/;
const LOOSE_OBJECT = /^[0-9a-f]{38}(?:[0-9a-f]{24})?$/;
const PACK_FILE = /^(pack-[0-9a-f]{40}(?:[0-9a-f]{24})?)\.(pack|rev|idx)$/;
/** git's order when it moves a quarantine in (tmp-objdir.c): a pack's data before its reverse index, the index last. */
const PACK_ORDER = ["pack", "rev", "idx"];

/** Options of {@linkcode Quarantine.sweep}. */
export interface SweepOptions {
  /**
   * How long a folder must have been left untouched.
   * @default {STALE_QUARANTINE_MS}
   */
  staleMs?: number;
  /**
   * The present, in milliseconds since the epoch.
   * @default {Date.now()}
   */
  now?: number;
}

/**
 * A private object folder (`<store>/forge-incoming-<random>`, mode 0700) in
 * a repository's object store, for a git run given it as
 * `GIT_OBJECT_DIRECTORY` with the store as its alternate: the run reads every
 * object of the store and writes new ones only here.
 *
 * @example Add a file through a quarantine
 * ```ts ignore
 * const quarantine = await Quarantine.create("/srv/app/.git/objects");
 * try {
 *   await git.run(repo, addParts, { objectDirectory: quarantine.path });
 *   await quarantine.migrate();
 * } finally {
 *   await quarantine.remove();
 * }
 * ```
 */
export class Quarantine {
  /** The object store it belongs to (real path). */
  readonly store: string;
  /** The folder. */
  readonly path: string;

  private constructor(store: string, path: string) {
    this.store = store;
    this.path = path;
  }

  /**
   * The variables of a git run that writes here: `GIT_OBJECT_DIRECTORY`
   * (new objects), `GIT_ALTERNATE_OBJECT_DIRECTORIES` (the store, whose own
   * alternates git follows from it).
   */
  get env(): Readonly<Record<string, string>> {
    return { GIT_OBJECT_DIRECTORY: this.path, GIT_ALTERNATE_OBJECT_DIRECTORIES: alternateEntry(this.store) };
  }

  /**
   * Makes a new, empty quarantine folder in `store` (same filesystem, so
   * its objects are moved in by a link).
   *
   * @param store The object store's real path.
   * @returns The quarantine.
   * @throws {Deno.errors.NotCapable} When this process may not write the store.
   */
  static async create(store: string): Promise<Quarantine> {
    return new Quarantine(store, await Deno.makeTempDir({ dir: store, prefix: QUARANTINE_PREFIX }));
  }

  /**
   * Moves the objects a successful run wrote into the store, as git moves
   * its own quarantine in: loose objects into their fanout folders, then
   * each pack's data before its index (git reads a pack only through its
   * index). An object the store holds already is kept as it is, never
   * replaced: each is linked to its name (which fails on an existing one),
   * then its quarantine name removed. Temporary files and anything that is
   * not an object or a whole pack stay, for {@linkcode Quarantine.remove}.
   *
   * @returns How many files were moved in.
   */
  async migrate(): Promise<number> {
    return await moveIn(this.path, this.store);
  }

  /** Removes the folder and everything left in it; one already gone is no error. */
  async remove(): Promise<void> {
    await Deno.remove(this.path, { recursive: true }).catch((err) => {
      if (!(err instanceof Deno.errors.NotFound)) throw err;
    });
  }

  /**
   * Clears the quarantine folders a dead server left in `store`: each whose
   * entries all changed over `staleMs` ago has its whole objects moved in
   * (the index may name them, if the server died after `git add` and before
   * the move) and is then removed with what is left (partial objects). A
   * folder changed since is another server's, at work: left alone.
   *
   * @param store The object store's real path.
   * @param options See {@linkcode SweepOptions}.
   * @returns The names of the folders cleared.
   */
  static async sweep(store: string, options: SweepOptions = {}): Promise<string[]> {
    const { staleMs = STALE_QUARANTINE_MS, now = Date.now() } = options;
    const cleared: string[] = [];
    for await (const entry of Deno.readDir(store)) {
      if (!entry.isDirectory || !entry.name.startsWith(QUARANTINE_PREFIX)) continue;
      const path = join(store, entry.name);
      const newest = await newestChange(path);
      if (newest === undefined || newest > now - staleMs) continue;
      await moveIn(path, store);
      await new Quarantine(store, path).remove();
      cleared.push(entry.name);
    }
    return cleared;
  }
}

/** Moves the whole objects of quarantine `from` into `store`; returns how many. */
async function moveIn(from: string, store: string): Promise<number> {
  let moved = 0;
  const entries = await list(from);
  for (const folder of entries.folders.filter((name) => LOOSE_FOLDER.test(name)).sort()) {
    const objects = (await list(join(from, folder))).files.filter((name) => LOOSE_OBJECT.test(name)).sort();
    if (objects.length === 0) continue;
    await makeFolder(join(store, folder));
    for (const name of objects) moved += await place(join(from, folder, name), join(store, folder, name));
  }
  if (!entries.folders.includes("pack")) return moved;
  const files = (await list(join(from, "pack"))).files;
  const packs = new Map<string, Set<string>>();
  for (const name of files) {
    const [, pack, kind] = name.match(PACK_FILE) ?? [];
    if (pack !== undefined) packs.set(pack, (packs.get(pack) ?? new Set()).add(kind));
  }
  // A pack without its data or its index (never one a finished git leaves) is not moved: it is removed with the rest.
  const whole = [...packs].filter(([, kinds]) => kinds.has("pack") && kinds.has("idx")).map(([pack]) => pack).sort();
  if (whole.length === 0) return moved;
  await makeFolder(join(store, "pack"));
  for (const kind of PACK_ORDER) {
    for (const pack of whole) {
      if (!packs.get(pack)!.has(kind)) continue;
      const name = `${pack}.${kind}`;
      moved += await place(join(from, "pack", name), join(store, "pack", name));
    }
  }
  return moved;
}

/** The regular files and real folders of a folder, by name (a link is neither); an absent folder has none. */
async function list(path: string): Promise<{ files: string[]; folders: string[] }> {
  const found = { files: [] as string[], folders: [] as string[] };
  try {
    for await (const entry of Deno.readDir(path)) {
      if (entry.isFile) found.files.push(entry.name);
      else if (entry.isDirectory) found.folders.push(entry.name);
    }
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  return found;
}

/** Makes a folder of the store as git does (mode 0777 less the umask); one that exists is no error. */
async function makeFolder(path: string): Promise<void> {
  await Deno.mkdir(path, { mode: 0o777 }).catch((err) => {
    if (!(err instanceof Deno.errors.AlreadyExists)) throw err;
  });
}

/** Links `from` to `to` unless `to` exists (kept as it is), then removes `from`; 1 when it was moved in. */
async function place(from: string, to: string): Promise<number> {
  let moved = 1;
  await Deno.link(from, to).catch((err) => {
    if (!(err instanceof Deno.errors.AlreadyExists)) throw err;
    moved = 0;
  });
  await Deno.remove(from);
  return moved;
}

/**
 * The latest modification time of a folder and everything below it (links not followed), in milliseconds; undefined
 * when it is gone, or holds too much to be a quarantine.
 */
async function newestChange(path: string): Promise<number | undefined> {
  let newest = 0;
  let seen = 0;
  const pending = [path];
  while (pending.length > 0) {
    const folder = pending.pop()!;
    const info = await Deno.lstat(folder).catch(() => undefined);
    if (info === undefined) return undefined;
    newest = Math.max(newest, info.mtime?.getTime() ?? Infinity);
    const entries: Deno.DirEntry[] = [];
    try {
      for await (const entry of Deno.readDir(folder)) {
        if (++seen > MAX_SWEPT_ENTRIES) return undefined;
        entries.push(entry);
      }
    } catch {
      return undefined;
    }
    for (const entry of entries) {
      const at = join(folder, entry.name);
      if (entry.isDirectory) {
        pending.push(at);
        continue;
      }
      const file = await Deno.lstat(at).catch(() => undefined);
      newest = Math.max(newest, file?.mtime?.getTime() ?? Infinity);
    }
  }
  return newest;
}

/**
 * A path as one entry of `GIT_ALTERNATE_OBJECT_DIRECTORIES`, a list split at `:`: as it is, or C-quoted (git reads
 * an entry that starts with `"` by C's rules) when it holds a `:`, a quote, a backslash or a control character.
 */
function alternateEntry(path: string): string {
  if (!/[:"\\]/.test(path) && !hasControl(path)) return path;
  let quoted = "";
  for (const c of path) {
    const code = c.charCodeAt(0);
    if (c === '"' || c === "\\") quoted += `\\${c}`;
    else if (code < 0x20 || code === 0x7f) quoted += `\\${code.toString(8).padStart(3, "0")}`;
    else quoted += c;
  }
  return `"${quoted}"`;
}
