// test-permissions: --allow-read={tmp} --allow-write={tmp} --allow-env=TMPDIR
import assert from "node:assert/strict";
import { join } from "node:path";
import { probe } from "@forge/toolkit/testing";
import { toolSession } from "./_session.ts";

const TMP = Deno.env.get("TMPDIR") ?? "/tmp";
const perms = { read: [TMP], write: [TMP], env: ["TMPDIR"] };

Deno.test({
  name: "every tool is listed with a title and all four annotations",
  permissions: perms,
  async fn() {
    const session = await toolSession();
    const { tools } = await session.client.listTools();
    assert.ok(tools.length > 0);
    for (const tool of tools) {
      assert.ok(tool.title, `${tool.name} has a title`);
      for (const hint of ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] as const) {
        assert.equal(typeof tool.annotations?.[hint], "boolean", `${tool.name}: ${hint}`);
      }
    }
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    assert.equal(byName.get("read_note")?.annotations?.readOnlyHint, true);
    assert.equal(byName.get("write_note")?.annotations?.readOnlyHint, false);
    await session.close();
  },
});

Deno.test({
  name: "read_note and write_note work; a bad name is an isError result the model can fix",
  permissions: perms,
  async fn() {
    const { client, close, notes } = await toolSession();
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
  },
});

Deno.test({
  name: "probe: write_note answers write:note/<name> and writes nothing",
  permissions: perms,
  async fn() {
    const { client, close, notes } = await toolSession();
    assert.deepEqual((await probe(client, "write_note", { name: "plan", content: "x" })).patterns, ["write:note/plan"]);
    await assert.rejects(() => Deno.stat(join(notes, "plan.md")), Deno.errors.NotFound);
    assert.deepEqual((await probe(client, "read_note", { name: "todo" })).patterns, []);
    await close();
  },
});

Deno.test({
  name: "red team: a probe of a write that would be refused offers no pattern, says why and writes nothing",
  permissions: perms,
  async fn() {
    const { client, close, notes } = await toolSession();
    await Deno.mkdir(join(notes, "out.md"));
    for (
      const args of [{ name: "out", content: "x" }, { name: "big", content: "x".repeat(1025) }, {
        name: "Todo",
        content: "x",
      }]
    ) {
      const answer = await probe(client, "write_note", args);
      assert.deepEqual(answer.patterns, [], args.name);
      assert.equal(answer.isError, true, args.name);
    }
    const sur = await client.callTool({ name: "write_note", arguments: { name: "sur", content: "\uD800" } });
    assert.match(JSON.stringify(sur.content), /lone UTF-16 surrogate/);
    assert.deepEqual([...Deno.readDirSync(notes)].map((entry) => entry.name).sort(), ["out.md", "todo.md"]);
    assert.equal((await Deno.stat(join(notes, "out.md"))).isDirectory, true);
    assert.equal(await Deno.readTextFile(join(notes, "todo.md")), "buy milk");
    await close();
  },
});
