// A handler that drops a question's promise (`void req.elicit(...)`) while
// it works on: whatever the client does to that question (an error answer, a
// malformed one, a cancellation, silence past the deadline, the end of its
// input, no capability for it), its failure is said on stderr and the server
// serves on. Deno ends a process on an unhandled rejection, and `deno test`
// fails a test on one: each test below fails without the watch on questions.
import assert from "node:assert/strict";
import { handshake, type RawSession, serveRaw } from "@forge/toolkit/testing";
import { addTool, schema, Server, strProp, text } from "@forge/toolkit";

const RO = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
const form = { message: "Name?", requestedSchema: schema({ name: strProp("Name") }, ["name"]) };
const MODERN = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": { elicitation: {} },
  "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
};

/** A server of `drop`: asks, drops the question's promise, and answers once its signal fires or the test says. */
function dropServer(): { server: Server; release: () => void } {
  let gate = Promise.withResolvers<void>();
  const server = new Server({ name: "t" });
  addTool(server, {
    name: "drop",
    description: "Asks, drops the question, works on",
    inputSchema: schema(),
    annotations: RO,
    timeoutMs: 1_000,
  }, async (req) => {
    void req.elicit(form, { key: "name" });
    const aborted = new Promise<void>((resolve) => req.signal.addEventListener("abort", () => resolve()));
    await Promise.race([gate.promise, aborted]);
    return text("worked on");
  });
  return { server, release: () => (gate.resolve(), gate = Promise.withResolvers()) };
}

const call = (id: number) => JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "drop" } });

/**
 * What the server says on stderr, with a wait for its lines of dropped questions: Deno raises an unhandled
 * rejection after the turn that made it, so the line may come after the replies that follow.
 */
function stderr(): { log: (line: string) => void; lines: string[]; dropped: (n: number) => Promise<string[]> } {
  const lines: string[] = [];
  const waits: { n: number; resolve: (said: string[]) => void }[] = [];
  const droppedLines = () => lines.filter((l) => l.includes("failed and its handler did not catch it"));
  const wake = () => {
    for (const wait of [...waits]) {
      const said = droppedLines();
      if (said.length >= wait.n) (waits.splice(waits.indexOf(wait), 1), wait.resolve(said));
    }
  };
  return {
    lines,
    log: (line) => (lines.push(line), wake()),
    dropped: (n) => {
      const { promise, resolve } = Promise.withResolvers<string[]>();
      waits.push({ n, resolve });
      wake();
      // An upper bound that fails the test, never a wait for time.
      const bound = setTimeout(() => resolve(droppedLines()), 5_000);
      return promise.finally(() => clearTimeout(bound));
    },
  };
}

/** Pings under `id` and asserts the server answers: it still serves. */
async function serves(s: RawSession, id: number): Promise<void> {
  await s.send(JSON.stringify({ jsonrpc: "2.0", id, method: "ping" }));
  assert.deepEqual(await s.next(), { jsonrpc: "2.0", id, result: {} });
}

Deno.test("initialize era: a question its handler dropped fails on the client's error answer, its malformed answer, a cancellation or the deadline; stderr says so and the server serves on", async () => {
  const { server, release } = dropServer();
  const err = stderr();
  const s = serveRaw(server, { log: err.log });
  try {
    await handshake(s, { capabilities: { elicitation: {} } });
    // The client answers with an error while the handler works on.
    await s.send(call(1));
    const first = await s.next();
    assert.equal(first.method, "elicitation/create");
    await s.send(JSON.stringify({ jsonrpc: "2.0", id: first.id, error: { code: -1, message: "no" } }));
    await serves(s, 2);
    release();
    assert.equal((await s.next()).id, 1);
    // An answer that breaks the form's schema.
    await s.send(call(3));
    const second = await s.next();
    await s.send(JSON.stringify({ jsonrpc: "2.0", id: second.id, result: { action: "accept", content: { name: 3 } } }));
    await serves(s, 4);
    release();
    assert.equal((await s.next()).id, 3);
    // The client cancels the call while its question waits.
    await s.send(call(5));
    assert.equal((await s.next()).method, "elicitation/create");
    await s.send('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}');
    assert.equal((await s.next()).method, "notifications/cancelled");
    await serves(s, 6);
    // The client never answers: the deadline (1 s) ends the call and its question.
    await s.send(call(7));
    assert.equal((await s.next()).method, "elicitation/create");
    const [cancelled, timedOut] = [await s.next(), await s.next()];
    assert.equal(cancelled.method, "notifications/cancelled");
    assert.equal(timedOut.id, 7);
    await serves(s, 8);
    const said = await err.dropped(4);
    assert.deepEqual(said.map((l) => l.match(/request (\d+)/)?.[1]), ["1", "3", "5", "7"], err.lines.join("\n"));
    assert.match(
      said[0],
      /: ToolError: Cannot get the client's answer to elicitation\/create: it answered with error -1/,
    );
    assert.match(said[1], /: BadAnswer: Cannot use the client's answer to elicitation\/create: Invalid field "name"/);
    assert.match(said[2], /: AbortError: cancelled by the client; a handler should await each question it asks/);
    assert.match(said[3], /: TimeoutError: Tool call timed out after 1000 ms/);
  } finally {
    await s.close();
  }
});

Deno.test("initialize era: a question its handler dropped fails when the client ends its input, and the server ends cleanly", async () => {
  const { server } = dropServer();
  const err = stderr();
  const s = serveRaw(server, { shutdownGraceMs: 1_000, log: err.log });
  await handshake(s, { capabilities: { elicitation: {} } });
  await s.send(call(1));
  assert.equal((await s.next()).method, "elicitation/create");
  await s.close();
  const [said] = await err.dropped(1);
  assert.match(
    said ?? err.lines.join("\n"),
    /request 1 failed and its handler did not catch it: .*it is shutting down/,
  );
});

Deno.test("a question its handler dropped fails when the client cannot answer it (no capability), in both eras; so does a malformed inputResponses", async () => {
  const { server, release } = dropServer();
  const err = stderr();
  const s = serveRaw(server, { log: err.log });
  try {
    await handshake(s);
    await s.send(call(1));
    await serves(s, 2);
    release();
    assert.equal((await s.next()).id, 1);
    // 2026-07-28: the retry carries an answer that breaks the form's schema.
    const modern = (id: number, extra: Record<string, unknown>) =>
      JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "drop", _meta: MODERN, ...extra } });
    await s.send(modern(3, {}));
    const paused = (await s.next()).result as { requestState: string; inputRequests: Record<string, unknown> };
    assert.deepEqual(Object.keys(paused.inputRequests), ["name"]);
    await s.send(modern(4, {
      requestState: paused.requestState,
      inputResponses: { name: { action: "accept", content: { name: 3 } } },
    }));
    await serves(s, 5);
    release();
    assert.equal((await s.next()).id, 4);
    const said = await err.dropped(2);
    assert.deepEqual(said.map((l) => l.match(/request (\d+)/)?.[1]), ["1", "4"], err.lines.join("\n"));
    assert.match(said[0], /MissingCapabilityError/);
    assert.match(said[1], /Invalid field "name"/);
  } finally {
    await s.close();
  }
});
