import assert from "node:assert/strict";
import { Server } from "@forge/toolkit";
import { Session } from "./_session.ts";
import { encodeReply, LARGE_UNITS } from "./json_parts.ts";
import { META_SERVER } from "./_era.ts";

/** What statelessReply() must send: the reply of the shaped copy, as one string. */
function shapedReply(session: Session, id: number | string, result: Record<string, unknown>, type?: string): string {
  return encodeReply(id, session.statelessResult(result, type)).toString();
}

const session = new Session(new Server({ name: "s", version: "1.0", title: "S" }), 0);

Deno.test("statelessReply() sends the same bytes as the shaped copy, whether it splices or copies", () => {
  class WithToJson {
    toJSON(): unknown {
      return { content: [] };
    }
  }
  const cases: [Record<string, unknown>, string?][] = [
    [{ content: [{ type: "text", text: "hi" }] }],
    [{ content: [{ type: "text", text: 'quote " and \u2028 and \u0001' }], isError: true }],
    [{ content: [], structuredContent: { a: 1, nested: [1, "two", null] } }],
    [{}],
    [{ content: [], _meta: { "x/y": 1 } }],
    [{ content: [], _meta: undefined }],
    [{ content: [], resultType: "complete", after: 1 }],
    [{ content: [], skipped: undefined, fn: () => 1, [Symbol("s")]: 2 }],
    [{ 2: "b", 1: "a", content: [] }],
    [{ inputRequests: { "roots-1": { method: "roots/list" } }, requestState: "s" }, "input_required"],
    [new WithToJson() as unknown as Record<string, unknown>],
    [Object.assign([], { content: [] }) as unknown as Record<string, unknown>],
  ];
  for (const [result, type] of cases) {
    const got = session.statelessReply(7, result, type);
    assert.equal(typeof got, "string");
    assert.equal(got, shapedReply(session, 7, result, type), JSON.stringify(result));
    const reply = JSON.parse(got as string);
    assert.equal(reply.id, 7);
    assert.deepEqual(reply.result._meta[META_SERVER], { name: "s", version: "1.0", title: "S" });
  }
});

Deno.test("statelessReply() hands a large result to the piecewise encoder, with the same bytes", () => {
  const result = { content: [{ type: "text", text: "x".repeat(LARGE_UNITS + 1) }] };
  const got = session.statelessReply("big", result);
  assert.notEqual(typeof got, "string");
  assert.equal(got.toString(), shapedReply(session, "big", result));
});

Deno.test("statelessReply() throws what JSON.stringify throws, so the caller answers an internal error", () => {
  const cyclic: Record<string, unknown> = { content: [] };
  cyclic.self = cyclic;
  assert.throws(() => session.statelessReply(1, cyclic), TypeError);
  assert.throws(() => session.statelessReply(1, { content: [1n] }), TypeError);
});

Deno.test("client() gives each call its own object: a handler that changes it changes no other call's", () => {
  const envelope = { era: "stateless" as const, client: { name: "c", version: "2" }, capabilities: {} };
  const a = session.client(envelope);
  const b = session.client(envelope);
  assert.deepEqual(a, { name: "c", version: "2", protocolVersion: "2026-07-28" });
  assert.notEqual(a, b);
  a.name = "changed";
  assert.equal(session.client(envelope).name, "c");
  const initialized = new Session(new Server({ name: "s" }), 0);
  initialized.initialize({ protocolVersion: "2025-06-18", clientInfo: { name: "old", version: "0.1" } });
  assert.deepEqual(initialized.client({ era: "session" }), {
    name: "old",
    version: "0.1",
    protocolVersion: "2025-06-18",
  });
  assert.notEqual(initialized.client({ era: "session" }), initialized.client({ era: "session" }));
});

Deno.test("a call waiting for notifications/initialized leaves the wait when it ends, and one initialized releases every waiter, a second initialize's too", async () => {
  const session = new Session(new Server({ name: "s" }), 0);
  session.initialize({ protocolVersion: "2025-06-18", capabilities: { roots: {} } });
  const gate = session.handshake.initialized!;
  // Calls that end before the client initializes (cancelled, timed out) hold nothing afterwards.
  for (let i = 0; i < 1_000; i++) {
    const call = new AbortController();
    const waiting = gate(call.signal);
    call.abort(new DOMException("cancelled", "AbortError"));
    await assert.rejects(waiting, { name: "AbortError" });
  }
  assert.equal(session.waitingForInitialized, 0);
  const released: string[] = [];
  void gate(new AbortController().signal).then(() => released.push("first"));
  // A second initialize before initialized keeps the call already waiting.
  session.initialize({ protocolVersion: "2025-06-18", capabilities: { roots: {} } });
  void session.handshake.initialized!(new AbortController().signal).then(() => released.push("second"));
  assert.equal(session.waitingForInitialized, 2);
  session.clientInitialized();
  await Promise.resolve();
  await Promise.resolve();
  assert.deepEqual(released.sort(), ["first", "second"]);
  assert.equal(session.waitingForInitialized, 0);
  assert.equal(session.handshake.initialized, undefined);
});

Deno.test("after releaseWaiting() (the end of input) a wait for notifications/initialized begun later goes on at once; initialized alone leaves a later initialize's waits held", async () => {
  const session = new Session(new Server({ name: "s" }), 0);
  session.initialize({ protocolVersion: "2025-06-18", capabilities: { roots: {} } });
  const gate = session.handshake.initialized!;
  const before = gate(new AbortController().signal);
  session.releaseWaiting();
  assert.equal(await before, true);
  // Before, this one waited for an initialized that could no longer come: until its call's signal fired.
  assert.equal(await gate(new AbortController().signal), true);
  assert.equal(session.waitingForInitialized, 0);
  // The client's initialized is no release of that kind: a wait after a later initialize is held until the next one.
  const other = new Session(new Server({ name: "s" }), 0);
  other.initialize({ protocolVersion: "2025-06-18", capabilities: { roots: {} } });
  other.clientInitialized();
  other.initialize({ protocolVersion: "2025-06-18", capabilities: { roots: {} } });
  void other.handshake.initialized!(new AbortController().signal);
  assert.equal(other.waitingForInitialized, 1);
  other.releaseWaiting();
  assert.equal(other.waitingForInitialized, 0);
});
