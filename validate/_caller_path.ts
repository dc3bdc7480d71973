// Checks on the text of a caller's path before any file-system call, and the
// mapping of file-system errors to refusals that show only that text.

import { PolicyError } from "./policy_error.ts";
import { quote } from "./_quote.ts";

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
  for (let i = 0; i < path.length; i++) {
    const code = path.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) {
      const what = code === 0 ? "a NUL byte" : "a control character";
      throw new PolicyError("invalid-input", `Cannot ${action} ${quote(path)}: the path contains ${what}`);
    }
  }
  return path;
}

/**
 * Turns a file-system error into a refusal that names the caller's path only;
 * anything unexpected is rethrown for stderr (its message may hold host paths).
 */
export function refusalFor(err: unknown, action: string, path: string): never {
  const shown = `Cannot ${action} ${quote(path)}`;
  if (err instanceof Deno.errors.NotFound || err instanceof Deno.errors.NotADirectory) {
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
  throw err;
}
