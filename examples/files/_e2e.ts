// Setup for the end-to-end tests: a real tree in the temp folder with links
// made by `ln`, a config file written the safe way (mode 0600 in a 0700
// folder, replaced by rename), and the paths of the server. Imported only by
// *_test.ts files in this folder.
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { runDeno, type RunDenoResult } from "@forge/toolkit/testing";

/** The server's entry point. */
export const SCRIPT: string = fileURLToPath(new URL("./main.ts", import.meta.url));
/** The checkout (where deno.json maps the toolkit's names). */
export const REPO: string = dirname(dirname(dirname(SCRIPT)));

/** A tree for one end-to-end test. */
export interface E2eTree {
  /** Everything lives here. */
  base: string;
  /** The config file (its folder holds nothing else). */
  config: string;
  /** Read roots. */
  data: string;
  /** A second read root. */
  more: string;
  /** The writable root. */
  out: string;
  /** Outside every root: `canary.txt`. */
  outside: string;
  /** The canary's content. */
  canary: string;
  /** Replaces the config atomically (temp file + rename), as operators should. */
  writeConfig(config: Record<string, unknown>): Promise<void>;
  /** Removes everything. */
  remove(): Promise<void>;
}

/**
 * Makes the tree: data/{hello.txt, big.txt, blob.bin, notes/todo.md, .env,
 * plan.secret, escape.txt → ../outside/canary.txt, linked-dir → ../outside},
 * more/other.md, out/existing.txt, outside/canary.txt, and a config over
 * data and more (read) and out (write) with `max_bytes` 64.
 */
export async function makeE2eTree(extra: Record<string, unknown> = {}): Promise<E2eTree> {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "files-e2e-" }));
  const [data, more, out, outside, configDir] = ["data", "more", "out", "outside", "config"].map((d) => join(base, d));
  for (const dir of [data, more, out, outside, join(data, "notes")]) await Deno.mkdir(dir, { recursive: true });
  await Deno.mkdir(configDir, { mode: 0o700 });
  const canary = `CANARY-${crypto.randomUUID()}`;
  await Deno.writeTextFile(join(outside, "canary.txt"), canary);
  await Deno.writeTextFile(join(data, "hello.txt"), "hello\n");
  await Deno.writeTextFile(join(data, "big.txt"), "x".repeat(100));
  await Deno.writeFile(join(data, "blob.bin"), new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 0, 0]));
  await Deno.writeTextFile(join(data, "notes", "todo.md"), "- ship it\n");
  await Deno.writeTextFile(join(data, ".env"), `TOKEN=${canary}\n`);
  await Deno.writeTextFile(join(data, "plan.secret"), canary);
  await Deno.writeTextFile(join(more, "other.md"), "more\n");
  await Deno.writeTextFile(join(out, "existing.txt"), "old\n");
  await ln("-s", join(outside, "canary.txt"), join(data, "escape.txt"));
  await ln("-s", outside, join(data, "linked-dir"));
  const config = join(configDir, "files.json");
  const writeConfig = async (value: Record<string, unknown>) => {
    const temp = join(configDir, `.files.json.${crypto.randomUUID()}`);
    await Deno.writeTextFile(temp, JSON.stringify(value, null, 2), { mode: 0o600 });
    await Deno.rename(temp, config);
  };
  await writeConfig({ roots: [data, more], writable_roots: [out], deny: ["**/*.secret"], max_bytes: 64, ...extra });
  return {
    base,
    config,
    data,
    more,
    out,
    outside,
    canary,
    writeConfig,
    remove: () => Deno.remove(base, { recursive: true }),
  };
}

/** Runs `deno run --quiet --no-prompt <args>` from the checkout with a clean environment. */
export function denoRun(args: string[], env?: Record<string, string>): Promise<RunDenoResult> {
  return runDeno({ args, env, cwd: REPO });
}

async function ln(...args: string[]): Promise<void> {
  const out = await new Deno.Command("ln", { args, stdout: "null", stderr: "piped" }).output();
  if (!out.success) throw new Error(`ln failed: ${new TextDecoder().decode(out.stderr)}`);
}
