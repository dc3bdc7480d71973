// The copy `deno task new` makes: every file new, or nothing left behind.

import { dirname, join } from "node:path";
import { quote } from "../internal/quote.ts";

/** How {@linkcode copyTemplate} copies. */
export interface CopyTemplateOptions {
  /** Names (at any depth) not copied. @default [] */
  skip?: readonly string[];
  /** Rewrites a text file (`.ts`, `.json`, `.jsonc`, `.md`) by its path relative to the template. @default unchanged */
  rewrite?: (path: string, text: string) => string;
  /** Empty folders to make in the copy, relative to it. @default [] */
  emptyFolders?: readonly string[];
}

const TEXT = /\.(ts|json|jsonc|md)$/;

/**
 * Copies the folder `from` into `to` (absent or empty), creating every file and folder anew: a file or folder already
 * in the way — put there after `to` was found empty, by another process — is never overwritten. On any failure it
 * removes what it created, one entry at a time (never a whole folder, so what another process put inside stays), and
 * throws, so no half-made project is left looking complete.
 *
 * @throws {Error} `Cannot copy the template: …`, naming the path in the way; the cause is the error met.
 * @param from The template folder.
 * @param to The new project's folder.
 * @param options What to skip, rewrite and add.
 * @returns When every file is written.
 * @example Copy a folder
 * ```ts ignore
 * await copyTemplate("template", "/tmp/new-server", { emptyFolders: ["notes"] });
 * ```
 */
export async function copyTemplate(from: string, to: string, options: CopyTemplateOptions = {}): Promise<void> {
  const created: string[] = [];
  const skip = new Set(options.skip ?? []);
  const rewrite = options.rewrite ?? ((_path: string, text: string) => text);
  let at = to;
  const walk = async (rel: string): Promise<void> => {
    for await (const entry of Deno.readDir(join(from, rel))) {
      if (skip.has(entry.name)) continue;
      const path = rel === "" ? entry.name : `${rel}/${entry.name}`;
      at = join(to, path);
      if (entry.isDirectory) {
        await Deno.mkdir(at);
        created.push(at);
        await walk(path);
      } else if (entry.isFile) {
        const source = join(from, path);
        const data = TEXT.test(entry.name)
          ? new TextEncoder().encode(rewrite(path, await Deno.readTextFile(source)))
          : await Deno.readFile(source);
        await Deno.writeFile(at, data, { createNew: true, mode: (await Deno.stat(source)).mode ?? 0o644 });
        created.push(at);
      }
    }
  };
  try {
    await Deno.mkdir(dirname(to), { recursive: true });
    await Deno.mkdir(to).then(() => created.push(to), (err) => {
      if (!(err instanceof Deno.errors.AlreadyExists)) throw err;
    });
    await walk("");
    for (const folder of options.emptyFolders ?? []) {
      at = join(to, folder);
      await Deno.mkdir(at);
      created.push(at);
    }
  } catch (err) {
    for (const path of created.reverse()) await Deno.remove(path).catch(() => {});
    const why = err instanceof Deno.errors.AlreadyExists ? "is already there" : `failed (${(err as Error).name})`;
    throw new Error(
      `Cannot copy the template: ${
        quote(at, 200)
      } ${why}; the ${created.length} files and folders this copy made are removed`,
      { cause: err },
    );
  }
}
