// test-permissions: --allow-run --allow-env --allow-read={repo}
// A handler names its questions (`{key: "user_name"}`), over a real server
// subprocess: in 2026-07-28 the names are the inputRequests keys and the
// client answers under them, in a task too; in the initialize era the same
// handler asks real requests; a bad name fails the call before anything is
// asked.
import assert from "node:assert/strict";
import { handshake, type RawServer, spawnRaw } from "@forge/toolkit/testing";

const script = new URL("./testdata/named_ask_server.ts", import.meta.url).pathname;
type Json = Record<string, unknown>;
const TASKS = "io.modelcontextprotocol/tasks";
const CAPS = { elicitation: {}, roots: {}, extensions: { [TASKS]: {} } };
const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": CAPS,
};
let nextId = 0;

async function ask(server: RawServer, method: string, params: Json): Promise<Json> {
  const id = ++nextId;
  await server.send(JSON.stringify({ jsonrpc: "2.0", id, method, params: { ...params, _meta: META } }));
  for (;;) {
    const msg = await server.next();
    if (msg.id === id) return msg;
  }
}

const ACCEPT_ADA = { action: "accept", content: { name: "Ada" } };
const ROOTS = { roots: [{ uri: "file:///work" }] };

Deno.test("2026-07-28: named questions are the inputRequests keys, and inputResponses under those keys answer them (with the requestState that asked them)", async () => {
  const server = await spawnRaw({ args: ["--no-prompt", script] });
  const first = (await ask(server, "tools/call", { name: "named", arguments: {} })).result as Json;
  assert.equal(first.resultType, "input_required");
  const requests = first.inputRequests as Record<string, { method: string }>;
  assert.deepEqual(Object.keys(requests), ["user_name", "client_roots"]);
  assert.equal(requests.user_name.method, "elicitation/create");
  assert.equal(requests.client_roots.method, "roots/list");
  const done = (await ask(server, "tools/call", {
    name: "named",
    arguments: {},
    inputResponses: { user_name: ACCEPT_ADA, client_roots: ROOTS },
    requestState: first.requestState,
  })).result as { content: { text: string }[] };
  assert.equal(done.content[0].text, "Hello, Ada! roots=file:///work");
  // The same answers with no requestState (the conformance suite's ignore-extra-params call): nothing says they were
  // asked, so they answer nothing and the questions are asked again.
  const stateless = (await ask(server, "tools/call", {
    name: "named",
    arguments: {},
    inputResponses: { user_name: ACCEPT_ADA, client_roots: ROOTS, extra: ACCEPT_ADA },
  })).result as Json;
  assert.equal(stateless.resultType, "input_required");
  assert.deepEqual(Object.keys(stateless.inputRequests as Json), ["user_name", "client_roots"]);
  await server.closeInput();
  assert.equal((await server.status()).code, 0);
});

Deno.test("a task's named question is its inputRequests key on tasks/get, answered by tasks/update under that key", async () => {
  const server = await spawnRaw({ args: ["--no-prompt", script] });
  const created = (await ask(server, "tools/call", { name: "named_task", arguments: {} })).result as Json;
  assert.equal(created.resultType, "task");
  let task: Json = {};
  for (let i = 0; i < 200 && task.status !== "input_required"; i++) {
    task = (await ask(server, "tasks/get", { taskId: created.taskId })).result as Json;
  }
  assert.deepEqual(Object.keys(task.inputRequests as Json), ["user_name"]);
  await ask(server, "tasks/update", { taskId: created.taskId, inputResponses: { user_name: ACCEPT_ADA } });
  for (let i = 0; i < 200 && task.status !== "completed"; i++) {
    task = (await ask(server, "tasks/get", { taskId: created.taskId })).result as Json;
  }
  assert.deepEqual((task.result as Json).content, [{ type: "text", text: "Hello, Ada!" }]);
  await server.closeInput();
  await server.status();
});

Deno.test("initialize era: the same named questions go to the client as requests, and their answers reach the handler", async () => {
  const server = await spawnRaw({ args: ["--no-prompt", script] });
  // The lifecycle: no request reaches a client before it says it is initialized (handshake() says so).
  await handshake(server, { protocolVersion: "2025-11-25", capabilities: { elicitation: {}, roots: {} } });
  await server.send(
    JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "named", arguments: {} } }),
  );
  const asked = [await server.next(), await server.next()];
  const answers: Record<string, unknown> = { "elicitation/create": ACCEPT_ADA, "roots/list": ROOTS };
  for (const request of asked) {
    await server.send(JSON.stringify({ jsonrpc: "2.0", id: request.id, result: answers[String(request.method)] }));
  }
  const reply = await server.next();
  assert.equal(reply.id, 1);
  assert.deepEqual((reply.result as Json).content, [{ type: "text", text: "Hello, Ada! roots=file:///work" }]);
  await server.closeInput();
  await server.status();
});

Deno.test("a key that is malformed, has a generated key's form or is used twice fails the call (-32603) before it is asked", async () => {
  const server = await spawnRaw({ args: ["--no-prompt", script] });
  const cases = [["bad key"], ["x".repeat(65)], ["elicitation-1"], ["input-3"], ["same", "same"]];
  for (const keys of cases) {
    let reply = await ask(server, "tools/call", { name: "keyed", arguments: { keys } });
    const first = reply.result as Json | undefined;
    // A good first key is asked; the retry with its answer reaches the duplicate.
    if (first?.resultType === "input_required") {
      assert.deepEqual(Object.keys(first.inputRequests as Json), [keys[0]]);
      reply = await ask(server, "tools/call", {
        name: "keyed",
        arguments: { keys },
        inputResponses: { [keys[0]]: ACCEPT_ADA },
        requestState: first.requestState,
      });
    }
    assert.equal((reply.error as { code: number } | undefined)?.code, -32603, JSON.stringify(keys));
  }
  assert.match(server.stderr(), /the key "bad key" is not 1-64 characters/);
  assert.match(server.stderr(), /the key "elicitation-1" has the form of a generated key/);
  assert.match(server.stderr(), /the key "same" is already used in this call/);
  await server.closeInput();
  await server.status();
});
