// The examples' end-to-end tests start each server the way an operator does:
// as a subprocess with exactly the flags it prints for its config, driven by
// the official SDK client over its real stdio. What every example checks the
// same way lives here; each main_test.ts keeps its own tools and refusals.
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { printedPermissions } from "@forge/toolkit/permissions";
import { type CallResult, runDeno, type ServerProcess, spawnServer } from "@forge/toolkit/testing";

const REPO = fileURLToPath(new URL("..", import.meta.url));

/** A server started under its printed flags, with the calls its tests make. */
export interface Served {
  /** The running server. */
  server: ServerProcess;
  /** Calls a tool. */
  call(name: string, args: Record<string, unknown>): Promise<CallResult>;
  /** Calls a tool that must succeed, and returns its text blocks joined by line breaks (see {@linkcode textsOf}). */
  ok(name: string, args: Record<string, unknown>): Promise<string>;
  /** Calls a tool that must answer `isError` with a text matching `reason`, and returns that text. */
  refused(name: string, args: Record<string, unknown>, reason: RegExp): Promise<string>;
}

/** The text of a result's first content block. */
export function textOf(result: { content: unknown[] }): string {
  return (result.content[0] as { text: string }).text;
}

/**
 * The text of every text block of a result, joined by line breaks: what the
 * model reads, a tool's output and then the server's notice about it (a
 * truncation marker, files left out), which a tool sends in a block of its own.
 */
export function textsOf(result: { content: unknown[] }): string {
  return result.content.filter((block) => (block as { type?: string }).type === "text")
    .map((block) => (block as { text: string }).text).join("\n");
}

/** Asserts that `result` answered (no `isError`) and returns its text blocks (see {@linkcode textsOf}); `label` names the call. */
export function assertAnswered(result: { isError?: unknown; content: unknown[] }, label: string): string {
  const text = textsOf(result);
  assert.notEqual(result.isError, true, `${label}: ${text}`);
  return text;
}

/** Asserts that `result` is `isError` with a text matching `reason`, and returns that text; `label` names the call. */
export function assertRefused(
  result: { isError?: unknown; content: unknown[] },
  reason: RegExp,
  label: string,
): string {
  const text = textOf(result);
  assert.equal(result.isError, true, `${label}: ${text}`);
  assert.match(text, reason, label);
  return text;
}

/** A tree made for a test file and the flags its server prints for the tree's config. */
export interface PrintedTree<T> {
  /** The tree. */
  tree: T;
  /** The flags printed for its config. */
  flags: string[];
}

/**
 * Makes a tree with `make(...args)` at the first call with those arguments in a test file, prints `script`'s flags
 * for its config once, and gives both to every later call with the same arguments: for the tests that only read the
 * tree. Each tree is removed when the file's tests end.
 */
export function printedTrees<T extends { base: string; config: string }, A extends unknown[]>(
  script: string,
  make: (...args: A) => Promise<T>,
): (...args: A) => Promise<PrintedTree<T>> {
  const made = new Map<string, Promise<PrintedTree<T>>>();
  return (...args) => {
    const key = JSON.stringify(args);
    let printed = made.get(key);
    if (printed === undefined) {
      printed = make(...args).then(async (tree) => {
        globalThis.addEventListener("unload", () => Deno.removeSync(tree.base, { recursive: true }));
        return { tree, flags: await printedPermissions({ script, config: tree.config, cwd: REPO }) };
      });
      made.set(key, printed);
    }
    return printed;
  };
}

/** Starts `script` on `config` with exactly the flags it prints for that config. */
export async function serveUnderPrintedFlags(script: string, config: string): Promise<Served> {
  return serveUnderFlags(script, config, await printedPermissions({ script, config, cwd: REPO }));
}

/** Starts `script` on `config` under `flags`, printed for that config (a file's tests may print them once). */
export async function serveUnderFlags(script: string, config: string, flags: readonly string[]): Promise<Served> {
  const server = await spawnServer({ args: [...flags, script, "-config", config], cwd: REPO });
  const call = (name: string, args: Record<string, unknown>) => server.client.callTool({ name, arguments: args });
  return {
    server,
    call,
    ok: async (name, args) => assertAnswered(await call(name, args), name),
    refused: async (name, args, reason) =>
      assertRefused(await call(name, args), reason, `${name} ${JSON.stringify(args)}`),
  };
}

/** Asserts `deno run <script> --health` prints `ok` with no permission flag at all. */
export async function assertHealthNeedsNoPermission(script: string): Promise<void> {
  const out = await runDeno({ args: [script, "--health"], cwd: REPO });
  assert.deepEqual([out.code, out.stdout], [0, "ok\n"], out.stderr);
}

/**
 * Asserts the server refuses, with exit 1 and the reason, a config file that
 * others can write (mode 0666), even under exactly its printed flags.
 */
export async function assertRefusesSharedConfig(script: string, config: string): Promise<void> {
  const flags = await printedPermissions({ script, config, cwd: REPO });
  await Deno.chmod(config, 0o666);
  const unsafe = await runDeno({ args: [...flags, script, "-config", config], cwd: REPO });
  assert.equal(unsafe.code, 1);
  assert.match(unsafe.stderr, /writable by group or others/);
}
