// What a tool test needs: the server with every tool registered, its notes
// directory and folders made fresh in a temp directory, and the official MCP
// client connected in memory (through the real framer).
import { join } from "node:path";
import { Server } from "@forge/toolkit";
import { connectInMemory, type InMemorySession } from "@forge/toolkit/testing";
import { ConfigSchema } from "../domain/config.ts";
import { policyFor } from "../domain/policy.ts";
import { Manager } from "../domain/notes.ts";
import { registerAll } from "./register.ts";

/** A connected session over fresh folders; `close()` also removes them. */
export interface ToolSession extends InMemorySession {
  /** The notes directory (holds `todo.md`: "buy milk"). */
  notes: string;
  /** Each folder asked for, by name. */
  folders: Record<string, string>;
}

/**
 * Connects a client to a server whose config has a fresh notes directory and
 * one fresh folder per entry of `folders`, e.g. `{ files: {} }` or
 * `{ todos: { writable: true } }`.
 */
export async function toolSession(folders: Record<string, { writable?: boolean }> = {}): Promise<ToolSession> {
  const dir = await Deno.realPath(await Deno.makeTempDir());
  const notes = join(dir, "notes");
  await Deno.mkdir(notes);
  await Deno.writeTextFile(join(notes, "todo.md"), "buy milk");
  const paths: Record<string, string> = {};
  for (const name of Object.keys(folders)) {
    paths[name] = join(dir, `folder-${name}`);
    await Deno.mkdir(paths[name]);
  }
  const config = ConfigSchema.parse({
    notes_dir: notes,
    max_bytes: 1024,
    folders: Object.fromEntries(Object.entries(folders).map(([name, f]) => [name, { ...f, path: paths[name] }])),
  });
  const server = new Server({ name: "my-server" });
  registerAll(
    server,
    new Manager({
      get: () => Promise.resolve(config),
      path: undefined,
      policyOf: (config) => policyFor(config, undefined, []),
    }),
  );
  const session = await connectInMemory(server);
  return {
    ...session,
    notes,
    folders: paths,
    close: async () => {
      await session.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}
