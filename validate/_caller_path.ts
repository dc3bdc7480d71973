// Checks on the text of a caller's path before any file-system call, and the
// mapping of file-system errors to refusals that show only that text.

import { constants } from "node:os";
import { PolicyError } from "./policy_error.ts";
import { quote } from "../internal/quote.ts";
import { isMissingPath } from "../internal/missing_path.ts";

/**
 * Characters no caller's path may hold and no listing shows: C0 and C1
 * control characters and DEL, the line and paragraph separators, the bidi
 * embeddings, overrides and isolates (`bidi\u202Etxt.exe` reads as
 * `bidiexe.txt`) and marks (LRM, RLM, ALM), the tag characters, invisible
 * text that a name could carry to a model unseen by anyone reading it, and
 * the invisible characters no name needs, by which two names that look the
 * same differ (`passwd\u200B`): the soft hyphen, the zero-width space, the word
 * joiner and invisible operators, the byte-order mark, the Mongolian vowel
 * separator; and the rest of Unicode's default-ignorable characters (the
 * combining grapheme joiner, the Hangul fillers, the Khmer inherent vowels,
 * the deprecated format characters U+206A–206F, the interlinear annotation
 * characters, the shorthand and musical format controls, the variation
 * selectors past U+E0100, and the unassigned code points Unicode sets aside
 * as ignorable). The zero-width joiner and non-joiner stay: emoji sequences
 * and scripts such as Persian need them; so do the variation selectors
 * U+FE00–FE0F (emoji and CJK) and the Mongolian free variation selectors.
 */
const UNSHOWN =
  // deno-lint-ignore no-control-regex
  /[\u0000-\u001f\u007f-\u009f\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b\u200e\u200f\u2028\u2029\u202a-\u202e\u2060-\u206f\u3164\ufeff\uffa0\ufff0-\ufffb]|\ud82f[\udca0-\udca3]|\ud834[\udd73-\udd7a]|\udb40[\udc00-\udfff]|[\udb41-\udb43][\udc00-\udfff]/;

/**
 * Whether `text` holds a character no path may hold ({@linkcode UNSHOWN}).
 *
 * @param text A path or a name.
 * @returns True when it holds one.
 */
export function hasUnshownCharacter(text: string): boolean {
  return UNSHOWN.test(text);
}

/** Throws unless `path` is a non-empty string without control characters, at most `max` long. */
export function checkCallerPath(path: unknown, max: number, action: string): string {
  if (typeof path !== "string") {
    throw new PolicyError("invalid-input", `Cannot ${action}: the path must be a string`);
  }
  if (path === "") throw new PolicyError("invalid-input", `Cannot ${action}: the path is empty`);
  if (path.length > max) {
    throw new PolicyError(
      "invalid-input",
      `Cannot ${action} ${quote(path)}: the path is longer than ${max} characters`,
    );
  }
  // "~" (and "~user") means a home folder only to a shell; taken literally it would name a folder "~" in
  // the first root, which is never what the caller meant, so a leading "~" is refused with the reason.
  if (path.startsWith("~")) {
    throw new PolicyError(
      "invalid-input",
      `Cannot ${action} ${
        quote(path)
      }: "~" is not expanded; give a path relative to the first folder or an absolute one`,
    );
  }
  if (hasUnshownCharacter(path)) {
    const what = path.includes("\0")
      ? "a NUL byte"
      : "a control character, a line separator, a bidi control, a tag character or an invisible character";
    throw new PolicyError("invalid-input", `Cannot ${action} ${quote(path)}: the path contains ${what}`);
  }
  return path;
}

/**
 * Turns a file-system error into a refusal that names the caller's path only;
 * anything unexpected is rethrown for stderr (its message may hold host paths).
 */
export function refusalFor(err: unknown, action: string, path: string): never {
  const shown = `Cannot ${action} ${quote(path)}`;
  if (isMissingPath(err)) {
    throw new PolicyError("not-found", `${shown}: no such file or folder`, { cause: err });
  }
  if (err instanceof Deno.errors.NotCapable) {
    throw new PolicyError("no-permission", `${shown}: the server's permissions do not cover it`, { cause: err });
  }
  if (err instanceof Deno.errors.PermissionDenied) {
    throw new PolicyError("no-permission", `${shown}: the operating system denied access`, { cause: err });
  }
  if (err instanceof Deno.errors.FilesystemLoop) {
    throw new PolicyError("symlink-escape", `${shown}: the path has a symbolic-link loop`, { cause: err });
  }
  if (err instanceof Deno.errors.IsADirectory) {
    throw new PolicyError("not-a-file", `${shown}: it is a folder, not a file`, { cause: err });
  }
  const code = osErrorCode(err);
  if (typeof code === "string" && code in OS_REASONS) {
    throw new PolicyError(OS_REASONS[code][0], `${shown}: ${OS_REASONS[code][1]}`, { cause: err });
  }
  if (typeof code === "string" && /^(E[A-Z0-9]+|os error \d+)$/.test(code)) {
    // Any other refusal by the operating system: its code says why, its message (with host paths) stays on the server.
    throw new PolicyError("invalid-input", `${shown}: the operating system refused it (${code})`, { cause: err });
  }
  throw err;
}

/** Errno names by number, on this platform. */
const ERRNO_NAMES = new Map(Object.entries(constants.errno).map(([name, number]) => [number, name]));

/**
 * The errno name of an operating-system error: its `code`, or, for an error
 * Deno gives none (a `node:fs` write past `ulimit -f` throws a plain `Error`
 * "File too large (os error 27)"), the name of the number in its message;
 * `os error N` for a number this platform does not name.
 */
function osErrorCode(err: unknown): unknown {
  const code = (err as { code?: unknown } | null)?.code;
  if (code !== undefined || !(err instanceof Error)) return code;
  const number = /\(os error (\d+)\)/.exec(err.message)?.[1];
  if (number === undefined) return undefined;
  return ERRNO_NAMES.get(Number(number)) ?? `os error ${number}`;
}

/** Operating-system errors a caller can provoke, by errno name: the refusal's code and reason. */
const OS_REASONS: Record<string, [PolicyError["code"], string]> = {
  ENOENT: ["not-found", "no such file or folder"],
  EEXIST: ["invalid-input", "the file already exists"],
  ENOTEMPTY: ["not-a-file", "it is a folder, not a file"],
  ENAMETOOLONG: ["invalid-input", "a name in the path is longer than the file system allows"],
  ELOOP: ["symlink-escape", "the path has a symbolic-link loop"],
  ENOTDIR: ["not-found", "no such file or folder"],
  EACCES: ["no-permission", "the operating system denied access"],
  EPERM: ["no-permission", "the operating system denied access"],
  EISDIR: ["not-a-file", "it is a folder, not a file"],
  EINVAL: ["invalid-input", "the file system does not accept this name"],
  EILSEQ: ["invalid-input", "the file system does not accept this name"],
  ENOSPC: ["invalid-input", "the disk is full"],
  EDQUOT: ["invalid-input", "the disk quota is used up"],
  EROFS: ["no-permission", "the file system is read-only"],
  EFBIG: ["invalid-input", "the file is too large for the file system"],
  ETXTBSY: ["invalid-input", "the file is busy"],
  EBUSY: ["invalid-input", "the file is busy"],
  EMLINK: ["invalid-input", "the folder has too many links"],
  ENXIO: ["not-a-file", "it is not a regular file"],
};
