// Test fixtures for the domain tests: real folders in the system temp folder
// and real symbolic and hard links made with `ln` (Deno.symlink would need
// unscoped --allow-read and --allow-write). Imported only by *_test.ts files.
import { join } from "node:path";
import type { Config } from "./config.ts";
import { policyFor } from "./policy.ts";
import { Workspace } from "./workspace.ts";

/**
 * A temp tree: two read roots, a writable root, and a canary outside every root.
 * The config reads `data` and `more` and writes `out`, with `max_bytes` 1024.
 */
export interface Tree {
  /** The temp folder holding everything (real path). */
  base: string;
  /** The first read root. */
  data: string;
  /** A second read root. */
  more: string;
  /** The writable root. */
  out: string;
  /** A folder outside every root, holding the canary. */
  outside: string;
  /** The canary file's content: must never appear in any output. */
  canary: string;
  /** A config over the tree. */
  config: Config;
  /** Removes everything. */
  remove(): Promise<void>;
}

/** Makes a fresh tree with a few files. */
export async function makeTree(): Promise<Tree> {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "files-test-" }));
  const [data, more, out, outside] = ["data", "more", "out", "outside"].map((d) => join(base, d));
  for (const dir of [data, more, out, outside, join(data, "notes"), join(data, "deep", "a", "b")]) {
    await Deno.mkdir(dir, { recursive: true });
  }
  const canary = `CANARY-${crypto.randomUUID()}`;
  await Deno.writeTextFile(join(outside, "canary.txt"), canary);
  await Deno.writeTextFile(join(data, "hello.txt"), "hello\n");
  await Deno.writeTextFile(join(data, "notes", "todo.md"), "- write tests\n");
  await Deno.writeTextFile(join(data, "notes", "done.md"), "- nothing\n");
  await Deno.writeTextFile(join(data, ".env"), "API_KEY=not-for-models\n");
  await Deno.writeTextFile(join(data, "deep", "a", "b", "deep.md"), "deep\n");
  await Deno.writeTextFile(join(more, "other.md"), "in the second root\n");
  await Deno.writeTextFile(join(out, "existing.txt"), "old content\n");
  const config: Config = {
    roots: [data, more],
    writable_roots: [out],
    deny: [],
    max_bytes: 1024,
    allow_hard_links: false,
  };
  return { base, data, more, out, outside, canary, config, remove: () => Deno.remove(base, { recursive: true }) };
}

/** Makes a symbolic link with `ln -s` (needs --allow-run=ln). */
export async function symlink(target: string, path: string): Promise<void> {
  await ln(["-s", target, path]);
}

/** Makes a hard link with `ln` (needs --allow-run=ln). */
export async function hardlink(target: string, path: string): Promise<void> {
  await ln([target, path]);
}

async function ln(args: string[]): Promise<void> {
  const out = await new Deno.Command("ln", { args, stdout: "null", stderr: "piped" }).output();
  if (!out.success) throw new Error(`ln ${args.join(" ")} failed: ${new TextDecoder().decode(out.stderr)}`);
}

/** The workspace of a config whose paths are absolute, as the Manager builds it. */
export async function workspaceOf(config: Config, ownFiles: readonly string[] = []): Promise<Workspace> {
  return await Workspace.open(policyFor(config, undefined), ownFiles);
}

/** Asserts that no text holds the canary or a host path of the tree outside its roots. */
export function assertNoLeak(tree: Tree, text: string): void {
  if (text.includes(tree.canary)) throw new Error(`The canary leaked: ${text.slice(0, 200)}`);
  if (text.includes(tree.outside)) throw new Error(`A host path outside the roots leaked: ${text.slice(0, 200)}`);
}
