// Reading a folder the jail resolved, anchored on it (see _anchored.ts): the
// names come from the folder confirmed to be the one resolved, and each
// kept entry is described by lstat there, never by following a link. Deno
// reads a folder's names all at once (readDirSync and node's opendir alike),
// holding them in memory and the thread until the last: a folder whose entry
// table is larger than MAX_FOLDER_BYTES on disk is refused before it is read.
// The names read are sorted by code unit and judged in that order until
// `limit` are visible and one more says the listing was cut: names past
// those are never matched against the deny globs nor looked up, so the work
// per listing beyond reading and sorting its names is bounded by `limit`.

import { resolve } from "node:path";
import { anchoredIn } from "./_anchored.ts";
import { type CheckContext, sameEntry } from "./_checked_file.ts";
import { PolicyError } from "./policy_error.ts";
import { hasUnshownCharacter, refusalFor } from "./_caller_path.ts";
import { quote } from "../internal/quote.ts";
import type { DirEntryInfo, DirListing } from "./dir_listing.ts";

/**
 * The largest entry table a folder may have on disk to be listed: 2 MiB, some
 * 60,000 entries of ordinary names on ext4 (a folder's size there grows with
 * its entries and never shrinks). 500,000 entries took Deno 9–12 s and ~450 MB
 * to read at once.
 */
export const MAX_FOLDER_BYTES = 2 * 1024 * 1024;

/** Which names a listing keeps and which links it may show. */
export interface ListOptions {
  /** How many names at the most; the first ones by code-unit order are kept. */
  limit: number;
  /** Whether a name may be listed at all. */
  visible: (name: string) => boolean;
  /** Whether a link's target (resolved lexically) may be shown. */
  linkVisible: (target: string) => boolean;
  /**
   * Called between entries: throws to stop a listing past its time (it is one
   * synchronous step, which no timer can interrupt).
   */
  checkTime?: () => void;
}

/** How a listing reaches its folder, whichever way the jail anchored it. */
export interface ListedFolder {
  /** A path Deno reads the folder through. */
  dir: string;
  /** A path Deno reaches `name` in the folder through. */
  at(name: string): string;
  /** The folder's real path: a link's relative target resolves against it. */
  realDir: string;
  /** The entry's lstat, or undefined once it is gone; a refusal (the folder moved) is thrown. */
  look(name: string): Deno.FileInfo | undefined;
}

/** Lists the folder at `real` (refusals name `path`), keeping names `visible` accepts. */
export function listChecked(real: string, path: string, context: CheckContext, options: ListOptions): DirListing {
  return anchoredIn(real, { action: "list", path }, (anchor) => {
    const listing = listIn(
      {
        dir: anchor.at("."),
        at: (name) => anchor.at(name),
        realDir: anchor.dir,
        look(name) {
          try {
            // Two looks with the folder checked between: a name that a swap slipped into the listing must
            // also be found, twice the same, in the folder. Checked by identity, one stat, and by its real
            // path once before and once after the whole listing: a real path costs the square of the
            // folder's depth, too much to pay once per entry.
            const info = Deno.lstatSync(anchor.at(name));
            anchor.same();
            return sameEntry(info, Deno.lstatSync(anchor.at(name))) ? info : undefined;
          } catch (err) {
            if (err instanceof PolicyError) throw err;
            return undefined;
          }
        },
      },
      path,
      context,
      options,
    );
    anchor.still();
    return listing;
  });
}

/**
 * Reads `folder`, keeps the first `options.limit` visible names and
 * describes each by lstat where it is, never by following a link; an entry
 * removed since the folder was read is no longer there to show.
 */
export function listIn(folder: ListedFolder, path: string, context: CheckContext, options: ListOptions): DirListing {
  const checkTime = options.checkTime ?? (() => {});
  const names: string[] = [];
  let unlisted = 0;
  try {
    const size = Deno.statSync(folder.dir).size;
    if (size > MAX_FOLDER_BYTES) {
      throw new PolicyError(
        "too-large",
        `Cannot list ${quote(path)}: the folder's entries take ${size} bytes on disk, over the ` +
          `${MAX_FOLDER_BYTES} a listing reads (reading them holds every name at once); list or search a folder inside it`,
      );
    }
    // Deno reads a name that is not UTF-8 with U+FFFD in place of its bytes: such a name reaches nothing, while one
    // that holds U+FFFD itself is a name like any other. Told apart below by looking the name up (Deno reads no
    // folder as bytes, node:fs's "buffer" names included), for the first `limit` of them by name only: looked up
    // each, 20,000 names that are not UTF-8 made a listing 0.4 s instead of 0.04. The rest count as unlisted.
    const replaced = new Map<string, number>();
    for (const entry of Deno.readDirSync(folder.dir)) {
      checkTime();
      if (hasUnshownCharacter(entry.name)) unlisted++;
      else if (entry.name.includes("\ufffd")) replaced.set(entry.name, (replaced.get(entry.name) ?? 0) + 1);
      else names.push(entry.name);
    }
    const looked = new FirstByName(options.limit);
    let once = 0;
    for (const [name, count] of replaced) {
      // Read twice: one of the two was other bytes, and the name cannot tell which.
      if (count > 1) {
        unlisted += count;
        continue;
      }
      once++;
      looked.offer(name);
    }
    const candidates = looked.sorted();
    unlisted += once - candidates.length;
    for (const name of candidates) {
      checkTime();
      // Found where it is named: the name itself.
      if (folder.look(name) === undefined) unlisted++;
      else names.push(name);
    }
  } catch (err) {
    refusalFor(err, "list", path);
  }
  // Strings sort by code unit: the order FirstByName keeps.
  names.sort();
  const kept: string[] = [];
  let truncated = false;
  for (const name of names) {
    checkTime();
    if (!options.visible(name)) continue;
    if (kept.length === options.limit) {
      truncated = true;
      break;
    }
    kept.push(name);
  }
  const entries: DirEntryInfo[] = [];
  for (const name of kept) {
    checkTime();
    const info = folder.look(name);
    if (info === undefined) continue;
    if (info.isSymlink && !linkShown(folder.at(name), folder.realDir, options.linkVisible)) continue;
    const type = info.isSymlink ? "symlink" : info.isFile ? "file" : info.isDirectory ? "dir" : "other";
    const entry: DirEntryInfo = { name, type };
    if (info.isFile && (context.allowHardLinks || info.nlink === null || info.nlink <= 1)) entry.size = info.size;
    entries.push(entry);
  }
  return { entries, truncated, unlisted };
}

/** Whether a link may be shown: one that names a denied path (lexically) stays hidden like its target. */
export function linkShown(link: string, dir: string, linkVisible: (target: string) => boolean): boolean {
  try {
    return linkVisible(resolve(dir, Deno.readLinkSync(link)));
  } catch {
    return true;
  }
}

/** Keeps the `limit` smallest names seen, in a max-heap: O(limit) memory, O(n log limit) time. */
export class FirstByName {
  readonly #limit: number;
  readonly #heap: string[] = [];

  constructor(limit: number) {
    this.#limit = limit;
  }

  /** Offers a name: kept when fewer than `limit` are kept or it sorts before the largest kept. */
  offer(name: string): void {
    const heap = this.#heap;
    if (heap.length < this.#limit) {
      heap.push(name);
      this.#up(heap.length - 1);
      return;
    }
    if (heap.length === 0 || name >= heap[0]) return;
    heap[0] = name;
    this.#down(0);
  }

  /** The kept names, smallest first. */
  sorted(): string[] {
    return [...this.#heap].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  }

  #up(i: number): void {
    const heap = this.#heap;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (heap[parent] >= heap[i]) return;
      [heap[parent], heap[i]] = [heap[i], heap[parent]];
      i = parent;
    }
  }

  #down(i: number): void {
    const heap = this.#heap;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let top = i;
      if (left < heap.length && heap[left] > heap[top]) top = left;
      if (right < heap.length && heap[right] > heap[top]) top = right;
      if (top === i) return;
      [heap[top], heap[i]] = [heap[i], heap[top]];
      i = top;
    }
  }
}
