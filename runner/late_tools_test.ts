// test-permissions: --allow-run --allow-read={repo} --allow-env={child-env}
// Tools registered while a run() server serves, whose schemas need the JSON Schema engine that no tool loaded at
// the start: one real server over real stdio (./testdata/late_server.ts).
import assert from "node:assert/strict";
import { handshake, type RawServer, spawnRaw } from "@forge/toolkit/testing";

const server = new URL("./testdata/late_server.ts", import.meta.url).pathname;
const repo = new URL("..", import.meta.url).pathname;
const perms: Deno.PermissionOptions = { run: true, read: [repo], env: "inherit" };

interface Reply {
  result?: { content: { text: string }[]; tools: { name: string }[] };
  error?: { code: number };
}

let id = 0;
/** Sends a request and returns its reply; list_changed notifications met on the way are counted in `changes`. */
async function request(raw: RawServer, method: string, params: unknown, changes: string[]): Promise<Reply> {
  const sent = ++id;
  await raw.send(JSON.stringify({ jsonrpc: "2.0", id: sent, method, params }));
  for (;;) {
    const message = await raw.next();
    if (message.method === "notifications/tools/list_changed") changes.push("list_changed");
    else if (message.id === sent) return message as Reply;
    else assert.fail(`unexpected message ${JSON.stringify(message)}`);
  }
}

Deno.test({
  name: "a late tool waiting for the engine holds its name (a second addTool of it throws at once), is listed " +
    "once compiled with a list change, and a late schema the engine refuses is named on stderr and never listed",
  permissions: perms,
  async fn() {
    const raw = await spawnRaw({ args: [server] });
    await handshake(raw);
    const changes: string[] = [];
    const added = await request(raw, "tools/call", { name: "add", arguments: { which: "late" } }, changes);
    assert.deepEqual(added.result!.content[0].text.split("\n"), [
      "engine loaded: false",
      "bounded: added",
      "remote: added",
      // Not in the table yet, but taken: the first addTool returned, so it is the one that stays.
      'bounded: Cannot register tool "bounded": a tool with this name is already registered (tool names must be ' +
      "unique within a server)",
    ]);
    // The refusal reaches stderr only, since addTool has returned; the name is free again after it.
    await raw.waitForStderr('late: Cannot register tool "remote": inputSchema/properties/a/$ref');
    while (changes.length === 0) {
      const message = await raw.next();
      assert.equal(message.method, "notifications/tools/list_changed");
      changes.push("list_changed");
    }
    const listed = await request(raw, "tools/list", {}, changes);
    assert.deepEqual(listed.result!.tools.map((t) => t.name), ["add", "bounded"]);
    const refused = await request(raw, "tools/call", { name: "bounded", arguments: { s: "abc" } }, changes);
    assert.equal(
      refused.result!.content[0].text,
      'Invalid argument "s": must be at most 2 characters long (maxLength), got 3',
    );
    const first = await request(raw, "tools/call", { name: "bounded", arguments: { s: "ab" } }, changes);
    assert.equal(first.result!.content[0].text, "first bounded");
    const unknown = await request(raw, "tools/call", { name: "remote", arguments: {} }, changes);
    assert.equal(unknown.error!.code, -32602);
    const again = await request(raw, "tools/call", { name: "add", arguments: { which: "plain" } }, changes);
    assert.deepEqual(again.result!.content[0].text.split("\n"), ["engine loaded: true", "remote: added"]);
    const plain = await request(raw, "tools/call", { name: "remote", arguments: {} }, changes);
    assert.equal(plain.result!.content[0].text, "plain remote");
    assert.deepEqual(changes, ["list_changed", "list_changed"]);
    await raw.closeInput();
    assert.equal((await raw.status()).code, 0);
  },
});
