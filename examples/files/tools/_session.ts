// Test setup for the tool tests: a real temp tree and a Manager over it,
// served in memory through the toolkit's real framer to the official SDK
// client. Imported only by *_test.ts files in this folder.
import { join } from "node:path";
import { Server } from "@forge/toolkit";
import { connectInMemory, type InMemorySession } from "@forge/toolkit/testing";
import type { Config } from "../domain/config.ts";
import { Manager } from "../domain/manager.ts";
import { registerAll } from "./register.ts";

/** A served files server over a temp tree. */
export interface Session extends InMemorySession {
  /** The readable root (`hello.txt`, `notes/todo.md`, `.env`). */
  data: string;
  /** The writable root (`existing.txt`). */
  out: string;
  /** A folder outside the roots holding `canary.txt`. */
  outside: string;
  /** The canary's content. */
  canary: string;
  /** Closes the session and removes the tree. */
  end(): Promise<void>;
}

/**
 * Makes a tree, a Manager over it (`makeManager` may supply a subclass that
 * plays another process at a chosen moment), and connects the SDK client in memory.
 */
export async function session(
  makeManager: (config: () => Promise<Config>) => Manager = (config) => new Manager(config, undefined),
): Promise<Session> {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "files-tools-" }));
  const [data, out, outside] = ["data", "out", "outside"].map((d) => join(base, d));
  for (const dir of [data, out, outside, join(data, "notes")]) await Deno.mkdir(dir, { recursive: true });
  const canary = `CANARY-${crypto.randomUUID()}`;
  await Deno.writeTextFile(join(outside, "canary.txt"), canary);
  await Deno.writeTextFile(join(data, "hello.txt"), "hello\n");
  await Deno.writeTextFile(join(data, "notes", "todo.md"), "- test the tools\n");
  await Deno.writeTextFile(join(data, ".env"), "TOKEN=x\n");
  await Deno.writeTextFile(join(out, "existing.txt"), "old\n");
  const config: Config = { roots: [data], writable_roots: [out], deny: [], max_bytes: 64, allow_hard_links: false };
  const server = new Server({ name: "files" });
  registerAll(server, makeManager(() => Promise.resolve(config)));
  const connected = await connectInMemory(server);
  return {
    ...connected,
    data,
    out,
    outside,
    canary,
    async end() {
      await connected.close();
      await Deno.remove(base, { recursive: true });
    },
  };
}

export { textOf } from "../../served.ts";
