// Where git will find a repository's data. A `.git` file (`gitdir: …`), a
// `.git` that is a symbolic link, `commondir` and `objects/info/alternates`
// each point git at folders of their own choosing: another repository's
// history would then be shown, and a commit written into it. This reads them
// the way git does and refuses any that lands outside the allowed folders.
// A link anywhere below them does the same (`refs/heads`, one loose object,
// `logs/HEAD`, which a commit appends to), so every folder is walked whole.
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import { PolicyError, quote } from "@forge/toolkit/validate";
import { hasControl } from "./_has_control.ts";
import { notUtf8 } from "./_undecodable.ts";
import type { GitDataCache } from "./git_data_cache.ts";

/** The most object stores (the repository's own and the alternates it names, followed) one repository may use. */
const MAX_STORES = 16;
/** The largest `.git` file, `commondir` or alternates file read. */
const MAX_POINTER_BYTES = 64 * 1024;

/**
 * The most entries (files, folders, links) one check of a repository's git
 * data looks at, over its git directory, common directory and object stores:
 * past it the repository is refused. A packed repository holds a few hundred;
 * each loose object is one (git's own `gc --auto` packs them past 6,700).
 */
export const MAX_GIT_DATA_ENTRIES = 100_000;
/** The deepest folder the check goes into, counted from the git directory, common directory or store. */
export const MAX_GIT_DATA_DEPTH = 64;
/** The largest folder (its own size, which grows with its entries) the check reads: 8 MiB is over 100,000 loose objects. */
const MAX_FOLDER_BYTES = 8 * 1024 * 1024;
/** How many `lstat`s run at once: of one folder's files (for hard links), or of the folders next in the walk. */
const LSTATS_AT_ONCE = 64;

/** Makes the one-line refusal: `what` is not inside, or holds `link`, which leads outside. */
type Refuse = (what: string, link?: string) => PolicyError;
/** Makes the one-line refusal of a pointer to `what` whose bytes are not UTF-8. */
type RefuseNotUtf8 = (what: string) => PolicyError;

/** How {@linkcode gitLayout} checks the files of the git data. */
export interface GitDataOptions {
  /**
   * Whether a file in the git data may have more than one name (the
   * config's `allow_hard_links`): off, such a file is refused, since its
   * other name may be another repository's object or any file the user can
   * read or write.
   * @default {false}
   */
  allowHardLinks?: boolean;
  /**
   * The most entries looked at.
   * @default {MAX_GIT_DATA_ENTRIES}
   */
  maxEntries?: number;
  /**
   * What earlier checks found, by folder: a folder unchanged since is not
   * read again (its links are still followed). Without one, every folder is.
   */
  cache?: GitDataCache;
  /** Ends the check (the call's deadline or cancellation): it throws the signal's reason. */
  signal?: AbortSignal;
}

/** The folders git uses for one repository, as real paths. */
export interface GitLayout {
  /** The git directory (what `--git-dir` names). */
  readonly gitDir: string;
  /** The common directory (objects, refs, config): the git directory unless `commondir` says otherwise. */
  readonly commonDir: string;
  /** The repository's own object store, then every alternate it names. */
  readonly objectStores: readonly string[];
}

/**
 * Finds a repository's git directory, common directory and object stores
 * the way git 2.39 does for `--git-dir=<root>/.git`, checks that each one
 * resolves inside `root` or one of `allowed`, and walks each whole: every
 * symbolic link at any depth (`refs/heads`, a loose object in a real fanout
 * folder, `logs/HEAD`) must resolve there too, a linked folder is walked as
 * well, and unless `options.allowHardLinks` every file (and every link's
 * file) must have one name. A store with
 * `objects/info/http-alternates` is refused: those name places on the web.
 *
 * The walk looks at names and `lstat` only: it opens no file, so a FIFO or
 * socket in the git data cannot hold it up (git's run has its deadline).
 * It stops, refusing, past `options.maxEntries` entries, folders nested
 * deeper than {@linkcode MAX_GIT_DATA_DEPTH} or a folder of over 8 MiB.
 *
 * The refusal names what failed and never tells whether an outside path
 * exists: a missing target and an outside one read the same.
 *
 * @param name The repository's configured name, for messages.
 * @param root The work tree's real path.
 * @param allowed Real paths of the folders outside `root` the config allows.
 * @param options The hard-link policy, the walk's limit, its cache and its signal.
 * @returns The layout.
 * @throws {PolicyError} When any part, or a link inside, resolves outside the allowed folders (code `outside-roots`).
 * @throws {PolicyError} When a file of the git data has several names and hard links are not allowed (code `not-a-file`).
 * @throws {PolicyError} When the git data is too large or too deep to walk (code `too-large`).
 * @throws {PolicyError} When a `.git` file, `commondir` or alternates file is not UTF-8 or holds U+FFFD (code `invalid-input`).
 *
 * @example Check a repository before running git in it
 * ```ts ignore
 * const { gitDir } = await gitLayout("app", "/srv/app");
 * ```
 */
export async function gitLayout(
  name: string,
  root: string,
  allowed: readonly string[] = [],
  options: GitDataOptions = {},
): Promise<GitLayout> {
  const places = [root, ...allowed];
  const where = allowed.length > 0 ? "its path or allow_outside" : "its path";
  const refuse: Refuse = (what, link) =>
    new PolicyError(
      "outside-roots",
      link === undefined
        ? `Cannot use repo ${quote(name)}: its ${what} is not a folder inside ${where}`
        : `Cannot use repo ${quote(name)}: its ${what} holds a link ${quote(link)} that leads outside ${where}`,
    );
  const refuseNotUtf8: RefuseNotUtf8 = (what) =>
    new PolicyError(
      "invalid-input",
      `Cannot use repo ${quote(name)}: the path to its ${what} is not UTF-8 (or holds U+FFFD), ` +
        "which this server cannot check",
    );
  const inside = (path: string) =>
    places.some((place) => {
      const rel = relative(place, path);
      return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
    });
  // `path` is spelled as git spells it: its real path is what git opens, whatever its lexical form says.
  const folder = async (path: string, what: string): Promise<string> => {
    // Lexically outside: refused without touching it, so nothing is learned about it.
    if (!inside(resolve(path))) throw refuse(what);
    const real = await realPathAsGit(path).catch(() => undefined);
    if (real === undefined || !inside(real)) throw refuse(what);
    const info = await Deno.stat(real).catch(() => undefined);
    if (!info?.isDirectory) throw refuse(what);
    return real;
  };

  const gitDir = await folder(await gitDirOf(root, refuse, refuseNotUtf8), "git directory");
  const pointer = await readPointer(join(gitDir, "commondir"), "common directory", refuse, refuseNotUtf8);
  // git strips only trailing newlines here; anything else odd is refused rather than read differently.
  const common = pointer?.replace(/\n+$/, "");
  if (common !== undefined && (common === "" || hasControl(common))) throw refuse("common directory");
  // git takes the real path of `<git dir>/<commondir>` as written: a link in it is followed before a `..` after it
  // (`../lnk/../x` is `x` beside the link's target), where a lexical `resolve` would drop `lnk/..` and check another
  // folder (a red team's finding).
  const commonDir = common === undefined ? gitDir : await folder(under(gitDir, common), "common directory");

  const stores: string[] = [];
  const pending = [await folder(join(commonDir, "objects"), "object store")];
  while (pending.length > 0) {
    const store = pending.shift()!;
    if (stores.includes(store)) continue;
    if (stores.length === MAX_STORES) throw refuse("chain of alternate object stores");
    stores.push(store);
    if (await Deno.lstat(join(store, "info", "http-alternates")).then(() => true, () => false)) {
      throw new PolicyError("outside-roots", `Cannot use repo ${quote(name)}: its object store names http-alternates`);
    }
    const alternates = await readPointer(
      join(store, "info", "alternates"),
      "alternate object store",
      refuse,
      refuseNotUtf8,
    );
    for (const line of (alternates ?? "").split("\n")) {
      if (line === "" || line.startsWith("#")) continue;
      // A quoted entry is unquoted by git's C-style rules: refused rather than read differently.
      if (line.startsWith('"') || hasControl(line)) throw refuse("alternate object store");
      // git 2.38 and later take the real path of `<store>/<line>` too, following links before `..`.
      pending.push(await folder(under(store, line), "alternate object store"));
    }
  }

  // Each folder git reads from, walked whole: the git directory last, so that it names what it shares with the
  // common directory (usually all). Each walk leaves out the others' folders (the store inside the common directory).
  const walks = new Map<string, string>(stores.map((store) => [store, "object store"]));
  walks.set(commonDir, "common directory");
  walks.set(gitDir, "git directory");
  await assertGitData(walks, inside, refuse, { name, ...options });
  return { gitDir, commonDir, objectStores: stores };
}

/** Where `<root>/.git` sends git: itself (a folder or a link), or the target of its `gitdir:` line. */
async function gitDirOf(root: string, refuse: Refuse, refuseNotUtf8: RefuseNotUtf8): Promise<string> {
  const dotGit = join(root, ".git");
  const info = await Deno.lstat(dotGit).catch(() => undefined);
  if (info === undefined) throw refuse("git directory");
  if (!info.isFile) return dotGit;
  const text = await readPointer(dotGit, "git directory", refuse, refuseNotUtf8);
  // git reads `gitdir: <path>`, strips trailing CR and LF, and takes the real path of `<its folder>/<path>`.
  const target = text?.match(/^gitdir: (.*?)[\r\n]*$/s)?.[1];
  if (target === undefined || target === "" || hasControl(target)) throw refuse("git directory");
  return under(root, target);
}

/**
 * The real path of `path` (absolute) the way `realpath` and git take it: a
 * link is followed before the `..` after it. `Deno.realPath` alone will not
 * do: run with permissions, it removes `lnk/..` from its argument first.
 */
async function realPathAsGit(path: string): Promise<string> {
  let at = "/";
  for (const part of path.split("/")) {
    if (part === "" || part === ".") continue;
    // What is reached so far holds no `..`: its real path is the folder whose parent git goes to.
    at = part === ".." ? dirname(await Deno.realPath(at)) : join(at, part);
  }
  return await Deno.realPath(at);
}

/**
 * `path` as git spells it before taking its real path: as is when absolute,
 * else `<base>/<path>`, with no `..` removed, so that a link is followed
 * before the `..` after it, as git (and `realpath`) does.
 */
function under(base: string, path: string): string {
  return isAbsolute(path) ? path : `${base}/${path}`;
}

/**
 * A small pointer file's text, or undefined when there is none; a larger or
 * unreadable one is refused, and so is one whose bytes are not UTF-8: git
 * opens the bytes as written, where a lenient decoding (U+FFFD) would have
 * this check resolve and walk another folder.
 */
async function readPointer(
  path: string,
  what: string,
  refuse: Refuse,
  refuseNotUtf8: RefuseNotUtf8,
): Promise<string | undefined> {
  const info = await Deno.stat(path).catch(() => undefined);
  if (info === undefined) {
    // A dangling link is refused: git would fail on it, and its target is not ours to probe.
    if (await Deno.lstat(path).then(() => true, () => false)) throw refuse(what);
    return undefined;
  }
  if (!info.isFile || info.size > MAX_POINTER_BYTES) throw refuse(what);
  const bytes = await Deno.readFile(path).catch(() => {
    throw refuse(what);
  });
  let text: string;
  try {
    // A leading BOM is kept: git reads those bytes as part of the path.
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw refuseNotUtf8(what);
  }
  // A U+FFFD written as such cannot be told apart from one a decoder made: refused alike.
  if (notUtf8(text)) throw refuseNotUtf8(what);
  return text;
}

/** One folder to walk: its real path, how a message shows it, what it is part of, how deep. */
interface Folder {
  readonly path: string;
  readonly shown: string;
  readonly what: string;
  readonly depth: number;
}

/**
 * Walks each folder of `walks` (real path → what it is), each at most once,
 * and refuses a link that resolves outside (or nowhere), a file with several
 * names unless allowed, and a walk past its limits.
 */
async function assertGitData(
  walks: ReadonlyMap<string, string>,
  inside: (path: string) => boolean,
  refuse: Refuse,
  options: GitDataOptions & { name: string },
): Promise<void> {
  const { name, allowHardLinks = false, maxEntries = MAX_GIT_DATA_ENTRIES, cache, signal } = options;
  const stop = (why: string) =>
    new PolicyError("too-large", `Cannot use repo ${quote(name)}: its ${why}, more than this server checks for links`);
  const tooMany = () => stop(`git data holds over ${maxEntries} files and folders`);
  const named = (what: string, shown: string, info: Deno.FileInfo) =>
    new PolicyError(
      "not-a-file",
      `Cannot use repo ${quote(name)}: its ${what} holds a file ${quote(shown)} with ${info.nlink} hard links, ` +
        "and this server reads only git data whose files have one name (allow_hard_links is off)",
    );
  const several = (info: Deno.FileInfo) => !allowHardLinks && info.isFile && info.nlink !== null && info.nlink > 1;
  // Every folder walked or queued, by real path: the others' folders are left to their own walk, and a folder
  // reached again through a link is not walked twice.
  const seen = new Set(walks.keys());
  const pending: Folder[] = [...walks].map(([path, what]) => ({ path, shown: "", what, depth: 0 }));
  let entries = 0;
  while (pending.length > 0) {
    signal?.throwIfAborted();
    // A wave of folders looked at at once: with a cache, that is all a walk does for a folder that has not changed.
    // Taken before the folders are, each one's change time is compared with it.
    const started = Date.now();
    const wave = pending.splice(-LSTATS_AT_ONCE);
    const looked = await Promise.all(wave.map((folder) => Deno.lstat(folder.path).catch((err: Error) => err)));
    for (const [i, { path, shown, what, depth }] of wave.entries()) {
      const below = (entry: string) => shown === "" ? entry : `${shown}/${entry}`;
      if (depth > MAX_GIT_DATA_DEPTH) throw stop(`${what} holds folders nested over ${MAX_GIT_DATA_DEPTH} deep`);
      // The folders below are named by their path from `what`; the folder itself, as the refusals above name it.
      const folder = shown === "" ? `${what}` : `${what} holds a folder ${quote(shown)} that`;
      const cannotRead = () =>
        shown === ""
          ? refuse(what)
          : new PolicyError("outside-roots", `Cannot use repo ${quote(name)}: its ${folder} cannot be read`);
      const info = looked[i];
      // Gone since it was listed (git removes an emptied fanout folder): nothing left to check.
      if (info instanceof Deno.errors.NotFound) continue;
      if (info instanceof Error) throw cannotRead();
      let found = cache?.get(path, info, !allowHardLinks);
      const fresh = found === undefined;
      if (found === undefined) {
        // A folder's own size grows with its entries: one too large for a walk is refused before it is read whole.
        if (info.size > MAX_FOLDER_BYTES) throw stop(`${folder} lists over 8 MiB of names`);
        const refuseNotUtf8 = (entry: string) =>
          new PolicyError(
            "invalid-input",
            `Cannot use repo ${quote(name)}: its ${what} holds a name ${
              quote(below(entry))
            } that is not UTF-8 (or holds U+FFFD), which this server cannot check for links`,
          );
        const read = await readFolder(path, entries, maxEntries, tooMany, cannotRead, refuseNotUtf8);
        if (read === undefined) continue;
        if (!allowHardLinks) {
          const file = await severalNames(path, read.files, several);
          if (file !== undefined) throw named(what, below(file.name), file.info);
        }
        const { folders, links, files } = read;
        found = { folders, links, entries: folders.length + links.length + files.length, singleNames: !allowHardLinks };
      }
      entries += found.entries;
      if (entries > maxEntries) throw tooMany();
      for (const entry of found.links) {
        const real = await Deno.realPath(join(path, entry)).catch(() => "");
        const target = real !== "" && inside(real) ? await Deno.stat(real).catch(() => undefined) : undefined;
        if (target === undefined) throw refuse(what, below(entry));
        if (several(target)) throw named(what, below(entry), target);
        if (target.isDirectory && !seen.has(real)) {
          seen.add(real);
          pending.push({ path: real, shown: below(entry), what, depth: depth + 1 });
        }
      }
      for (const entry of found.folders) {
        const child = join(path, entry);
        if (seen.has(child)) continue;
        seen.add(child);
        pending.push({ path: child, shown: below(entry), what, depth: depth + 1 });
      }
      if (fresh) cache?.keep(path, info, started, found);
    }
  }
}

/** A folder's entries by kind, or undefined when it is gone; stops at the limit, counting from `counted`. */
async function readFolder(
  path: string,
  counted: number,
  maxEntries: number,
  tooMany: () => PolicyError,
  cannotRead: () => PolicyError,
  refuseNotUtf8: (entry: string) => PolicyError,
): Promise<{ folders: string[]; links: string[]; files: string[] } | undefined> {
  const read = { folders: [] as string[], links: [] as string[], files: [] as string[] };
  try {
    for await (const entry of Deno.readDir(path)) {
      if (++counted > maxEntries) throw tooMany();
      // What it holds could not be looked at: the git data is refused rather than the entry skipped.
      if (notUtf8(entry.name)) throw refuseNotUtf8(entry.name);
      if (entry.isSymlink) read.links.push(entry.name);
      else if (entry.isDirectory) read.folders.push(entry.name);
      else if (entry.isFile) read.files.push(entry.name);
      // Anything else (a FIFO, a socket) is never opened here.
    }
  } catch (err) {
    if (err instanceof PolicyError) throw err;
    // Gone since it was listed (git removes an emptied fanout folder): nothing left to check.
    if (err instanceof Deno.errors.NotFound) return undefined;
    throw cannotRead();
  }
  return read;
}

/** The first of a folder's `files` that `several` says has several names, looked at a batch at a time. */
async function severalNames(
  path: string,
  files: readonly string[],
  several: (info: Deno.FileInfo) => boolean,
): Promise<{ name: string; info: Deno.FileInfo } | undefined> {
  for (let i = 0; i < files.length; i += LSTATS_AT_ONCE) {
    const batch = files.slice(i, i + LSTATS_AT_ONCE);
    const infos = await Promise.all(batch.map((entry) => Deno.lstat(join(path, entry)).catch(() => undefined)));
    const at = infos.findIndex((info) => info !== undefined && several(info));
    if (at !== -1) return { name: batch[at], info: infos[at]! };
  }
  return undefined;
}
