// A bounded search for names under one folder: breadth first, never through
// a symbolic link, never into a folder the deny globs refuse, and cut short
// by depth, result count, entries visited and time, saying which.
import { PolicyError } from "@forge/toolkit/validate";
import { compileNamePattern } from "./_name_pattern.ts";
import { type Entry, entryOf } from "./files.ts";
import { Workspace } from "./workspace.ts";

/**
 * Which bound cut a search short, or what it could not look at: `unlisted`,
 * entries whose names no path can hold (a control character, bytes that are
 * not UTF-8), neither matched nor searched below; `unreadable`, a folder
 * below the start folder that could not be listed (more than 256 levels below
 * its root, not readable, moved or gone while the search ran).
 */
export type SearchLimit =
  | "max_depth"
  | "max_results"
  | "max_entries"
  | "time"
  | "folder_size"
  | "unlisted"
  | "unreadable";

/** Every {@linkcode SearchLimit}, in the order the tool's schema lists them. */
export const SEARCH_LIMITS: readonly SearchLimit[] = Object.freeze([
  "max_depth",
  "max_results",
  "max_entries",
  "time",
  "folder_size",
  "unlisted",
  "unreadable",
]);

/** Bounds of {@linkcode searchFiles}. */
export interface SearchOptions {
  /**
   * How many folder levels below the start folder are searched (0: only its own entries).
   * @default {10}
   */
  maxDepth?: number;
  /**
   * The most matches returned.
   * @default {200}
   */
  maxResults?: number;
  /**
   * The most entries looked at.
   * @default {20000}
   */
  maxEntries?: number;
  /**
   * The time budget in milliseconds; the search returns what it found so far.
   * @default {3000}
   */
  timeMs?: number;
  /** Aborts the search (the call's deadline or cancellation): it rejects. */
  signal?: AbortSignal;
}

/** What a search found. */
export interface SearchResult {
  /** The root the start folder lies in, as configured. */
  root: string;
  /** The start folder, relative to the root (`.` for the root itself). */
  path: string;
  /** The pattern searched for. */
  pattern: string;
  /** The matches, shallowest first, by name within a folder; paths relative to the root. */
  matches: Entry[];
  /** Whether the search was cut short. */
  truncated: boolean;
  /** The bounds that cut it short. */
  limits_hit: SearchLimit[];
}

/** The default bounds, also the most a caller can ask for. */
export const SEARCH_DEFAULTS: Readonly<Required<Omit<SearchOptions, "signal">>> = Object.freeze({
  maxDepth: 10,
  maxResults: 200,
  maxEntries: 20_000,
  timeMs: 3_000,
});

/**
 * Finds entries whose name matches `pattern` under a folder. The pattern is a
 * glob over the name when it has `*` or `?` (`*.md`, `report-??.csv`), else a
 * substring of the name; case is ignored either way.
 *
 * @param ws The current workspace.
 * @param path The caller's path of the start folder.
 * @param pattern The name pattern.
 * @param options The bounds and the call's signal.
 * @returns The matches and whether the search was cut short.
 * @throws {PolicyError} When the folder is refused or the pattern is invalid.
 */
export async function searchFiles(
  ws: Workspace,
  path: string,
  pattern: string,
  options: SearchOptions = {},
): Promise<SearchResult> {
  const matches = compileNamePattern(pattern);
  const bounds = { ...SEARCH_DEFAULTS, ...withoutUndefined(options) };
  const deadline = performance.now() + bounds.timeMs;
  const start = await ws.resolve(path, "read");
  const found: Entry[] = [];
  const hit = new Set<SearchLimit>();
  let visited = 0;
  let level: { rel: string; jailPath: string }[] = [{ rel: start.rel, jailPath: start.jailPath }];
  walk: for (let depth = 0; level.length > 0; depth++) {
    const next: { rel: string; jailPath: string }[] = [];
    for (const folder of level) {
      options.signal?.throwIfAborted();
      if (performance.now() >= deadline) {
        hit.add("time");
        break walk;
      }
      // One past the budget is enough to know it is exceeded; a huge folder keeps only that many names.
      const limit = bounds.maxEntries - visited + 1;
      let entries;
      try {
        // A listing is one synchronous step that looks at the clock between entries: it gets the time left, or one
        // folder of 20,001 names runs past the bound.
        const timeMs = Math.max(0, deadline - performance.now());
        const listing = await ws.listDir(path, folder.jailPath, { limit, timeMs, signal: options.signal });
        entries = listing.entries;
        // Names no path can hold are not in the listing: the answer says some entries went unsearched.
        if (listing.unlisted > 0) hit.add("unlisted");
      } catch (err) {
        // Refused for the time (too-large, past the deadline): the search answers what it found, as at any bound.
        if (err instanceof PolicyError && err.code === "too-large" && performance.now() >= deadline) {
          hit.add("time");
          break walk;
        }
        // The start folder's refusal is the caller's answer; a folder below it that moved, vanished, turned
        // unreadable or lies too deep is skipped, and the answer says the search is incomplete: it was taken for an
        // empty folder, and a search through 262 levels answered the first 256 as whole.
        if (folder.jailPath === start.jailPath || !(err instanceof PolicyError)) throw err;
        hit.add(err.code === "too-large" ? "folder_size" : "unreadable");
        continue;
      }
      for (const entry of entries) {
        options.signal?.throwIfAborted();
        if (performance.now() >= deadline) {
          hit.add("time");
          break walk;
        }
        if (visited === bounds.maxEntries) {
          hit.add("max_entries");
          break walk;
        }
        visited++;
        if (matches(entry.name)) {
          if (found.length === bounds.maxResults) {
            hit.add("max_results");
            break walk;
          }
          found.push(entryOf(folder.rel, entry));
        }
        if (entry.type !== "dir") continue;
        if (depth === bounds.maxDepth) {
          hit.add("max_depth");
          continue;
        }
        const rel = folder.rel === "" ? entry.name : `${folder.rel}/${entry.name}`;
        next.push({ rel, jailPath: Workspace.under(start.root, rel) });
      }
    }
    level = next;
  }
  return {
    root: start.root,
    path: start.rel || ".",
    pattern,
    matches: found,
    truncated: hit.size > 0,
    limits_hit: [...hit],
  };
}

function withoutUndefined(options: SearchOptions): Partial<SearchOptions> {
  const out: Partial<SearchOptions> = {};
  for (const key of ["maxDepth", "maxResults", "maxEntries", "timeMs"] as const) {
    if (options[key] !== undefined) out[key] = options[key];
  }
  return out;
}
