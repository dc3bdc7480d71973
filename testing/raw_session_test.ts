import assert from "node:assert/strict";
import { Server } from "@forge/toolkit";
import { serveRaw } from "./raw_session.ts";

const PING = '{"jsonrpc":"2.0","id":1,"method":"ping"}';

Deno.test("serveRaw() answers a line it was sent, and records the line as written", async () => {
  const session = serveRaw(new Server({ name: "raw" }));
  await session.send(PING);
  assert.deepEqual(await session.next(), { jsonrpc: "2.0", id: 1, result: {} });
  assert.deepEqual(session.lines, ['{"jsonrpc":"2.0","id":1,"result":{}}']);
  await session.close();
});

Deno.test("serveRaw() sends bytes as given, so a line split mid-character still arrives whole", async () => {
  const session = serveRaw(new Server({ name: "raw" }));
  const line = new TextEncoder().encode('{"jsonrpc":"2.0","id":"é","method":"ping"}\n');
  const cut = line.indexOf(0xc3) + 1;
  await session.send(line.subarray(0, cut));
  await session.send(line.subarray(cut));
  assert.deepEqual(await session.next(), { jsonrpc: "2.0", id: "é", result: {} });
  await session.close();
});

Deno.test("serveRaw() hands a malformed line's -32700 reply to next()", async () => {
  const session = serveRaw(new Server({ name: "raw" }));
  await session.send("{not json");
  const reply = await session.next();
  assert.equal(reply.id, null);
  assert.equal((reply.error as { code: number }).code, -32700);
  await session.close();
});

Deno.test("serveRaw().next() rejects once the server finished with nothing more to say", async () => {
  const session = serveRaw(new Server({ name: "raw" }));
  await session.close();
  await assert.rejects(session.next(), /the server finished/);
});

Deno.test("serveRaw() passes the serve options on and keeps the server's diagnostics in log", async () => {
  const big = `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"${"x".repeat(100)}"}}`;
  const session = serveRaw(new Server({ name: "raw" }), { maxMessageBytes: 64 });
  await session.send(big);
  await session.send('{"jsonrpc":"2.0","id":2,"method":"ping"}');
  const refused = await session.next();
  assert.deepEqual([refused.id, typeof refused.error], [1, "object"]);
  assert.deepEqual(await session.next(), { jsonrpc: "2.0", id: 2, result: {} });
  await session.close();
  assert.match(session.log[0], /^message of 160 bytes refused: over maxMessageBytes 64/);
  const logged: string[] = [];
  const own = serveRaw(new Server({ name: "raw" }), { maxMessageBytes: 64, log: (l) => logged.push(l) });
  await own.send(big);
  await own.close();
  assert.equal(own.log.length, 0, "a log given in the options takes the diagnostics instead");
  assert.match(logged[0], /^message of 160 bytes refused/);
});
