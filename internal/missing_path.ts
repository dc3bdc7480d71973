// "The path is not there": no entry of that name, or a part of it that should
// be a folder is a file. Both mean the same to a caller that asked for a path.

/** Whether `err` says a path does not exist: `NotFound`, or `NotADirectory` for a file where a folder was expected. */
export function isMissingPath(err: unknown): boolean {
  return err instanceof Deno.errors.NotFound || err instanceof Deno.errors.NotADirectory;
}
