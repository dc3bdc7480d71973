// Deno decodes a name's bytes that are not UTF-8 (from `readDir`, or in git's
// output) as U+FFFD, and that spelling names no file, or another one: a check
// that looked it up would find nothing where git opens the real bytes. Such a
// name is refused, never looked up; a literal U+FFFD cannot be told apart.

/** Whether `name` may hold bytes that were not UTF-8 (it holds U+FFFD). */
export function notUtf8(name: string): boolean {
  return name.includes("\uFFFD");
}
