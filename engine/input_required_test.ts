// test-permissions: --allow-run --allow-env --allow-read --allow-write
// A handler's questions to its client, over a real subprocess, in both eras:
// input-required results with @modelcontextprotocol/client 2.4 (2026-07-28),
// real server-to-client requests with SDK 1.32.2 (initialize era), and a raw
// client for what a real client would never send (forged, altered and
// transplanted requestState), and the MCP Inspector CLI 2.12.0 in stateless mode.
import assert from "node:assert/strict";
import { join } from "node:path";
import { Client as SessionClient } from "@modelcontextprotocol/sdk/client";
import { StdioClientTransport as SessionStdio } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { verifyAuditTrail } from "../middleware/mod.ts";
import { childEnv, type RawServer, spawnRaw } from "../testing/mod.ts";
// The examples' Inspector runner (npx, clean environment, JSON parsed): one copy for every Inspector test.
import { inspector } from "../examples/inspector.ts";

const fixture = new URL("./testdata/ask_server.ts", import.meta.url).pathname;
// --deny-run grants nothing: without a permission flag Deno's child_process passes the parent's permissions on.
const serverArgs = ["run", "--quiet", "--no-prompt", "--deny-run", fixture];

type Answer = { action: "accept" | "decline" | "cancel"; content?: Record<string, unknown> };
const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "raw", version: "0" },
};

async function stateless(capabilities: Record<string, unknown>, answer?: (message: string) => Answer) {
  const transport = new StdioClientTransport({ command: Deno.execPath(), args: serverArgs, stderr: "pipe" });
  const client = new Client({ name: "stateless", version: "2.4.0" }, {
    capabilities,
    versionNegotiation: { mode: { pin: "2026-07-28" } } as never,
  });
  const asked: string[] = [];
  if (answer) {
    client.setRequestHandler("elicitation/create", (request) => {
      const message = String((request.params as { message: string }).message);
      asked.push(message);
      return answer(message) as never;
    });
  }
  if (capabilities.roots) {
    client.setRequestHandler("roots/list", () => ({ roots: [{ uri: "file:///work/project", name: "project" }] }));
  }
  await client.connect(transport);
  // "modern" and "legacy" are the SDK's names for the stateless and session eras.
  assert.equal(client.getProtocolEra(), "modern");
  return { client, asked };
}

const textOf = (r: unknown) => (r as { content: { text: string }[] }).content[0].text;

Deno.test("2026-07-28: a handler's elicitation becomes input_required; the client's retry carries the answer", async () => {
  const { client, asked } = await stateless(
    { elicitation: {} },
    () => ({ action: "accept", content: { name: "Ada" } }),
  );
  const r = await client.callTool({ name: "greet", arguments: { greeting: "Hello" } });
  assert.equal(textOf(r), "Hello, Ada");
  assert.deepEqual(asked, ["What is your name?"]);
  // The handler ran twice (once to ask, once with the answer) and nothing else ran.
  const counts = await client.callTool({ name: "counts", arguments: {} });
  assert.deepEqual(JSON.parse(textOf(counts)), { greetRuns: 2, deletions: 0 });
  await client.close();
});

Deno.test("2026-07-28: questions asked together go in one round; a later one takes another round", async () => {
  const answers: Record<string, Answer> = {
    "Colour?": { action: "accept", content: { color: "red" } },
    "Sure?": { action: "accept", content: { sure: true } },
    "Last?": { action: "accept", content: { last: "yes" } },
  };
  const { client, asked } = await stateless({ elicitation: {} }, (m) => answers[m]);
  const r = await client.callTool({ name: "survey", arguments: {} });
  assert.deepEqual(JSON.parse(textOf(r)), { color: "red", sure: true, last: "yes" });
  // Each question was put to the user once: earlier answers travel in the sealed state.
  assert.deepEqual(asked.sort(), ["Colour?", "Last?", "Sure?"]);
  await client.close();
});

Deno.test("2026-07-28: a declined elicitation reaches the handler as decline", async () => {
  const { client } = await stateless({ elicitation: {} }, () => ({ action: "decline" }));
  assert.equal(textOf(await client.callTool({ name: "greet", arguments: { greeting: "Hi" } })), "no name (decline)");
  await client.close();
});

Deno.test("2026-07-28: a client without elicitation gets -32021 with data.requiredCapabilities", async () => {
  const { client } = await stateless({});
  await assert.rejects(client.callTool({ name: "greet", arguments: { greeting: "Hi" } }), (err: unknown) => {
    const e = err as { code: number; data: unknown };
    assert.equal(e.code, -32021);
    assert.deepEqual(e.data, { requiredCapabilities: { elicitation: {} } });
    return true;
  });
  // A handler that catches MissingCapabilityError falls back instead.
  assert.equal(textOf(await client.callTool({ name: "maybe_ask", arguments: {} })), "not asked: no elicitation");
  await client.close();
});

Deno.test("2026-07-28: roots/list goes out as an input request and its answer reaches the handler", async () => {
  const { client } = await stateless({ roots: {} });
  const r = await client.callTool({ name: "roots", arguments: {} });
  assert.deepEqual(JSON.parse(textOf(r)), { roots: ["file:///work/project"] });
  await client.close();
});

Deno.test("2026-07-28: a confirmed pattern tool asks first; decline runs nothing and says so", async () => {
  let verdict: Answer = { action: "decline" };
  const { client, asked } = await stateless({ elicitation: {} }, () => verdict);
  const declined = await client.callTool({ name: "delete", arguments: { path: "a.txt" } });
  assert.equal(declined.isError, true);
  assert.match(textOf(declined), /user declined the confirmation; nothing was done/);
  assert.deepEqual(JSON.parse(textOf(await client.callTool({ name: "counts", arguments: {} }))).deletions, 0);
  verdict = { action: "accept", content: {} };
  const accepted = await client.callTool({ name: "delete", arguments: { path: "a.txt" } });
  assert.equal(textOf(accepted), "deleted a.txt (accepted)", "the handler sees the confirmation");
  const unasked = await client.callTool({ name: "delete", arguments: { path: "scratch" } });
  assert.equal(textOf(unasked), "deleted scratch", "nothing asked: req.confirmation is undefined");
  assert.deepEqual(asked, ["Delete a.txt?", "Delete a.txt?"]);
  assert.deepEqual(JSON.parse(textOf(await client.callTool({ name: "counts", arguments: {} }))).deletions, 2);
  await client.close();
});

Deno.test("2026-07-28: sampling/createMessage goes out as an input request; the model's answer reaches the handler", async () => {
  const { client } = await stateless({ sampling: {} });
  client.setRequestHandler("sampling/createMessage", () =>
    ({
      role: "assistant",
      content: { type: "text", text: "autumn moon" },
      model: "test-model",
      stopReason: "endTurn",
    }) as never);
  assert.equal(textOf(await client.callTool({ name: "haiku", arguments: {} })), "test-model: autumn moon");
  await client.close();
});

Deno.test("2026-07-28: a call may ask in 8 rounds; a 9th question is refused as an internal error", async () => {
  const { client } = await stateless({ elicitation: {} }, () => ({ action: "accept", content: {} }));
  assert.equal(textOf(await client.callTool({ name: "many", arguments: { n: 8 } })), "asked 8");
  await assert.rejects(client.callTool({ name: "many", arguments: { n: 9 } }), (err: { code: number }) => {
    assert.equal(err.code, -32603);
    return true;
  });
  await client.close();
});

// ---- what a real client would never send: a raw client ----

async function rawCall(server: RawServer, id: number, params: Record<string, unknown>, caps = { elicitation: {} }) {
  const meta = { ...ENVELOPE, "io.modelcontextprotocol/clientCapabilities": caps };
  await server.send(JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { ...params, _meta: meta } }));
  for (;;) {
    const msg = await server.next();
    if (msg.id === id) return msg as { result?: Record<string, unknown>; error?: { code: number; message: string } };
  }
}

async function firstRound(server: RawServer, id: number, name: string, args: Record<string, unknown>) {
  const r = await rawCall(server, id, { name, arguments: args });
  assert.equal(r.result?.resultType, "input_required", JSON.stringify(r));
  const inputRequests = r.result!.inputRequests as Record<string, { method: string; params: unknown }>;
  return { keys: Object.keys(inputRequests), inputRequests, state: r.result!.requestState as string };
}

Deno.test("requestState: forged, altered, transplanted into another call or tool → -32602, the handler never runs", async () => {
  const server = await spawnRaw({ args: ["--quiet", "--no-prompt", "--deny-run", fixture] });
  try {
    const first = await firstRound(server, 1, "greet", { greeting: "Hi" });
    assert.deepEqual(first.keys, ["elicitation-1"]);
    assert.equal(first.inputRequests["elicitation-1"].method, "elicitation/create");
    const responses = { "elicitation-1": { action: "accept", content: { name: "Eve" } } };
    const retry = (id: number, name: string, args: Record<string, unknown>, requestState: string) =>
      rawCall(server, id, { name, arguments: args, inputResponses: responses, requestState });

    const [payload, mac] = first.state.split(".");
    // Another first character: all of it is data, where the last one's low bits may be padding a decoder ignores.
    const forged = `${payload}.${mac[0] === "A" ? "B" : "A"}${mac.slice(1)}`;
    const e1 = await retry(2, "greet", { greeting: "Hi" }, forged);
    assert.equal(e1.error?.code, -32602);
    assert.match(e1.error!.message, /requestState refused: it was not issued by this server process, or was altered/);

    const edited = JSON.parse(atob(payload.replaceAll("-", "+").replaceAll("_", "/")));
    edited.tool = "delete";
    const reMac = `${btoa(JSON.stringify(edited)).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "")}.${mac}`;
    assert.equal((await retry(3, "greet", { greeting: "Hi" }, reMac)).error?.code, -32602);

    const altered = await retry(4, "greet", { greeting: "Bye" }, first.state);
    assert.equal(altered.error?.code, -32602);
    assert.match(altered.error!.message, /belongs to another call/);

    const otherTool = await retry(5, "delete", { path: "x" }, first.state);
    assert.equal(otherTool.error?.code, -32602);
    assert.match(otherTool.error!.message, /belongs to another call/);

    assert.equal((await retry(6, "greet", { greeting: "Hi" }, "not-a-state")).error?.code, -32602);
    // Keys reordered in the arguments are the same call (canonical JSON); the state opens.
    const ok = await retry(7, "greet", { greeting: "Hi" }, first.state);
    assert.deepEqual(ok.result?.content, [{ type: "text", text: "Hi, Eve" }]);
    // Only the first run (asking) and the accepted retry ran the handler.
    const counts = await rawCall(server, 8, { name: "counts", arguments: {} });
    assert.deepEqual(JSON.parse((counts.result?.content as { text: string }[])[0].text).greetRuns, 2);
  } finally {
    await server.status();
  }
});

Deno.test("a probe of a confirmed tool never asks: it answers the patterns, and nothing runs", async () => {
  const server = await spawnRaw({ args: ["--quiet", "--no-prompt", "--deny-run", fixture] });
  try {
    const meta = {
      ...ENVELOPE,
      "io.modelcontextprotocol/clientCapabilities": { elicitation: {} },
      "forge.permission_patterns": true,
    };
    const params = { name: "delete", arguments: { path: "p" }, _meta: meta };
    await server.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params }));
    const probe = await server.next();
    const result = probe.result as Record<string, unknown>;
    assert.equal(result.resultType, "complete");
    assert.deepEqual((result._meta as Record<string, unknown>)["forge.permission_patterns"], ["delete:p"]);
  } finally {
    await server.status();
  }
});

Deno.test("a probe carrying an accepted requestState runs nothing and spends nothing: the acceptance then runs once", async () => {
  const server = await spawnRaw({ args: ["--quiet", "--no-prompt", "--deny-run", fixture] });
  try {
    const first = await firstRound(server, 1, "delete", { path: "a" });
    const answered = {
      name: "delete",
      arguments: { path: "a" },
      inputResponses: { [first.keys[0]]: { action: "accept", content: {} } },
      requestState: first.state,
    };
    const meta = {
      ...ENVELOPE,
      "io.modelcontextprotocol/clientCapabilities": { elicitation: {} },
      "forge.permission_patterns": true,
    };
    for (const id of [2, 3]) {
      await server.send(
        JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { ...answered, _meta: meta } }),
      );
      const probe = (await server.next()).result as Record<string, unknown>;
      assert.deepEqual((probe._meta as Record<string, unknown>)["forge.permission_patterns"], ["delete:a"]);
    }
    const counts = async (id: number) => JSON.parse(textOf((await rawCall(server, id, { name: "counts" })).result));
    assert.equal((await counts(4)).deletions, 0, "no probe ran the action");
    assert.equal(textOf((await rawCall(server, 5, answered)).result), "deleted a (accepted)");
    assert.equal((await rawCall(server, 6, answered)).error?.code, -32602, "the acceptance is spent by its run");
    assert.equal((await counts(7)).deletions, 1);
  } finally {
    assert.equal((await server.status()).code, 0);
  }
});

Deno.test("inputResponses: an answer that breaks the form's schema is -32602; unknown keys are ignored", async () => {
  const server = await spawnRaw({ args: ["--quiet", "--no-prompt", "--deny-run", fixture] });
  try {
    const first = await firstRound(server, 1, "greet", { greeting: "Hi" });
    const bad = await rawCall(server, 2, {
      name: "greet",
      arguments: { greeting: "Hi" },
      inputResponses: { "elicitation-1": { action: "accept", content: { name: 42 } }, stray: { action: "accept" } },
      requestState: first.state,
    });
    assert.equal(bad.error?.code, -32602);
    assert.match(bad.error!.message, /inputResponses: Cannot use the client's answer to elicitation\/create/);
    // Without the answer the retry asks again, with a fresh state.
    const again = await rawCall(server, 3, {
      name: "greet",
      arguments: { greeting: "Hi" },
      inputResponses: { stray: {} },
      requestState: first.state,
    });
    assert.equal(again.result?.resultType, "input_required");
    const notObject = await rawCall(server, 4, { name: "greet", arguments: { greeting: "Hi" }, inputResponses: [] });
    assert.equal(notObject.error?.code, -32602);
  } finally {
    await server.status();
  }
});

// ---- the initialize era: real server-to-client requests ----

function session(capabilities: Record<string, unknown>, args: string[] = []) {
  const transport = new SessionStdio({ command: Deno.execPath(), args: [...serverArgs, ...args], stderr: "pipe" });
  const client = new SessionClient({ name: "session", version: "1.32.2" }, { capabilities });
  return { client, transport };
}

Deno.test("initialize era: elicitation/create and roots/list go to the SDK 1.32.2 client and its answers come back", async () => {
  const { client, transport } = session({ elicitation: {}, roots: { listChanged: true } });
  let rootsAsked = 0;
  let root = "file:///first";
  client.setRequestHandler(ElicitRequestSchema, () => ({ action: "accept", content: { name: "Grace" } }));
  client.setRequestHandler(ListRootsRequestSchema, () => (rootsAsked++, { roots: [{ uri: root }] }));
  await client.connect(transport);
  const r = await client.callTool({ name: "greet", arguments: { greeting: "Hello" } });
  assert.equal(textOf(r), "Hello, Grace");
  const counts = await client.callTool({ name: "counts", arguments: {} });
  assert.equal(JSON.parse(textOf(counts)).greetRuns, 1, "in this era the handler runs once");
  assert.deepEqual(JSON.parse(textOf(await client.callTool({ name: "roots", arguments: {} }))).roots, [root]);
  assert.deepEqual(JSON.parse(textOf(await client.callTool({ name: "roots", arguments: {} }))).roots, [root]);
  assert.equal(rootsAsked, 1, "roots are asked once until the client says they changed");
  root = "file:///second";
  await client.sendRootsListChanged();
  assert.deepEqual(JSON.parse(textOf(await client.callTool({ name: "roots", arguments: {} }))).roots, [root]);
  assert.equal(rootsAsked, 2);
  await client.close();
});

Deno.test("initialize era: sampling/createMessage goes to the SDK 1.32.2 client and the model's answer comes back", async () => {
  const { client, transport } = session({ sampling: {} });
  client.setRequestHandler(CreateMessageRequestSchema, () => ({
    role: "assistant",
    content: { type: "text", text: "spring rain" },
    model: "session-model",
  }));
  await client.connect(transport);
  assert.equal(textOf(await client.callTool({ name: "haiku", arguments: {} })), "session-model: spring rain");
  await client.close();
});

Deno.test("initialize era: client 2.4 left to negotiate falls back to initialize and answers the same elicitation", async () => {
  const transport = new StdioClientTransport({ command: Deno.execPath(), args: serverArgs, stderr: "pipe" });
  const client = new Client({ name: "v2-session", version: "2.4.0" }, { capabilities: { elicitation: {} } });
  client.setRequestHandler("elicitation/create", () => ({ action: "accept", content: { name: "Lin" } }) as never);
  await client.connect(transport);
  assert.equal(client.getProtocolEra(), "legacy");
  assert.equal(textOf(await client.callTool({ name: "greet", arguments: { greeting: "Hi" } })), "Hi, Lin");
  assert.equal(JSON.parse(textOf(await client.callTool({ name: "counts", arguments: {} }))).greetRuns, 1);
  await client.close();
});

Deno.test("initialize era: without the capability the call is an isError result, or the handler's fallback", async () => {
  const { client, transport } = session({});
  await client.connect(transport);
  const r = await client.callTool({ name: "greet", arguments: { greeting: "Hi" } });
  assert.equal(r.isError, true);
  assert.match(textOf(r), /did not declare the elicitation capability/);
  assert.equal(textOf(await client.callTool({ name: "maybe_ask", arguments: {} })), "not asked: no elicitation");
  const confirm = await client.callTool({ name: "delete", arguments: { path: "a" } });
  assert.equal(confirm.isError, true, "a confirmed tool refuses to run unconfirmed by default");
  assert.match(textOf(confirm), /it asks the user to confirm each call, and this client cannot ask/);
  assert.equal(JSON.parse(textOf(await client.callTool({ name: "counts", arguments: {} }))).deletions, 0);
  await client.close();
});

Deno.test("initialize era: a question the client never answers ends at the call's deadline, and the server goes on", async () => {
  const server = await spawnRaw({ args: ["--quiet", "--no-prompt", "--deny-run", fixture, "--timeout=300"] });
  try {
    const init = {
      protocolVersion: "2025-11-25",
      capabilities: { elicitation: {} },
      clientInfo: { name: "raw", version: "0" },
    };
    await server.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: init }));
    await server.next();
    await server.send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
    await server.send(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "greet", arguments: { greeting: "x" } },
      }),
    );
    const request = await server.next();
    assert.equal(request.method, "elicitation/create");
    assert.equal(typeof request.id, "string");
    // A response to an id the server never used is dropped.
    await server.send(JSON.stringify({ jsonrpc: "2.0", id: "forge-999", result: { action: "accept" } }));
    const cancelled = await server.next();
    assert.equal(cancelled.method, "notifications/cancelled");
    assert.equal((cancelled.params as { requestId: string }).requestId, request.id);
    const reply = await server.next();
    assert.equal(reply.id, 2);
    assert.equal((reply.error as { code: number }).code, -32001);
    // The late answer is dropped; the server still serves.
    await server.send(JSON.stringify({ jsonrpc: "2.0", id: request.id, result: { action: "accept", content: {} } }));
    await server.send(JSON.stringify({ jsonrpc: "2.0", id: 3, method: "ping" }));
    assert.deepEqual((await server.next()).id, 3);
  } finally {
    await server.status();
  }
});

Deno.test("initialize era: cancelling the call abandons its question: the client hears of it, the call gets no reply", async () => {
  const server = await spawnRaw({ args: ["--quiet", "--no-prompt", "--deny-run", fixture] });
  try {
    const init = {
      protocolVersion: "2025-06-18",
      capabilities: { elicitation: {} },
      clientInfo: { name: "r", version: "0" },
    };
    await server.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: init }));
    await server.next();
    await server.send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
    const params = { name: "greet", arguments: { greeting: "x" } };
    await server.send(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params }));
    const question = await server.next();
    assert.equal(question.method, "elicitation/create");
    await server.send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 2 } }));
    const cancelled = await server.next();
    assert.deepEqual([cancelled.method, (cancelled.params as { requestId: unknown }).requestId], [
      "notifications/cancelled",
      question.id,
    ]);
    await server.send(JSON.stringify({ jsonrpc: "2.0", id: 3, method: "ping" }));
    assert.equal((await server.next()).id, 3, "no reply to the cancelled call came first");
  } finally {
    await server.status();
  }
});

/** Initializes a raw session (2025-06-18) declaring `capabilities`, and says initialized. */
async function handshake(server: RawServer, capabilities: Record<string, unknown>): Promise<void> {
  const init = { protocolVersion: "2025-06-18", capabilities, clientInfo: { name: "raw", version: "0" } };
  await server.send(JSON.stringify({ jsonrpc: "2.0", id: "init", method: "initialize", params: init }));
  assert.equal((await server.next()).id, "init");
  await server.send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
}

const sessionCall = (id: unknown, name: string, args: Record<string, unknown> = {}) =>
  JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } });

Deno.test("initialize era: an answer to roots/list of the wrong shape fails its call and is not kept: the next call asks again", async () => {
  // Before, the malformed answer was kept as the roots until notifications/roots/list_changed: every later call failed
  // on it without asking the client again.
  const server = await spawnRaw({ args: ["--quiet", "--no-prompt", "--deny-run", fixture] });
  try {
    await handshake(server, { roots: {} });
    await server.send(sessionCall(2, "roots"));
    const first = await server.next();
    assert.equal(first.method, "roots/list");
    await server.send(JSON.stringify({ jsonrpc: "2.0", id: first.id, result: { roots: "not a list" } }));
    const failed = await server.next();
    assert.equal(failed.id, 2);
    assert.equal((failed.result as { isError?: boolean }).isError, true);
    assert.match(textOf(failed.result), /"roots" must be an array/);
    await server.send(sessionCall(3, "roots"));
    const again = await server.next();
    assert.equal(again.method, "roots/list", "the client is asked again");
    await server.send(JSON.stringify({ jsonrpc: "2.0", id: again.id, result: { roots: [{ uri: "file:///p" }] } }));
    const answered = await server.next();
    assert.equal(answered.id, 3);
    assert.deepEqual(JSON.parse(textOf(answered.result)).roots, ["file:///p"]);
    // The well-formed answer is kept: the next call is answered without a question.
    await server.send(sessionCall(4, "roots"));
    const kept = await server.next();
    assert.equal(kept.id, 4);
    assert.deepEqual(JSON.parse(textOf(kept.result)).roots, ["file:///p"]);
  } finally {
    assert.equal((await server.status()).code, 0);
  }
});

Deno.test("initialize era: an answer over maxMessageBytes fails its question at once and is never answered itself", async () => {
  // Before, the server wrote a -32600 "Message too large" error under its own request's id (a reply to a response)
  // and the question waited for the call's deadline (30 s by default) for an answer that had been thrown away.
  const server = await spawnRaw({
    args: ["--quiet", "--no-prompt", "--deny-run", fixture, "--max-message-bytes=4096", "--timeout=600000"],
  });
  try {
    await handshake(server, { elicitation: {} });
    await server.send(sessionCall(2, "greet", { greeting: "Hi" }));
    const question = await server.next();
    assert.equal(question.method, "elicitation/create");
    const name = "x".repeat(10_000);
    await server.send(
      JSON.stringify({ jsonrpc: "2.0", id: question.id, result: { action: "accept", content: { name } } }),
    );
    const reply = await server.next();
    assert.equal(reply.id, 2, `nothing is sent under the server's own request id: ${JSON.stringify(reply)}`);
    assert.equal((reply.result as { isError?: boolean }).isError, true);
    assert.match(
      textOf(reply.result),
      /answer to elicitation\/create: its response of \d+ bytes is over maxMessageBytes/,
    );
    // Oversized responses to that id again, to an id never used, and an error one: dropped, never answered.
    await server.send(JSON.stringify({ jsonrpc: "2.0", id: question.id, result: { action: "accept", name } }));
    await server.send(JSON.stringify({ jsonrpc: "2.0", id: 2, error: { code: 1, message: name } }));
    await server.send(JSON.stringify({ result: { name }, id: "forge-999", jsonrpc: "2.0" }));
    // A request that large is still refused under its id.
    await server.send(sessionCall(3, "greet", { greeting: name }));
    const refused = await server.next();
    assert.equal(refused.id, 3, JSON.stringify(refused));
    assert.equal((refused.error as { code: number }).code, -32600);
    await server.send(JSON.stringify({ jsonrpc: "2.0", id: 4, method: "ping" }));
    assert.equal((await server.next()).id, 4);
  } finally {
    assert.equal((await server.status()).code, 0);
  }
});

Deno.test('initialize era: an answer without "jsonrpc": "2.0" fails its question at once as malformed and is never answered itself', async () => {
  // Before, it was taken for an invalid request: the server answered -32600 under its own question's id (a reply to a
  // response) and the question waited for the call's deadline.
  const server = await spawnRaw({ args: ["--quiet", "--no-prompt", "--deny-run", fixture, "--timeout=600000"] });
  try {
    await handshake(server, { elicitation: {} });
    for (const [id, jsonrpc] of [[2, undefined], [3, "1.0"]] as const) {
      await server.send(sessionCall(id, "greet", { greeting: "Hi" }));
      const question = await server.next();
      assert.equal(question.method, "elicitation/create");
      await server.send(
        JSON.stringify({ jsonrpc, id: question.id, result: { action: "accept", content: { name: "A" } } }),
      );
      const reply = await server.next();
      assert.equal(reply.id, id, `nothing is sent under the server's own request id: ${JSON.stringify(reply)}`);
      assert.match(
        textOf(reply.result),
        /answer to elicitation\/create: its response is malformed \("jsonrpc" must be "2.0"\)/,
      );
    }
    await server.send(JSON.stringify({ jsonrpc: "2.0", id: 4, method: "ping" }));
    assert.equal((await server.next()).id, 4);
  } finally {
    assert.equal((await server.status()).code, 0);
  }
});

Deno.test("initialize era: answers under ids the server did not use for its question are dropped unanswered, the client's own call ids and ids that only look alike included", async () => {
  const server = await spawnRaw({ args: ["--quiet", "--no-prompt", "--deny-run", fixture] });
  try {
    await handshake(server, { elicitation: {} });
    await server.send(sessionCall(2, "greet", { greeting: "Hi" }));
    const question = await server.next();
    const id = String(question.id);
    assert.match(id, /^forge-\d+$/);
    const n = id.slice("forge-".length);
    const accept = (id: string) => `{"jsonrpc":"2.0","id":${id},"result":{"action":"accept","content":{"name":"Eve"}}}`;
    // The client's own call in flight (2), numbers in every notation, ids that differ by case, padding, a NUL, a
    // leading zero, a long string, and the question's id inside an array: none is the question's.
    const others = [
      "2",
      '"2"',
      `${n}`,
      `${n}.0`,
      "-0",
      "9007199254740993",
      "1e400",
      `"FORGE-${n}"`,
      `" ${id}"`,
      `"${id} "`,
      `"forge-0${n}"`,
      `"${id}\\u0000"`,
      JSON.stringify("f".repeat(100_000)),
      `["${id}"]`,
      `{"id":"${id}"}`,
    ];
    for (const other of others) await server.send(accept(other));
    await server.send(JSON.stringify({ jsonrpc: "2.0", id: "ping", method: "ping" }));
    const after = await server.next();
    assert.equal(
      after.id,
      "ping",
      `none of them was answered, and the question still waits: ${JSON.stringify(after).slice(0, 300)}`,
    );
    // The question's own id, written with an escape, is the same string: it answers.
    await server.send(accept(`"forge\\u002d${n}"`));
    const reply = await server.next();
    assert.equal(reply.id, 2);
    assert.equal(textOf(reply.result), "Hi, Eve");
  } finally {
    assert.equal((await server.status()).code, 0);
  }
});

Deno.test("initialize era: at end of input a question left unanswered fails at once: its call is answered by its handler, the client hears the question is cancelled, exit 0", async () => {
  // Before, the shutdown waited all of its grace period (5 s) for an answer that could no longer be read, then
  // answered the call "Server is shutting down": the handler never learned why, and could not answer otherwise.
  const server = await spawnRaw({ args: ["--quiet", "--no-prompt", "--deny-run", fixture] });
  await handshake(server, { elicitation: {} });
  await server.send(sessionCall(2, "greet", { greeting: "Hi" }));
  await server.send(sessionCall(3, "many", { n: 2 }));
  const asked = [await server.next(), await server.next()];
  assert.deepEqual(asked.map((m) => m.method), ["elicitation/create", "elicitation/create"]);
  // Call 3's first question is answered: its second is asked, and left, as call 2's is.
  const many = asked.find((m) => (m.params as { message: string }).message === "Question 1?")!;
  await server.send(JSON.stringify({ jsonrpc: "2.0", id: many.id, result: { action: "accept", content: {} } }));
  const second = await server.next();
  assert.equal((second.params as { message: string }).message, "Question 2?");
  await server.closeInput();
  const rest: Record<string, unknown>[] = [];
  for (let i = 0; i < 4; i++) rest.push(await server.next());
  const cancelled = rest.filter((m) => m.method === "notifications/cancelled").map((m) =>
    (m.params as { requestId: unknown }).requestId
  );
  assert.deepEqual(cancelled.sort(), [asked.find((m) => m !== many)!.id, second.id].sort());
  for (const id of [2, 3]) {
    const reply = rest.find((m) => m.id === id);
    assert.equal((reply?.result as { isError?: boolean })?.isError, true, JSON.stringify(rest));
    assert.match(textOf(reply!.result), /answer to elicitation\/create: the server reads no more input/);
  }
  assert.equal((await server.status()).code, 0);
  assert.equal(server.lines.length, 8, "nothing else was written");
});

Deno.test("initialize era: at end of input a question still waiting for notifications/initialized fails at once, and nothing is sent", async () => {
  // Before, it waited all of the shutdown's grace period for an initialized that could no longer be read.
  const server = await spawnRaw({ args: ["--quiet", "--no-prompt", "--deny-run", fixture] });
  const init = {
    protocolVersion: "2025-03-26",
    capabilities: { elicitation: {} },
    clientInfo: { name: "r", version: "0" },
  };
  await server.send(JSON.stringify({ jsonrpc: "2.0", id: "init", method: "initialize", params: init }));
  assert.equal((await server.next()).id, "init");
  await server.send(sessionCall(2, "greet", { greeting: "Hi" }));
  await server.closeInput();
  const reply = await server.next();
  assert.equal(reply.id, 2, JSON.stringify(reply));
  assert.equal((reply.result as { isError?: boolean }).isError, true);
  assert.match(textOf(reply.result), /answer to elicitation\/create: the server reads no more input/);
  assert.equal((await server.status()).code, 0);
  assert.equal(server.lines.length, 2, "no request went to a client that never said initialized");
});

Deno.test("initialize era: a question begun after the end of input fails at once, whether or not the client said notifications/initialized, and nothing more is sent", async () => {
  // The handler asks, its question fails at the end of input, and it asks again. Before, a second question to a client
  // that never said initialized waited for it all of the shutdown's grace period (60 s here), then its call answered
  // -32004: the waits were released once, at the end of input, and one begun after was not.
  const eofMessage = "Cannot get the client's answer to elicitation/create: the server reads no more input";
  for (const initialized of [false, true]) {
    const server = await spawnRaw({ args: ["--quiet", "--no-prompt", "--deny-run", fixture, "--grace=60000"] });
    const init = {
      protocolVersion: "2025-06-18",
      capabilities: { elicitation: {} },
      clientInfo: { name: "r", version: "0" },
    };
    await server.send(JSON.stringify({ jsonrpc: "2.0", id: "init", method: "initialize", params: init }));
    assert.equal((await server.next()).id, "init");
    if (initialized) await server.send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
    await server.send(sessionCall(2, "ask_after_failure"));
    // A client that said initialized is asked the first question; the other is not, and its question waits.
    if (initialized) assert.equal((await server.next()).method, "elicitation/create");
    await server.closeInput();
    const rest: Record<string, unknown>[] = [];
    for (let msg = await server.next();; msg = await server.next()) {
      rest.push(msg);
      if (msg.id === 2) break;
    }
    const reply = rest.at(-1)!;
    assert.equal(reply.error, undefined, JSON.stringify(reply));
    const { outcomes } = JSON.parse(textOf(reply.result)) as { outcomes: string[] };
    assert.equal(outcomes.length, 2, JSON.stringify(outcomes));
    for (const outcome of outcomes) {
      assert.ok(outcome.startsWith(`failed: ${eofMessage}`), `initialized ${initialized}: ${outcome}`);
    }
    // The question sent is cancelled; the one begun after the end of input never goes out.
    const sent = rest.slice(0, -1).map((m) => m.method);
    assert.deepEqual(sent, initialized ? ["notifications/cancelled"] : [], JSON.stringify(rest));
    assert.equal((await server.status()).code, 0);
  }
});

Deno.test("initialize era: questions ended by their deadline or a cancel free their place among the 64 that may wait: 100 cancelled and 64 timed out, and the next is asked", async () => {
  // At most 64 requests to the client wait at once (the 65th question fails its call at once); each abandoned one
  // must leave that table, or a client that never answers would end every later question.
  const timed = await spawnRaw({ args: ["--quiet", "--no-prompt", "--deny-run", fixture, "--timeout=1000"] });
  try {
    await handshake(timed, { elicitation: {} });
    // In one write: the 70 calls start, and 64 ask, before any deadline can end one.
    const calls = Array.from({ length: 70 }, (_, i) => sessionCall(i + 1, "greet", { greeting: "Hi" }));
    await timed.send(calls.join("\n"));
    const seen = { questions: 0, refused: 0, cancelled: 0, timedOut: 0 };
    while (seen.refused + seen.timedOut < 70) {
      const msg = await timed.next();
      if (msg.method === "elicitation/create") seen.questions++;
      else if (msg.method === "notifications/cancelled") seen.cancelled++;
      else if ((msg.error as { code?: number })?.code === -32001) seen.timedOut++;
      else {
        assert.match(textOf(msg.result), /64 requests already wait for its answers/);
        seen.refused++;
      }
    }
    assert.deepEqual(seen, { questions: 64, refused: 6, cancelled: 64, timedOut: 64 });
    await timed.send(sessionCall(71, "greet", { greeting: "Hi" }));
    assert.equal((await timed.next()).method, "elicitation/create", "the 64 that timed out left the table");
  } finally {
    assert.equal((await timed.status()).code, 0);
  }
  const cancelled = await spawnRaw({ args: ["--quiet", "--no-prompt", "--deny-run", fixture, "--max-in-flight=4"] });
  try {
    await handshake(cancelled, { elicitation: {} });
    for (let id = 1; id <= 100; id++) {
      await cancelled.send(sessionCall(id, "greet", { greeting: "Hi" }));
      const question = await cancelled.next();
      assert.equal(question.method, "elicitation/create");
      await cancelled.send(
        JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id } }),
      );
      assert.equal(((await cancelled.next()).params as { requestId: unknown }).requestId, question.id);
      // The answer after the cancel is dropped.
      await cancelled.send(
        JSON.stringify({ jsonrpc: "2.0", id: question.id, result: { action: "accept", content: {} } }),
      );
    }
    await cancelled.send(sessionCall(101, "greet", { greeting: "Hi" }));
    const question = await cancelled.next();
    assert.equal(question.method, "elicitation/create", "the 100 cancelled left the table and their places");
    await cancelled.send(
      JSON.stringify({ jsonrpc: "2.0", id: question.id, result: { action: "accept", content: { name: "Ada" } } }),
    );
    const reply = await cancelled.next();
    assert.equal(reply.id, 101);
    assert.equal(textOf(reply.result), "Hi, Ada");
  } finally {
    assert.equal((await cancelled.status()).code, 0);
  }
});

Deno.test("initialize era: a confirmation accepted after the call's deadline, or twice, never runs the action more than it was asked; a probe never asks", async () => {
  const server = await spawnRaw({ args: ["--quiet", "--no-prompt", "--deny-run", fixture, "--timeout=300"] });
  try {
    await handshake(server, { elicitation: {} });
    // A probe of the confirmed tool answers its patterns: no question goes to the client, nothing runs.
    const probe = { name: "delete", arguments: { path: "p" }, _meta: { "forge.permission_patterns": true } };
    await server.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: probe }));
    const patterns = await server.next();
    assert.equal(patterns.id, 1, `the probe asked nothing: ${JSON.stringify(patterns)}`);
    const meta = (patterns.result as { _meta: Record<string, unknown> })._meta;
    assert.deepEqual(meta["forge.permission_patterns"], ["delete:p"]);
    // The question goes out and is left until the deadline ends the call; the acceptance then comes.
    await server.send(sessionCall(2, "delete", { path: "a" }));
    const question = await server.next();
    assert.equal(question.method, "elicitation/create");
    const cancelled = await server.next();
    assert.equal((cancelled.params as { requestId: unknown }).requestId, question.id);
    assert.equal(((await server.next()).error as { code: number }).code, -32001);
    const accept = JSON.stringify({ jsonrpc: "2.0", id: question.id, result: { action: "accept", content: {} } });
    await server.send(accept);
    await server.send(accept);
    // An acceptance sent twice in time runs the action once, and the call is answered once.
    await server.send(sessionCall(3, "delete", { path: "b" }));
    const again = await server.next();
    assert.equal(again.method, "elicitation/create");
    const twice = JSON.stringify({ jsonrpc: "2.0", id: again.id, result: { action: "accept", content: {} } });
    await server.send(twice + "\n" + twice);
    const done = await server.next();
    assert.equal(done.id, 3);
    assert.equal(textOf(done.result), "deleted b (accepted)");
    await server.send(sessionCall(4, "counts"));
    const counts = await server.next();
    assert.equal(counts.id, 4, "call 3 was answered once");
    assert.equal(JSON.parse(textOf(counts.result)).deletions, 1, "only the acceptance in time ran");
  } finally {
    assert.equal((await server.status()).code, 0);
  }
});

Deno.test("audit trail: a declined confirmation is recorded as declined, an accepted one as accepted", async () => {
  const dir = await Deno.makeTempDir({ prefix: "ask-audit-" });
  const file = join(dir, "audit.jsonl");
  try {
    const transport = new StdioClientTransport({
      command: Deno.execPath(),
      args: [
        "run",
        "--quiet",
        "--no-prompt",
        `--allow-read=${file}`,
        `--allow-write=${file}`,
        fixture,
        `--audit=${file}`,
      ],
      stderr: "pipe",
    });
    const client = new Client({ name: "stateless", version: "2.4.0" }, {
      capabilities: { elicitation: {} },
      versionNegotiation: { mode: { pin: "2026-07-28" } } as never,
    });
    let verdict: Answer = { action: "decline" };
    client.setRequestHandler("elicitation/create", () => verdict as never);
    await client.connect(transport);
    await client.callTool({ name: "delete", arguments: { path: "a" } });
    verdict = { action: "accept", content: {} };
    await client.callTool({ name: "delete", arguments: { path: "a" } });
    await client.close();
    const trail = await Deno.readTextFile(file);
    assert.equal((await verifyAuditTrail(trail)).ok, true, "the hash chain still verifies");
    const records = trail.trim().split("\n").map((l) => JSON.parse(l));
    const outcomes = records.filter((r) => r.event === "outcome").map((r) => [r.outcome, r.confirmation]);
    assert.deepEqual(outcomes, [
      ["input_required", undefined],
      ["isError", "declined"],
      ["input_required", undefined],
      ["ok", "accepted"],
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("requestState: arguments that break the schema are answered before the state is opened or they are digested", async () => {
  const server = await spawnRaw({ args: ["--quiet", "--no-prompt", "--deny-run", fixture] });
  try {
    // 50,000 keys the schema does not allow, and a state that is not one: the schema answers, at once.
    const args: Record<string, unknown> = { greeting: "Hi" };
    for (let i = 0; i < 50_000; i++) args[`k${i}`] = i;
    const r = await rawCall(server, 1, { name: "greet", arguments: args, requestState: "junk" });
    assert.equal(r.result?.isError, true, JSON.stringify(r).slice(0, 200));
    assert.match(textOf(r.result), /k0/);
    // Valid arguments and the same junk state: the state is refused.
    const e = await rawCall(server, 2, { name: "greet", arguments: { greeting: "Hi" }, requestState: "junk" });
    assert.equal(e.error?.code, -32602);
    assert.match(e.error!.message, /requestState refused: it is not a state this server issued/);
  } finally {
    await server.status();
  }
});

Deno.test("a confirmation is used once: replaying an accepted requestState runs nothing, is refused and audited as replayed", async () => {
  const dir = await Deno.makeTempDir({ prefix: "ask-replay-" });
  const file = join(dir, "audit.jsonl");
  const server = await spawnRaw({
    args: ["--quiet", "--no-prompt", `--allow-read=${file}`, `--allow-write=${file}`, fixture, `--audit=${file}`],
  });
  try {
    const first = await firstRound(server, 1, "delete", { path: "a" });
    const accept = { [first.keys[0]]: { action: "accept", content: {} } };
    const retry = (id: number) =>
      rawCall(server, id, {
        name: "delete",
        arguments: { path: "a" },
        inputResponses: accept,
        requestState: first.state,
      });
    assert.equal(textOf((await retry(2)).result), "deleted a (accepted)");
    for (let id = 3; id <= 5; id++) {
      const replay = await retry(id);
      assert.equal(replay.error?.code, -32602);
      assert.match(replay.error!.message, /requestState refused: its confirmation was already used for a run/);
    }
    const counts = await rawCall(server, 6, { name: "counts", arguments: {} });
    assert.equal(JSON.parse(textOf(counts.result)).deletions, 1, "the side effect ran once");
    // A new round asks the user again, and its acceptance runs once more.
    const again = await firstRound(server, 7, "delete", { path: "a" });
    const fresh = await rawCall(server, 8, {
      name: "delete",
      arguments: { path: "a" },
      inputResponses: { [again.keys[0]]: { action: "accept", content: {} } },
      requestState: again.state,
    });
    assert.equal(textOf(fresh.result), "deleted a (accepted)");
  } finally {
    assert.equal((await server.status()).code, 0);
  }
  const trail = await Deno.readTextFile(file);
  assert.equal((await verifyAuditTrail(trail)).ok, true);
  const outcomes = trail.trim().split("\n").map((l) => JSON.parse(l)).filter((r) => r.event === "outcome");
  assert.deepEqual(outcomes.map((r) => [r.outcome, r.confirmation]), [
    ["input_required", undefined],
    ["ok", "accepted"],
    ["error", "replayed"],
    ["error", "replayed"],
    ["error", "replayed"],
    ["input_required", undefined],
    ["ok", "accepted"],
  ]);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("a call that paused to ask frees its place in maxInFlight: a client that asks and never retries cannot fill the server", async () => {
  // Before, the paused handler, parked for good on its question, was counted as running forever: after maxInFlight
  // input-required answers (1,024 by default) in a server's life, every call was refused busy.
  const server = await spawnRaw({ args: ["--quiet", "--no-prompt", "--deny-run", fixture, "--max-in-flight=2"] });
  try {
    for (let id = 1; id <= 6; id++) {
      // A handler's own question and a pattern tool's confirmation, each left unanswered.
      await firstRound(server, id, "greet", { greeting: "Hi" });
      await firstRound(server, 100 + id, "delete", { path: "a" });
    }
    const first = await firstRound(server, 7, "greet", { greeting: "Hi" });
    const answered = await rawCall(server, 8, {
      name: "greet",
      arguments: { greeting: "Hi" },
      inputResponses: { [first.keys[0]]: { action: "accept", content: { name: "Ada" } } },
      requestState: first.state,
    });
    assert.equal(textOf(answered.result), "Hi, Ada");
    const counts = await rawCall(server, 9, { name: "counts", arguments: {} });
    assert.equal(JSON.parse(textOf(counts.result)).deletions, 0, "no unconfirmed deletion ran");
  } finally {
    assert.equal((await server.status()).code, 0);
  }
});

Deno.test("a call cancelled as it asks ends its handler: calls cancelled in the line after them cannot fill the server", async () => {
  // The cancellation lands while the question is digested, before its round is sealed. Before, the handler was
  // parked for good on a question no round would bring an answer to, and counted as running: 2 such pairs
  // (maxInFlight 2 here, 1,024 by default) and every later call was refused busy.
  const server = await spawnRaw({ args: ["--quiet", "--no-prompt", "--deny-run", fixture, "--max-in-flight=2"] });
  const meta = { ...ENVELOPE, "io.modelcontextprotocol/clientCapabilities": { elicitation: {} } };
  try {
    // A first round loads the digest's code: from then on a handler cancelled in the line after its call ends in the
    // turn that read both lines, and each pair is followed by a round trip, so the next pair is read in a later turn.
    await firstRound(server, 100, "greet", { greeting: "Hi" });
    for (let id = 1; id <= 6; id++) {
      const name = id % 2 === 0 ? "greet" : "delete";
      const args = id % 2 === 0 ? { greeting: "Hi" } : { path: "a" };
      await server.send(
        JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args, _meta: meta } }) +
          "\n" + JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id } }),
      );
      await server.send(
        JSON.stringify({ jsonrpc: "2.0", id: `list-${id}`, method: "tools/list", params: { _meta: meta } }),
      );
      for (let msg = await server.next(); msg.id !== `list-${id}`; msg = await server.next()) {
        assert.notEqual(msg.id, id, `cancelled call ${id} is answered with nothing`);
      }
    }
    // The cancelled calls are answered with nothing: the next message on stdout is this call's answer.
    const first = await firstRound(server, 7, "greet", { greeting: "Hi" });
    assert.equal(first.keys.length, 1);
    const counts = await rawCall(server, 8, { name: "counts", arguments: {} });
    assert.equal(JSON.parse(textOf(counts.result)).deletions, 0, "no cancelled deletion ran");
  } finally {
    assert.equal((await server.status()).code, 0);
  }
});

Deno.test({
  name:
    "Inspector CLI 2.12.0 (2026-07-28): answers a roots/list input request and retries; no elicitation → the -32021 message",
  permissions: { run: true, read: true, write: true, env: true },
  async fn() {
    const server = ["--", Deno.execPath(), "run", "--quiet", "--no-prompt", "--deny-run", fixture];
    const cli = [
      "@modelcontextprotocol/inspector@2.12.0",
      "--cli",
      "--protocol-era", // the Inspector's name for the stateless era
      "modern",
      "--format",
      "json",
      "-q",
    ];
    const env = Object.entries(childEnv()).flatMap(([name, value]) => ["-e", `${name}=${value}`]);
    const call = (tool: string, ...args: string[]) =>
      inspector([...cli, ...env, "--method", "tools/call", "--tool-name", tool, ...args, ...server]);
    // The Inspector declares roots (an empty list): the call pauses, the Inspector answers and retries.
    const roots = await call("roots");
    assert.equal(roots.code, 0, roots.stderr);
    assert.deepEqual((roots.json.result as { structuredContent: unknown }).structuredContent, { roots: [] });
    // It declares no elicitation: the -32021 error reaches its error envelope (on stderr, exit 1).
    await assert.rejects(
      call("greet", "--tool-arg", "greeting=Hi"),
      /exit 1\).*Missing required client capability: elicitation/s,
    );
  },
});

Deno.test("2026-07-28: a handler that asks with a value that refers to itself fails its call, the server keeps serving", async () => {
  const server = await spawnRaw({ args: ["--quiet", "--no-prompt", "--deny-run", fixture] });
  try {
    const failed = await rawCall(server, 1, { name: "ask_cyclic", arguments: {} }, { sampling: {} } as never);
    assert.equal(failed.error?.code, -32603, JSON.stringify(failed));
    const next = await rawCall(server, 2, { name: "counts", arguments: {} });
    assert.equal(next.result?.resultType, "complete", JSON.stringify(next));
  } catch (err) {
    // A server stuck in a loop never exits on end of input.
    server.process.kill("SIGKILL");
    throw err;
  }
  await server.status();
});
