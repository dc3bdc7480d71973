// test-permissions: --allow-read={repo},{tmp} --allow-write={tmp} --allow-env=TMPDIR
// The line counts in docs/typed-tools.md are measured on these files, and the
// files are real servers' tools: both versions are registered and called here.
import assert from "node:assert/strict";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { Server } from "@forge/toolkit";
import { connectInMemory } from "@forge/toolkit/testing";
import { definePolicy, PathJail } from "@forge/toolkit/validate";
import { registerTools as sdkTools } from "./mcpserver_zod.ts";
import { registerTools as typedTools } from "./toolkit_typed.ts";
import { registerTools as untypedTools } from "./toolkit_untyped.ts";

const here = new URL(".", import.meta.url);
const docs = new URL("../../docs/typed-tools.md", import.meta.url);

/** Lines of code: not blank, not a comment, as `deno fmt` leaves them. */
async function loc(file: string): Promise<number> {
  const text = await Deno.readTextFile(new URL(file, here));
  return text.split("\n").filter((line) => line.trim() !== "" && !line.trim().startsWith("//")).length;
}

Deno.test("the typed toolkit version is no longer than McpServer + zod, and the docs table states the counts", async () => {
  const typed = await loc("toolkit_typed.ts");
  const sdk = await loc("mcpserver_zod.ts");
  const untyped = await loc("toolkit_untyped.ts");
  assert.ok(typed <= sdk, `typed ${typed} > McpServer + zod ${sdk}`);
  assert.ok(typed < untyped);
  const table = await Deno.readTextFile(docs);
  assert.match(table, new RegExp(`\\| toolkit, typed \\(\`bench/lines/toolkit_typed.ts\`\\)\\s*\\| ${typed}\\s*\\|`));
  assert.match(table, new RegExp(`\\| McpServer \\+ zod \\(\`bench/lines/mcpserver_zod.ts\`\\)\\s*\\| ${sdk}\\s*\\|`));
  assert.match(
    table,
    new RegExp(`\\| toolkit, untyped \\(\`bench/lines/toolkit_untyped.ts\`\\)\\s*\\| ${untyped}\\s*\\|`),
  );
});

async function sandbox(): Promise<{ dir: string; jail: PathJail }> {
  const dir = await Deno.realPath(await Deno.makeTempDir());
  await Deno.mkdir(`${dir}/todo`);
  await Deno.writeTextFile(`${dir}/notes.txt`, "one two  three\nfour");
  return { dir, jail: new PathJail(definePolicy({ readRoots: [dir], writeRoots: [dir] })) };
}

Deno.test({
  name: "both toolkit versions count words, refuse a path outside the root, and add todos behind a probe",
  async fn() {
    for (const register of [typedTools, untypedTools]) {
      const { dir, jail } = await sandbox();
      const server = new Server({ name: "lines" });
      register(server, jail);
      const session = await connectInMemory(server);
      const call = (name: string, args: Record<string, unknown>, meta?: Record<string, unknown>) =>
        session.client.callTool({ name, arguments: args, ...(meta ? { _meta: meta } : {}) });
      assert.deepEqual((await call("word_count", { path: "notes.txt" })).content, [{ type: "text", text: "4 words" }]);
      assert.equal((await call("word_count", { path: "../etc/passwd" })).isError, true);
      const probe = await call("todo_add", { list: "home", item: "milk" }, { "forge.permission_patterns": true });
      assert.deepEqual(probe._meta?.["forge.permission_patterns"], ["write:todo/home"]);
      assert.deepEqual((await call("todo_add", { list: "home", item: "milk" })).content, [
        { type: "text", text: "1 items in home" },
      ]);
      assert.equal(await Deno.readTextFile(`${dir}/todo/home.md`), "- [normal] milk\n");
      await session.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "the McpServer + zod version does the same, its probe answered by hand",
  async fn() {
    const { dir, jail } = await sandbox();
    const server = new McpServer({ name: "lines", version: "0.0.0" });
    sdkTools(server, jail);
    const [a, b] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: "t", version: "0" });
    await Promise.all([server.connect(a), client.connect(b)]);
    const words = await client.callTool({ name: "word_count", arguments: { path: "notes.txt" } });
    assert.deepEqual(words.content, [{ type: "text", text: "4 words" }]);
    const probe = await client.callTool({
      name: "todo_add",
      arguments: { list: "home", item: "milk" },
      _meta: { "forge.permission_patterns": true },
    });
    assert.deepEqual(probe._meta?.["forge.permission_patterns"], ["write:todo/home"]);
    await client.callTool({ name: "todo_add", arguments: { list: "home", item: "milk", priority: "high" } });
    assert.equal(await Deno.readTextFile(`${dir}/todo/home.md`), "- [high] milk\n");
    await client.close();
    await server.close();
    await Deno.remove(dir, { recursive: true });
  },
});
