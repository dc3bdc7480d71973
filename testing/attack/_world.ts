// The canaries: a folder outside every policy with a secret file and an
// SQLite file, the loopback listener, and, next to and inside the server's
// roots, a sibling folder whose name starts with the root's and links that
// point out of the root. Everything planted is removed at the end.
import { basename, dirname, join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import type { AttackWorld } from "./target.ts";
import { type Hit, startListener } from "./_listener.ts";
import { CONFIG_RAN } from "./_judge.ts";

/** The world with what the kit needs beyond the public fields. */
export interface World extends AttackWorld {
  /** Every hit on either listener, in order. */
  hits: Hit[];
  /** The token a forged log line starts with. */
  marker: string;
  /** Planted paths, to watch and remove. */
  planted: string[];
  /** Whether the scope's canaries were planted (once per world). */
  plantedOnce: boolean;
  /** Values of the placeholders that do not depend on the case. */
  values: Record<string, string>;
  /** Plants sibling folders and links for `roots` (best effort: a root the kit may not write is skipped). */
  plant(roots: readonly string[]): string[];
  /** Adds hostile settings to each repository's `.git/config` (restored by `dispose`). */
  plantRepositories(repos: readonly string[]): string[];
  dispose(): Promise<void>;
}

const LINK_FILE = "forge-attack-link";
const LINK_DIR = "forge-attack-dir";
const SIBLING_SUFFIX = "-forge-attack";
const HOOKS = [
  "pre-commit",
  "commit-msg",
  "post-commit",
  "reference-transaction",
  "post-index-change",
  "post-checkout",
];

/**
 * Settings with which git runs a program: a server that works in a
 * repository it does not control must neutralise each of them. Every program
 * leaves a file named after itself in the canary folder.
 */
function hostileConfig(dir: string): string {
  // git appends arguments to a configured command; the comment swallows them.
  const touch = (name: string) => `touch '${dir}/${CONFIG_RAN}${name}' #`;
  return [
    "",
    "[core]",
    `\tfsmonitor = "${touch("fsmonitor")}"`,
    `\thooksPath = ${dir}/hooks`,
    `\tsshCommand = "${touch("ssh")}"`,
    `\tpager = "touch '${dir}/${CONFIG_RAN}pager'; cat"`,
    "[diff]",
    `\texternal = ${dir}/hooks/external-diff`,
    "[uploadpack]",
    `\tpackObjectsHook = "${touch("pack-objects")}"`,
    "",
  ].join("\n");
}

/**
 * Makes a symbolic link with `ln`: Deno.symlink needs read and write
 * permission for the whole file system, which a test's scoped flags do not
 * give.
 */
function link(to: string, at: string): void {
  const out = new Deno.Command("ln", { args: ["-s", to, at], stdout: "null", stderr: "piped" }).outputSync();
  if (!out.success) throw new Error(`Cannot link "${at}": ${new TextDecoder().decode(out.stderr).trim()}`);
}

/** Creates the canary folder, its files and the listener. */
export async function createWorld(): Promise<World> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "forge-attack-" }));
  const secret = `FORGE-CANARY-${crypto.randomUUID()}`;
  const marker = `FORGE-FORGED-${crypto.randomUUID().slice(0, 8)}`;
  const canaryFile = join(dir, "canary.txt");
  const canaryDb = join(dir, "canary.db");
  await Deno.writeTextFile(canaryFile, secret);
  const db = new DatabaseSync(canaryDb);
  db.exec("CREATE TABLE secrets (value TEXT)");
  db.prepare("INSERT INTO secrets VALUES (?)").run(secret);
  db.close();
  const hits: Hit[] = [];
  const listener = await startListener(hits, secret, canaryFile);
  const allowedListener = await startListener(hits, secret, canaryFile, listener.port);
  const allowedUrl = `http://127.0.0.1:${allowedListener.port}/allowed/`;
  const planted: string[] = [];
  const restore: [string, string][] = [];
  const up = (step: string) => step.repeat(32);
  const values: Record<string, string> = {
    canary_file: canaryFile,
    canary_dir: dir,
    canary_db: canaryDb,
    // The secret in two halves: a value that joins them in SQL sends neither whole, so the secret coming back proves
    // the server ran the value as SQL.
    secret_head: secret.slice(0, 16),
    secret_tail: secret.slice(16),
    up: up("../"),
    up_backslash: up("..\\"),
    up_encoded: up("%2e%2e%2f"),
    up_double_encoded: up("%252e%252e%252f"),
    up_fullwidth: up("\uff0e\uff0e\uff0f"),
    sibling: dir,
    sibling_name: basename(dir),
    link_file: LINK_FILE,
    link_dir: LINK_DIR,
    listener: `127.0.0.1:${listener.port}`,
    port: String(listener.port),
    marker,
  };
  return {
    dir,
    canaryFile,
    canaryDb,
    secret,
    port: listener.port,
    allowedUrl,
    hits,
    marker,
    planted,
    plantedOnce: false,
    values,
    plant(roots) {
      const notes: string[] = [];
      const seen = new Set<string>();
      for (const root of roots) {
        try {
          if (!Deno.statSync(root).isDirectory) continue;
          // A root given twice, or as a link and as its real folder, is planted once.
          const real = Deno.realPathSync(root);
          if (seen.has(real)) continue;
          seen.add(real);
          const sibling = join(dirname(root), basename(root) + SIBLING_SUFFIX);
          Deno.mkdirSync(sibling);
          planted.push(sibling);
          Deno.writeTextFileSync(join(sibling, "canary.txt"), secret);
          if (values.sibling === dir) {
            values.sibling = sibling;
            values.sibling_name = basename(sibling);
          }
          for (const [name, to] of [[LINK_FILE, canaryFile], [LINK_DIR, dir]]) {
            link(to, join(root, name));
            planted.push(join(root, name));
          }
        } catch (err) {
          notes.push(`Cannot plant canaries beside and inside "${root}": ${(err as Error).name}`);
        }
      }
      return notes;
    },
    plantRepositories(repos) {
      const notes: string[] = [];
      const hooks = join(dir, "hooks");
      Deno.mkdirSync(hooks, { recursive: true });
      for (const hook of [...HOOKS, "external-diff"]) {
        Deno.writeTextFileSync(join(hooks, hook), `#!/bin/sh\ntouch '${dir}/${CONFIG_RAN}${hook}'\n`, { mode: 0o755 });
      }
      for (const repo of repos) {
        const config = join(repo, ".git", "config");
        try {
          const text = Deno.readTextFileSync(config);
          restore.push([config, text]);
          Deno.writeTextFileSync(config, text + hostileConfig(dir));
        } catch (err) {
          notes.push(`Cannot plant a hostile config in "${repo}": ${(err as Error).name}`);
        }
      }
      return notes;
    },
    async dispose() {
      for (const [config, text] of restore) await Deno.writeTextFile(config, text).catch(() => {});
      await listener.close();
      await allowedListener.close();
      for (const path of planted.reverse()) await Deno.remove(path, { recursive: true }).catch(() => {});
      await Deno.remove(dir, { recursive: true });
    },
  };
}
