// test-permissions: --allow-read={tmp} --allow-write={tmp} --allow-env=TMPDIR
import assert from "node:assert/strict";
import { join } from "node:path";
import { Server } from "@forge/toolkit";
import { connectInMemory, probe } from "@forge/toolkit/testing";
import type { Config } from "../domain/config.ts";
import { Manager } from "../domain/notes.ts";
import { policyFor } from "../domain/policy.ts";
import { registerAll } from "./register.ts";

const TMP = Deno.env.get("TMPDIR") ?? "/tmp";
const perms = { read: [TMP], write: [TMP], env: ["TMPDIR"] };

async function session() {
  const notes = await Deno.realPath(await Deno.makeTempDir());
  await Deno.writeTextFile(join(notes, "todo.md"), "buy milk");
  const config: Config = { notes_dir: notes, max_bytes: 1024 };
  const server = new Server({ name: "my-server" });
  registerAll(server, new Manager(() => Promise.resolve(config), (c) => policyFor(c, undefined, [])));
  return { notes, ...(await connectInMemory(server)) };
}

Deno.test({
  name: "the tools are listed with titles and all four annotations",
  permissions: perms,
  async fn() {
    const { client, close, notes } = await session();
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name), ["read_note", "write_note"]);
    assert.equal(tools[0].annotations?.readOnlyHint, true);
    assert.equal(tools[1].annotations?.readOnlyHint, false);
    await close();
    await Deno.remove(notes, { recursive: true });
  },
});

Deno.test({
  name: "read_note and write_note work; a bad name is an isError result the model can fix",
  permissions: perms,
  async fn() {
    const { client, close, notes } = await session();
    assert.deepEqual((await client.callTool({ name: "read_note", arguments: { name: "todo" } })).content, [
      { type: "text", text: "buy milk" },
    ]);
    await client.callTool({ name: "write_note", arguments: { name: "idea", content: "fly" } });
    assert.equal(await Deno.readTextFile(join(notes, "idea.md")), "fly");
    const bad = await client.callTool({ name: "read_note", arguments: { name: "../../etc/passwd" } });
    assert.equal(bad.isError, true);
    assert.match(JSON.stringify(bad.content), /Cannot use note/);
    const missing = await client.callTool({ name: "read_note", arguments: {} });
    assert.match(JSON.stringify(missing.content), /Invalid argument \\"name\\"/);
    await close();
    await Deno.remove(notes, { recursive: true });
  },
});

Deno.test({
  name: "probe: write_note answers write:note/<name> and writes nothing",
  permissions: perms,
  async fn() {
    const { client, close, notes } = await session();
    assert.deepEqual((await probe(client, "write_note", { name: "plan", content: "x" })).patterns, ["write:note/plan"]);
    await assert.rejects(() => Deno.stat(join(notes, "plan.md")), Deno.errors.NotFound);
    assert.deepEqual((await probe(client, "read_note", { name: "todo" })).patterns, []);
    await close();
    await Deno.remove(notes, { recursive: true });
  },
});
