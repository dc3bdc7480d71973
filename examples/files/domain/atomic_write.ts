// Writing a file inside the writable roots without ever leaving a half-written
// file: the jail writes a new temporary file in the same folder, checks it,
// and renames it over the target. Folders are never created.
import { dirname, posix } from "node:path";
import { LimitError, PolicyError, quote } from "@forge/toolkit/validate";
import type { Workspace } from "./workspace.ts";

/** A write resolved inside the jail, not yet done. */
export interface WritePlan {
  /** The real path that will be replaced or created (never shown). */
  readonly real: string;
  /** The writable root, as configured. */
  readonly root: string;
  /** The path relative to the root, `/`-separated. */
  readonly rel: string;
  /** The normalised absolute path, as the permission pattern shows it: `<root>/<rel>`. */
  readonly target: string;
  /** Whether the file exists now (it will be replaced). */
  readonly exists: boolean;
  /** The path to hand the jail for this file. */
  readonly jailPath: string;
}

/** What a write did. */
export interface WriteOutcome {
  /** The writable root, as configured. */
  root: string;
  /** The path relative to the root. */
  path: string;
  /** The bytes written. */
  bytes: number;
  /** Whether the file was new. */
  created: boolean;
}

/** The content a write plan checks: its size in UTF-8 bytes against the cap. */
export interface PlanContent {
  /** The content's length in UTF-8 bytes. */
  readonly bytes: number;
  /** The most a write may hold (`max_bytes`). */
  readonly maxBytes: number;
}

/**
 * Resolves where a write would go, without writing: the content within
 * `max_bytes`, inside a writable root, not denied, its folder existing, not
 * a folder itself, and neither the file nor its folder read-only. Used for
 * the permission pattern and the confirmation, and again, fresh, for the
 * write: a probe offers no pattern for a write that would be refused.
 *
 * @param ws The current workspace.
 * @param path The caller's path.
 * @param content The content's size and cap, when known.
 * @returns The plan.
 * @throws {LimitError} When the content is over `max_bytes`.
 * @throws {PolicyError} When the write would be refused.
 */
export async function planWrite(ws: Workspace, path: string, content?: PlanContent): Promise<WritePlan> {
  if (content !== undefined && content.bytes > content.maxBytes) {
    throw new LimitError(`write ${quote(path)}`, content.maxBytes, "bytes");
  }
  // On Linux a trailing `/` (or `/.`) says the name is a folder: the path would otherwise be taken for the file it
  // names without it, and `a.txt/` replaced `a.txt` (red team, seventh round).
  if (typeof path === "string" && /\/\.?$/.test(path)) {
    throw new PolicyError(
      "invalid-input",
      `Cannot write ${quote(path)}: a path ending in "/" names a folder; name the file without it`,
    );
  }
  let resolved;
  try {
    resolved = await ws.resolve(path, "write");
  } catch (err) {
    if (err instanceof PolicyError && err.code === "not-found") {
      const folder = dirname(path);
      if (err.cause instanceof Deno.errors.NotADirectory) {
        throw new PolicyError(
          "not-found",
          `Cannot write ${quote(path)}: ${quote(folder)} is not a folder: a name on that path is a file`,
          { cause: err },
        );
      }
      throw new PolicyError(
        "not-found",
        `Cannot write ${quote(path)}: the folder ${quote(folder)} does not exist; ` +
          "this server does not create folders, so write into an existing one",
        { cause: err },
      );
    }
    throw err;
  }
  // What is there now decides the answer's `created` and the refusal of a folder; the write checks again. It is
  // looked up through the jail (with a descriptor anchor, by descriptor), never by the path alone: under a race that
  // path could lead outside, and the answer would tell what is there.
  const kind = await ws.existing(path, resolved);
  if (kind !== undefined && kind !== "file") {
    const what = kind === "dir" ? "a folder" : "not a regular file";
    throw new PolicyError("not-a-file", `Cannot write ${quote(path)}: it is ${what}`);
  }
  await ws.checkWrite(path, resolved.jailPath);
  return {
    real: resolved.real,
    root: resolved.root,
    rel: resolved.rel,
    target: posix.join(resolved.root.split("\\").join("/"), resolved.rel),
    exists: kind !== undefined,
    jailPath: resolved.jailPath,
  };
}

/**
 * Replaces or creates a file atomically: readers see the old content or the
 * new, never a mix. The jail writes `.forge-write-<uuid>.tmp` (created
 * exclusively and checked by identity: in the root with a descriptor anchor,
 * else beside the target), flushes it and renames it over the target, all in
 * one synchronous step; the temporary file is removed on every failure. A rename replaces a link at the target rather than following it,
 * and gives a hard-linked target a new inode instead of changing the file
 * outside the root. An existing file keeps its permission bits.
 *
 * @param ws The current workspace.
 * @param path The caller's path.
 * @param content The new content.
 * @param options `maxBytes` caps the content; `signal` stops the write before it starts; `createNew` refuses
 * to replace a file, also one that takes the name while the write runs; `target` is the file the call's permission
 * pattern named: a write that would go elsewhere (a reload since reordered the roots) is refused.
 * @returns What was written.
 * @throws {LimitError} When the content is over `maxBytes`.
 * @throws {PolicyError} When refused, or the folder changed while writing, or (`createNew`) the file exists.
 */
export async function writeAtomic(
  ws: Workspace,
  path: string,
  content: string,
  options: { maxBytes: number; signal?: AbortSignal; createNew?: boolean; target?: string },
): Promise<WriteOutcome> {
  // UTF-8 cannot hold half of a surrogate pair: the encoder wrote U+FFFD in its place and the write said it landed.
  if (!content.isWellFormed()) {
    const at = [...content].findIndex((c) => c.length === 1 && c.charCodeAt(0) >= 0xd800 && c.charCodeAt(0) <= 0xdfff);
    throw new PolicyError(
      "invalid-input",
      `Cannot write ${quote(path)}: the content holds half of a UTF-16 surrogate pair (at character ${at}), which ` +
        "UTF-8 cannot store; nothing was written",
    );
  }
  // read_file serves text only and calls a file with a NUL byte binary: one written here could not be read back.
  const nul = content.indexOf("\0");
  if (nul !== -1) {
    throw new PolicyError(
      "invalid-input",
      `Cannot write ${quote(path)}: the content holds a NUL character (at character ${nul}); this server serves text ` +
        "only, and read_file refuses a file with one as binary; nothing was written",
    );
  }
  const bytes = new TextEncoder().encode(content);
  const plan = await planWrite(ws, path, { bytes: bytes.length, maxBytes: options.maxBytes });
  if (options.target !== undefined && plan.target !== options.target) {
    throw new PolicyError(
      "no-permission",
      `Cannot write ${quote(path)}: it now names another file than the one this call was approved for ` +
        `(write:${options.target}); the config changed in between; nothing was written`,
    );
  }
  await ws.writeAtomic(path, plan.jailPath, bytes, { signal: options.signal, createNew: options.createNew });
  return { root: plan.root, path: plan.rel, bytes: bytes.length, created: !plan.exists };
}
