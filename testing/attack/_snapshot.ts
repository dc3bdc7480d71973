// What is on disk under the watched paths, by metadata: kind, size, times,
// inode, mode and link target. Taken before and after every case with sync
// calls, which cost microseconds each, so a change is tied to its case.

/** Path → a fingerprint of its metadata. */
export type Snapshot = Map<string, string>;

/** One difference between two snapshots. */
export interface Change {
  path: string;
  change: "created" | "changed" | "removed";
}

function fingerprint(path: string, info: Deno.FileInfo): string {
  const kind = info.isSymlink ? "link" : info.isDirectory ? "dir" : info.isFile ? "file" : "other";
  const target = info.isSymlink ? Deno.readLinkSync(path) : "";
  return [kind, info.size, info.mtime?.getTime(), info.ctime?.getTime(), info.ino, info.mode, target].join(":");
}

/** Walks `paths` without following links; throws past `limit` entries. */
export function snapshot(paths: readonly string[], limit: number): Snapshot {
  const out: Snapshot = new Map();
  const visit = (path: string): void => {
    if (out.has(path)) return;
    let info: Deno.FileInfo;
    try {
      info = Deno.lstatSync(path);
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) return;
      throw err;
    }
    out.set(path, fingerprint(path, info));
    if (out.size > limit) {
      throw new RangeError(`Cannot watch "${paths[0]}": more than ${limit} entries (maxWatchedEntries)`);
    }
    if (!info.isDirectory) return;
    for (const entry of Deno.readDirSync(path)) visit(`${path}/${entry.name}`);
  };
  for (const path of paths) visit(path);
  return out;
}

/** What differs from `before` to `after`. */
export function changes(before: Snapshot, after: Snapshot): Change[] {
  const out: Change[] = [];
  for (const [path, print] of after) {
    const was = before.get(path);
    if (was === undefined) out.push({ path, change: "created" });
    else if (was !== print) out.push({ path, change: "changed" });
  }
  for (const path of before.keys()) if (!after.has(path)) out.push({ path, change: "removed" });
  return out;
}
