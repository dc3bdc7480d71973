// Where git will find a repository's data. A `.git` file (`gitdir: …`), a
// `.git` that is a symbolic link, `commondir` and `objects/info/alternates`
// each point git at folders of their own choosing: another repository's
// history would then be shown, and a commit written into it. This reads them
// the way git does and refuses any that lands outside the allowed folders.
import { isAbsolute, join, relative, resolve } from "node:path";
import { PolicyError, quote } from "@forge/toolkit/validate";
import { hasControl } from "./_has_control.ts";

/** The most object stores (the repository's own and the alternates it names, followed) one repository may use. */
const MAX_STORES = 16;
/** The largest `.git` file, `commondir` or alternates file read. */
const MAX_POINTER_BYTES = 64 * 1024;

/** Makes the one-line refusal: `what` is not inside, or holds `link`, which leads outside. */
type Refuse = (what: string, link?: string) => PolicyError;

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
 * the way git 2.39 does for `--git-dir=<root>/.git`, and checks that each
 * one, and every symbolic link directly inside them (and inside their `info`,
 * and each store's `pack`, `info` and `info/commit-graphs`), resolves inside
 * `root` or one of `allowed`. A store with
 * `objects/info/http-alternates` is refused: those name places on the web.
 *
 * The refusal names what failed and never tells whether an outside path
 * exists: a missing target and an outside one read the same.
 *
 * @param name The repository's configured name, for messages.
 * @param root The work tree's real path.
 * @param allowed Real paths of the folders outside `root` the config allows.
 * @returns The layout.
 * @throws {PolicyError} When any part resolves outside the allowed folders (code `outside-roots`).
 *
 * @example Check a repository before running git in it
 * ```ts ignore
 * const { gitDir } = await gitLayout("app", "/srv/app");
 * ```
 */
export async function gitLayout(name: string, root: string, allowed: readonly string[] = []): Promise<GitLayout> {
  const places = [root, ...allowed];
  const where = allowed.length > 0 ? "its path or allow_outside" : "its path";
  const refuse: Refuse = (what, link) =>
    new PolicyError(
      "outside-roots",
      link === undefined
        ? `Cannot use repo ${quote(name)}: its ${what} is not a folder inside ${where}`
        : `Cannot use repo ${quote(name)}: its ${what} holds a link ${quote(link)} that leads outside ${where}`,
    );
  const inside = (path: string) =>
    places.some((place) => {
      const rel = relative(place, path);
      return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
    });
  const folder = async (path: string, what: string): Promise<string> => {
    // Lexically outside: refused without touching it, so nothing is learned about it.
    if (!inside(resolve(path))) throw refuse(what);
    const real = await Deno.realPath(path).catch(() => undefined);
    if (real === undefined || !inside(real)) throw refuse(what);
    const info = await Deno.stat(real).catch(() => undefined);
    if (!info?.isDirectory) throw refuse(what);
    return real;
  };

  const gitDir = await folder(await gitDirOf(root, refuse), "git directory");
  const pointer = await readPointer(join(gitDir, "commondir"), refuse, "common directory");
  // git strips only trailing newlines here; anything else odd is refused rather than read differently.
  const common = pointer?.replace(/\n+$/, "");
  if (common !== undefined && (common === "" || hasControl(common))) throw refuse("common directory");
  const commonDir = common === undefined ? gitDir : await folder(resolve(gitDir, common), "common directory");

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
    const alternates = await readPointer(join(store, "info", "alternates"), refuse, "alternate object store");
    for (const line of (alternates ?? "").split("\n")) {
      if (line === "" || line.startsWith("#")) continue;
      // A quoted entry is unquoted by git's C-style rules: refused rather than read differently.
      if (line.startsWith('"') || hasControl(line)) throw refuse("alternate object store");
      pending.push(await folder(isAbsolute(line) ? line : resolve(store, line), "alternate object store"));
    }
  }

  // Folder → what it is, each listed once (the common directory is usually the git directory). `info` holds
  // files git reads by name and quotes a bad line of (`grafts`), or takes patterns from (`attributes`, `exclude`).
  const linked = new Map<string, string>([
    [commonDir, "common directory"],
    [join(commonDir, "info"), "common directory"],
    [gitDir, "git directory"],
    [join(gitDir, "info"), "git directory"],
  ]);
  for (const s of stores) {
    // A commit-graph chain names its files by line, and git quotes a line that is not a hash.
    for (const dir of [s, join(s, "pack"), join(s, "info"), join(s, "info", "commit-graphs")]) {
      linked.set(dir, "object store");
    }
  }
  for (const [dir, what] of linked) {
    await assertLinksInside(dir, inside, () => refuse(what), (link) => refuse(what, link));
  }
  return { gitDir, commonDir, objectStores: stores };
}

/** Where `<root>/.git` sends git: itself (a folder or a link), or the target of its `gitdir:` line. */
async function gitDirOf(root: string, refuse: Refuse): Promise<string> {
  const dotGit = join(root, ".git");
  const info = await Deno.lstat(dotGit).catch(() => undefined);
  if (info === undefined) throw refuse("git directory");
  if (!info.isFile) return dotGit;
  const text = await readPointer(dotGit, refuse, "git directory");
  // git reads `gitdir: <path>`, strips trailing CR and LF, and resolves it from the file's folder.
  const target = text?.match(/^gitdir: (.*?)[\r\n]*$/s)?.[1];
  if (target === undefined || target === "" || hasControl(target)) throw refuse("git directory");
  return resolve(root, target);
}

/** A small pointer file's text, or undefined when there is none; a larger or unreadable one is refused. */
async function readPointer(
  path: string,
  refuse: Refuse,
  what: string,
): Promise<string | undefined> {
  const info = await Deno.stat(path).catch(() => undefined);
  if (info === undefined) {
    // A dangling link is refused: git would fail on it, and its target is not ours to probe.
    if (await Deno.lstat(path).then(() => true, () => false)) throw refuse(what);
    return undefined;
  }
  if (!info.isFile || info.size > MAX_POINTER_BYTES) throw refuse(what);
  return await Deno.readTextFile(path).catch(() => {
    throw refuse(what);
  });
}

/** Refuses a folder holding a symbolic link that resolves outside (or nowhere): git would follow it. */
async function assertLinksInside(
  dir: string,
  inside: (path: string) => boolean,
  unreadable: () => PolicyError,
  leaves: (link: string) => PolicyError,
): Promise<void> {
  try {
    for await (const entry of Deno.readDir(dir)) {
      if (!entry.isSymlink) continue;
      const real = await Deno.realPath(join(dir, entry.name)).catch(() => undefined);
      if (real === undefined || !inside(real)) throw leaves(entry.name);
    }
  } catch (err) {
    if (err instanceof PolicyError) throw err;
    if (!(err instanceof Deno.errors.NotFound)) throw unreadable();
  }
}
