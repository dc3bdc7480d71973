// The read-only file operations: read, list, stat. Every path goes through
// the workspace's jail; results name paths relative to their root only.
import { PolicyError } from "@forge/toolkit/validate";
import { quote } from "./_quote.ts";
import { Workspace } from "./workspace.ts";

/** What kind of thing an entry is. Symbolic links are reported, never followed. */
export type EntryType = "file" | "dir" | "symlink" | "other";

/** One entry of a folder listing. */
export interface Entry {
  /** The entry's name. */
  name: string;
  /** The path relative to the root, `/`-separated. */
  path: string;
  /** What it is (a link is `symlink`, whatever it points at). */
  type: EntryType;
  /** The size in bytes, for files. */
  size?: number;
}

/** A folder listing. */
export interface Listing {
  /** The root the folder lies in, as configured. */
  root: string;
  /** The folder relative to the root (`.` for the root itself). */
  path: string;
  /** The visible entries, sorted by name. */
  entries: Entry[];
  /** Whether entries were left out because the folder has more than the cap. */
  truncated: boolean;
}

/** What `stat` tells about a path. */
export interface PathInfo {
  /** The root the path lies in, as configured. */
  root: string;
  /** The path relative to the root (`.` for the root itself), links resolved. */
  path: string;
  /** What it is. */
  type: Exclude<EntryType, "symlink">;
  /** The size in bytes. */
  size: number;
  /** The last modification, ISO 8601 UTC; absent when the system does not record it. */
  modified?: string;
}

/** The most entries one listing returns. */
export const MAX_LIST_ENTRIES = 1000;

/**
 * Reads a UTF-8 text file, cut at `maxBytes` with a `[truncated: showed N of M bytes]` marker.
 *
 * @param ws The current workspace.
 * @param path The caller's path.
 * @param maxBytes The cap.
 * @param signal Stops the read.
 * @returns The text.
 * @throws {PolicyError} When refused, missing, not a regular file, or binary.
 */
export async function readText(ws: Workspace, path: string, maxBytes: number, signal?: AbortSignal): Promise<string> {
  const { jailPath } = await ws.resolve(path, "read");
  const text = await ws.jail.readTextFile(jailPath, { maxBytes, truncate: true, signal });
  if (text.includes("\0")) {
    throw new PolicyError(
      "not-a-file",
      `Cannot read ${quote(path)}: it looks binary (it has NUL bytes); only text is served`,
    );
  }
  return text;
}

/**
 * Lists a folder: entries the deny globs refuse (and the server's own files)
 * are left out, links are shown as `symlink` and not followed.
 *
 * @param ws The current workspace.
 * @param path The caller's path of a folder.
 * @param signal Stops the listing.
 * @returns The listing.
 * @throws {PolicyError} When refused, missing or not a folder.
 */
export async function listDir(ws: Workspace, path: string, signal?: AbortSignal): Promise<Listing> {
  const dir = await ws.resolve(path, "read");
  await requireFolder(dir.real, "list", path);
  const names: Deno.DirEntry[] = [];
  let truncated = false;
  for await (const entry of Deno.readDir(dir.real)) {
    signal?.throwIfAborted();
    if (names.length === MAX_LIST_ENTRIES) {
      truncated = true;
      break;
    }
    names.push(entry);
  }
  names.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const entries: Entry[] = [];
  for (const entry of names) {
    signal?.throwIfAborted();
    const shown = await visibleEntry(ws, dir.root, dir.rel, entry);
    if (shown !== undefined) entries.push(shown);
  }
  return { root: dir.root, path: dir.rel || ".", entries, truncated };
}

/**
 * Describes a path (links resolved, inside the jail).
 *
 * @param ws The current workspace.
 * @param path The caller's path.
 * @returns Type, size and modification time.
 * @throws {PolicyError} When refused or missing.
 */
export async function statPath(ws: Workspace, path: string): Promise<PathInfo> {
  const target = await ws.resolve(path, "read");
  const info = await Deno.stat(target.real).catch((err) => refused(err, "stat", path));
  const out: PathInfo = {
    root: target.root,
    path: target.rel || ".",
    type: info.isFile ? "file" : info.isDirectory ? "dir" : "other",
    size: info.size,
  };
  if (info.mtime !== null) out.modified = info.mtime.toISOString();
  return out;
}

/**
 * The entry as a listing shows it, or undefined when it must stay hidden
 * (denied by a glob, or one of the server's own files). The jail checks it
 * by its path under the configured root; a link is reported without being
 * followed, even when it leads outside (its target is never shown).
 *
 * @param ws The current workspace.
 * @param root The root, as configured.
 * @param dirRel The folder, relative to the root.
 * @param entry The entry from `Deno.readDir`.
 * @returns The entry, or undefined.
 */
export async function visibleEntry(
  ws: Workspace,
  root: string,
  dirRel: string,
  entry: Deno.DirEntry,
): Promise<Entry | undefined> {
  const rel = dirRel === "" ? entry.name : `${dirRel}/${entry.name}`;
  let real: string | undefined;
  try {
    real = await ws.jail.resolveRead(Workspace.under(root, rel));
  } catch (err) {
    if (!(err instanceof PolicyError)) throw err;
    if (err.code === "denied-by-glob") return undefined;
    // An escaping or dangling link is still a name inside the root: show it, never its target.
    if (!entry.isSymlink) return undefined;
  }
  const type: EntryType = entry.isSymlink ? "symlink" : entry.isFile ? "file" : entry.isDirectory ? "dir" : "other";
  const out: Entry = { name: entry.name, path: rel, type };
  if (type === "file" && real !== undefined) {
    const info = await Deno.lstat(real).catch(() => undefined);
    if (info?.isFile) out.size = info.size;
  }
  return out;
}

/** Refuses unless `real` is a folder. */
export async function requireFolder(real: string, action: string, path: string): Promise<void> {
  const info = await Deno.stat(real).catch((err) => refused(err, action, path));
  if (!info.isDirectory) {
    throw new PolicyError("not-a-file", `Cannot ${action} ${quote(path)}: it is a file, not a folder`);
  }
}

function refused(err: unknown, action: string, path: string): never {
  if (err instanceof Deno.errors.NotFound) {
    throw new PolicyError("not-found", `Cannot ${action} ${quote(path)}: no such file or folder`, { cause: err });
  }
  throw err;
}
