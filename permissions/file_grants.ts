// A policy's file grants (`readFiles`, `writeFiles`) become `--allow-read` and
// `--allow-write` entries as they are, and Deno checks a path against an
// entry by where the path is, not by what it is: an entry that is a folder
// grants everything below it, and one that is a symbolic link grants
// everything below its target (`<link>/etc/shadow` is under `<link>`). A
// config field meant to name one file (an audit file, a database) set to `/`
// or `.` gave the server read and write of that whole folder, and the start
// check, which compares the process's permissions with the policy's, found
// nothing in excess. Each file grant must therefore be a regular file, or
// not exist yet.
import type { Policy } from "../validate/policy.ts";

/** Where a descriptor anchor leads: the one link a file grant may be. */
const PROC_FDS = "/proc/self/fd";

/**
 * Why the policy's file grants cannot be given as they are: one line for
 * each `readFiles` or `writeFiles` entry that is the root, a folder, or a
 * symbolic link other than a descriptor anchor (which leads to
 * `/proc/self/fd`): paths with something below them. A file, a device, a
 * FIFO or a socket passes. An entry that
 * does not exist passes (an audit file is made on the first record); one this
 * process may not look at (it does not hold the permission yet, as when only
 * printing its flags) passes too, and is checked where it is held: at start.
 *
 * @param policy The policy.
 * @returns The problems, empty when every file grant is a file or absent.
 *
 * @example The root given as a file
 * ```ts
 * import { fileGrantProblems } from "@forge/toolkit/permissions";
 * import { definePolicy } from "@forge/toolkit/validate";
 * import assert from "node:assert/strict";
 *
 * const [problem] = await fileGrantProblems(definePolicy({ writeFiles: ["/"] }));
 * assert.match(problem, /is the root folder/);
 * ```
 */
export async function fileGrantProblems(policy: Policy): Promise<string[]> {
  const problems: string[] = [];
  const files = [
    ...policy.readFiles.map((path) => ["readFiles", path]),
    ...policy.writeFiles.map((path) => ["writeFiles", path]),
  ];
  for (const [field, path] of files) {
    if (path === "/") {
      problems.push(
        `its policy grants "/" as a file (${field}), but it is the root folder: Deno would allow everything`,
      );
      continue;
    }
    let info: Deno.FileInfo;
    try {
      info = await Deno.lstat(path);
    } catch {
      // Absent, or not this process's to look at: nothing to say here.
      continue;
    }
    if (info.isFile) continue;
    // A descriptor anchor is a link to /proc/self/fd on purpose, granted as itself (PathJail's
    // `descriptorAnchor`, checked where it is opened): what lies below it is this process's own open descriptors.
    if (info.isSymlink && (await Deno.readLink(path).catch(() => "")) === PROC_FDS) continue;
    // A device, FIFO or socket has nothing below it: `/dev/full` as an audit file grants that file only.
    if (!info.isDirectory && !info.isSymlink) continue;
    const what = info.isDirectory
      ? "is a folder: Deno would allow everything below it"
      : "is a symbolic link: Deno checks the link's own path, so everything below its target would be allowed";
    problems.push(`its policy grants ${JSON.stringify(path)} as a file (${field}), but it ${what}; name a file`);
  }
  return problems;
}
