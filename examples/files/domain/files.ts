// The read-only file operations: read, list, stat. Every path goes through
// the workspace's jail; results name paths relative to their root only.
import { type CutText, type DirEntryInfo, PolicyError, quote } from "@forge/toolkit/validate";
import type { Workspace } from "./workspace.ts";

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
  /** The visible entries, sorted by name: the first {@linkcode MAX_LIST_ENTRIES} by name. */
  entries: Entry[];
  /** Whether entries past the first {@linkcode MAX_LIST_ENTRIES} by name were left out. */
  truncated: boolean;
  /** Entries left out because no path can name them (a control character, or a name that is not UTF-8). */
  unlisted?: number;
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
 * How long one listing may take, in milliseconds: `list_dir`'s deadline. A
 * listing is one synchronous step that no timer interrupts; it looks at the
 * clock between entries and stops past this, when the call's deadline has
 * passed too, so the call is answered as timed out rather than late.
 */
export const LIST_TIME_MS = 10_000;

/**
 * Reads a UTF-8 text file, cut at `maxBytes`; the `[truncated: showed N of M bytes]` marker of a cut file comes
 * apart from its text, so that a file that ends with such a line of its own cannot pass for a cut one.
 *
 * @param ws The current workspace.
 * @param path The caller's path.
 * @param maxBytes The cap.
 * @param signal Stops the read.
 * @returns The text, and the marker when it was cut.
 * @throws {PolicyError} When refused, missing, not a regular file, or binary.
 */
export async function readText(ws: Workspace, path: string, maxBytes: number, signal?: AbortSignal): Promise<CutText> {
  const { jailPath } = await ws.resolve(path, "read");
  const text = await ws.readText(path, jailPath, { maxBytes, truncate: true, signal });
  if (text.text.includes("\0")) {
    throw new PolicyError(
      "not-a-file",
      `Cannot read ${quote(path)}: it looks binary (it has NUL bytes); only text is served`,
    );
  }
  return text;
}

/**
 * Lists a folder: the first {@linkcode MAX_LIST_ENTRIES} entries by name,
 * read from the folder the kernel confirms lies inside a root. Entries the
 * deny globs refuse (and the server's own files) are left out; links are
 * shown as `symlink` and not followed.
 *
 * @param ws The current workspace.
 * @param path The caller's path of a folder.
 * @param signal Stops the listing before it starts; its reason is thrown when it fired while the listing ran past
 * {@linkcode LIST_TIME_MS}.
 * @returns The listing.
 * @throws {PolicyError} When refused, missing or not a folder, or past {@linkcode LIST_TIME_MS}.
 */
export async function listDir(ws: Workspace, path: string, signal?: AbortSignal): Promise<Listing> {
  const dir = await ws.resolve(path, "read", "list");
  signal?.throwIfAborted();
  const listing = await ws.listDir(path, dir.jailPath, { limit: MAX_LIST_ENTRIES, signal, timeMs: LIST_TIME_MS });
  const entries = listing.entries.map((entry) => entryOf(dir.rel, entry));
  const out: Listing = { root: dir.root, path: dir.rel || ".", entries, truncated: listing.truncated };
  if (listing.unlisted > 0) out.unlisted = listing.unlisted;
  return out;
}

/**
 * Describes a path (links resolved, inside the jail), checked where it lies.
 *
 * @param ws The current workspace.
 * @param path The caller's path.
 * @returns Type, size and modification time.
 * @throws {PolicyError} When refused or missing, or a file with several hard links (unless allowed).
 */
export async function statPath(ws: Workspace, path: string): Promise<PathInfo> {
  const target = await ws.resolve(path, "read", "stat");
  const info = await ws.stat(path, target.jailPath);
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
 * The entry as results show it: its path relative to the root.
 *
 * @param dirRel The folder, relative to the root (`""` for the root).
 * @param entry The jail's entry.
 * @returns The entry.
 */
export function entryOf(dirRel: string, entry: DirEntryInfo): Entry {
  const out: Entry = {
    name: entry.name,
    path: dirRel === "" ? entry.name : `${dirRel}/${entry.name}`,
    type: entry.type,
  };
  if (entry.size !== undefined) out.size = entry.size;
  return out;
}
