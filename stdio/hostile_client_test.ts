// test-permissions: --allow-run --allow-read={repo}
// Clients that misbehave at the pipe level, against a real server subprocess
// over real pipes: one that never reads stderr, one that closes it, one that
// stops reading stdout, then signals or ends its input. No timings are
// asserted; the generous deadlines only turn a hang into a failure.
import assert from "node:assert/strict";
import { call, deadline, hostilePerms, initialize, spawnHostile, textOf } from "./testdata/hostile.ts";

const perms = hostilePerms;

Deno.test({
  name: "a client that never reads stderr: every log-heavy call is answered, and the drop count follows once it reads",
  permissions: perms,
  async fn() {
    const server = spawnHostile([], "unread");
    await initialize(server);
    // 300 calls x 30 lines x 1 KiB: ~9 MiB of console output and direct
    // stdout writes, far past the 64 KiB pipe and the log buffer.
    const calls = 300;
    for (let id = 1; id <= calls; id++) await server.send(call(id, "shout", { n: 30, size: 1000 }));
    await server.send(call(calls + 1, "crash"));
    const seen = new Set<unknown>();
    for (let i = 0; i <= calls; i++) {
      const reply = await deadline(server.next(), `reply ${i + 1} of ${calls + 1}`);
      seen.add(reply.id);
      if (reply.id === calls + 1) assert.equal((reply.error as { code: number }).code, -32603);
      else assert.equal(textOf(reply), "shouted 30");
    }
    assert.equal(seen.size, calls + 1, "each call answered once");
    server.readStderr();
    await server.closeInput();
    assert.equal((await server.status()).code, 0);
    assert.match(server.stderr(), /\d+ log lines dropped: stderr was not read/);
  },
});

Deno.test({
  name: "a client that never reads stderr: a handler's 100,000 console.error, Deno.stderr.writeSync and " +
    "process.stderr.write calls never block the server, which keeps answering",
  permissions: perms,
  async fn() {
    const server = spawnHostile([], "unread");
    await initialize(server);
    // ~2 MiB each: far past the 64 KiB pipe, which a blocking write would wait on for ever.
    for (const [id, via] of [[1, "console"], [2, "writeSync"], [3, "process"]] as const) {
      await server.send(call(id, "murmur", { n: 100_000, via }));
      assert.equal(
        textOf(await deadline(server.next(), `the reply after 100,000 writes via ${via}`)),
        "murmured 100000",
      );
    }
    await server.send(call(4, "blob", { bytes: 5 }));
    assert.equal(textOf(await deadline(server.next(), "the reply after them")), "bbbbb");
    server.readStderr();
    await server.closeInput();
    assert.equal((await server.status()).code, 0);
    assert.match(server.stderr(), /murmur from a handler/);
    assert.match(server.stderr(), /\d+ log lines dropped: stderr was not read/);
  },
});

Deno.test({
  name: "progress tokens above 2^53 come back byte for byte in notifications/progress",
  permissions: perms,
  async fn() {
    const server = spawnHostile([], "read");
    await initialize(server);
    const tokens = ["9007199254740993", "123456789012345678901234567890"];
    for (const [i, token] of tokens.entries()) {
      await server.sendRaw(
        `{"jsonrpc":"2.0","id":${i + 1},"method":"tools/call","params":{"name":"steps","arguments":{"n":2},` +
          `"_meta":{"progressToken":${token}}}}\n`,
      );
      const lines = [];
      for (let k = 0; k < 3; k++) lines.push(await deadline(server.nextLine(), `line ${k + 1} for ${token}`));
      assert.deepEqual(lines.slice(0, 2), [
        `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":${token},"progress":1,"total":2}}`,
        `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":${token},"progress":2,"total":2}}`,
      ]);
      assert.match(lines[2], new RegExp(`^\\{"jsonrpc":"2.0","id":${i + 1},"result"`));
    }
    await server.closeInput();
    assert.equal((await server.status()).code, 0);
  },
});

Deno.test({
  name: "a client that closes stderr: logging and crashing calls are answered, the server serves on and exits 0",
  permissions: perms,
  async fn() {
    const server = spawnHostile([], "closed");
    await initialize(server);
    await server.send(call(1, "crash"));
    assert.equal(((await deadline(server.next(), "the crash reply")).error as { code: number }).code, -32603);
    await server.send(call(2, "shout", { n: 300, size: 1000 }));
    assert.equal(textOf(await deadline(server.next(), "the shout reply")), "shouted 300");
    await server.send(call(3, "blob", { bytes: 5 }));
    assert.equal(textOf(await deadline(server.next(), "the blob reply")), "bbbbb");
    await server.closeInput();
    assert.equal((await server.status()).code, 0);
  },
});

for (const ending of ["SIGTERM", "EOF"] as const) {
  Deno.test({
    name: `a client that stops reading stdout, then ${ending === "EOF" ? "closes stdin" : "sends SIGTERM"}: ` +
      "the server exits 0 instead of waiting for it, and logs how many replies it did not deliver",
    permissions: perms,
    async fn() {
      const server = spawnHostile(["--grace=300"], "read");
      await initialize(server);
      // 15 x 4 MiB of replies, never read: stdout blocks for good, yet the
      // queue stays under its 64 MiB bound, so the next call still starts.
      for (let id = 1; id <= 15; id++) await server.send(call(id, "blob", { bytes: 4 * 1024 * 1024 }));
      await server.send(call(16, "sleep", { ms: 60_000 }));
      await server.waitForStderr("SLEEP_STARTED 60000");
      if (ending === "SIGTERM") server.child.kill("SIGTERM");
      else await server.closeInput();
      const status = await server.status();
      assert.equal(status.code, 0);
      assert.equal(server.stderr().split("ON_CLOSE_RAN").length - 1, 1, "onClose ran once");
      // The 14 blobs behind the one stuck in the pipe, and the sleep's reply once the grace aborted it: all 16
      // replies after initialize are named, none silently dropped.
      const lost = server.stderr().match(
        /replies not delivered at exit: (\d+) queued \((\d+) bytes\), and (\d+) in a write that did not complete \((\d+) bytes\): the client did not read stdout within shutdownGraceMs \(300 ms\)/,
      );
      assert.ok(lost, `the loss is logged; stderr: ${server.stderr().slice(-500)}`);
      const [queued, queuedBytes, inFlight, inFlightBytes] = lost.slice(1).map(Number);
      assert.deepEqual([queued, inFlight], [15, 1]);
      assert.ok(queuedBytes > 14 * 4 * 1024 * 1024, `${queuedBytes} queued bytes`);
      assert.ok(inFlightBytes > 0 && inFlightBytes <= 4 * 1024 * 1024 + 200, `${inFlightBytes} bytes in flight`);
    },
  });
}

for (const signal of ["SIGHUP", "SIGQUIT"] as const) {
  Deno.test({
    name: `${signal} takes the graceful path: the call in flight is answered, onClose runs once, exit 0`,
    permissions: perms,
    async fn() {
      // A grace far longer than the call: only a shutdown that ignored it could end the call early.
      const server = spawnHostile(["--grace=60000"], "read");
      await initialize(server);
      await server.send(call(1, "sleep", { ms: 300 }));
      await server.waitForStderr("SLEEP_STARTED 300");
      server.child.kill(signal);
      const reply = await deadline(server.next(), "the reply of the call in flight");
      assert.equal(textOf(reply), "slept 300");
      const status = await server.status();
      assert.equal(status.code, 0);
      assert.equal(server.stderr().split("ON_CLOSE_RAN").length - 1, 1);
    },
  });
}

Deno.test({
  name: "a client that pauses reading stdout loses no reply: 8 replies of 16 MiB (twice the queue bound) all arrive",
  permissions: perms,
  async fn() {
    const server = spawnHostile([], "read");
    await initialize(server);
    const bytes = 16 * 1024 * 1024;
    for (let id = 1; id <= 8; id++) await server.send(call(id, "blob", { bytes }));
    await server.send(call(9, "blob", { bytes: 3 }));
    // The client reads nothing until the server is congested: four 16 MiB
    // replies pass the 64 MiB bound (none can finish writing), so the rest
    // are held. The server must hold them, not drop them.
    await server.waitForStderr(`BLOB ${bytes}`, 4);
    const ids: unknown[] = [];
    for (let i = 0; i < 9; i++) {
      const reply = await deadline(server.next(), `reply ${i + 1} of 9`);
      ids.push(reply.id);
      assert.equal(textOf(reply).length, reply.id === 9 ? 3 : bytes);
    }
    assert.deepEqual(ids, [1, 2, 3, 4, 5, 6, 7, 8, 9], "in order, none lost");
    await server.closeInput();
    assert.equal((await server.status()).code, 0);
  },
});

Deno.test({
  name:
    "a reply larger than maxMessageBytes to a request with a long string id (kept apart from the reply's text) is " +
    "replaced by the error under that id, not dropped",
  permissions: perms,
  async fn() {
    const server = spawnHostile(["--max=1048576"], "read");
    await initialize(server);
    // Over 64 Ki units, with a €: the reply is built in pieces, the id a large string its head does not show.
    const id = `€${"i".repeat(100_000)}`;
    await server.send(call(id, "blob", { bytes: 1024 * 1024 }));
    const reply = await deadline(server.next(), "the oversize reply");
    assert.equal(reply.id, id);
    const error = reply.error as { code: number; message: string };
    assert.equal(error.code, -32603);
    assert.match(error.message, /Reply too large: \d+ bytes exceeds the limit of 1048576 bytes \(maxMessageBytes\)/);
    await server.closeInput();
    assert.equal((await server.status()).code, 0);
    assert.match(server.stderr(), /reply of \d+ bytes to request "€i+…" not sent: over maxMessageBytes 1048576/);
  },
});

Deno.test({
  name:
    "when even the error under the id would be over maxMessageBytes (an id of nearly the limit), it is sent with a " +
    "null id and says why, within the limit, for a long and a short id alike",
  permissions: perms,
  async fn() {
    const server = spawnHostile(["--max=100000"], "read");
    await initialize(server);
    // Method not found adds more to the id than the request did: the request fits, its error does not.
    for (const id of [`€${"a".repeat(99_949)}`, "é".repeat(49_960)]) {
      const request = { jsonrpc: "2.0", id, method: "zz" };
      assert.ok(new TextEncoder().encode(JSON.stringify(request)).length <= 100_000, "the request is within the limit");
      await server.send(request);
      const line = await deadline(server.nextLine(), "the error");
      assert.ok(new TextEncoder().encode(line).length <= 100_000, "the error is within the limit");
      const reply = JSON.parse(line);
      assert.equal(reply.id, null);
      const error = reply.error as { code: number; message: string };
      assert.equal(error.code, -32603);
      assert.match(
        error.message,
        /^Reply too large: \d+ bytes exceeds the limit of 100000 bytes \(maxMessageBytes\); the request's id is too long to repeat within the limit$/,
      );
    }
    await server.closeInput();
    assert.equal((await server.status()).code, 0);
    assert.equal(server.stderr().split("is over it too: sent with a null id").length - 1, 2);
  },
});

Deno.test({
  name:
    "a reply larger than maxMessageBytes is replaced by an error with its id naming the limit; the server serves on",
  permissions: perms,
  async fn() {
    const server = spawnHostile(["--max=1048576"], "read");
    await initialize(server);
    await server.send(call("big", "blob", { bytes: 2 * 1024 * 1024 }));
    const reply = await deadline(server.next(), "the oversize reply");
    assert.equal(reply.id, "big");
    const error = reply.error as { code: number; message: string; data: { limit: number; size: number } };
    assert.equal(error.code, -32603);
    assert.match(error.message, /Reply too large: \d+ bytes exceeds the limit of 1048576 bytes \(maxMessageBytes\)/);
    assert.equal(error.data.limit, 1048576);
    assert.ok(error.data.size > 2 * 1024 * 1024);
    await server.send(call("small", "blob", { bytes: 4 }));
    assert.equal(textOf(await deadline(server.next(), "the next reply")), "bbbb");
    await server.closeInput();
    assert.equal((await server.status()).code, 0);
    assert.match(server.stderr(), /reply of \d+ bytes to request "big" not sent: over maxMessageBytes 1048576/);
  },
});

Deno.test({
  name:
    "a result whose JSON would be gigabytes is refused once past maxMessageBytes, never built; the server serves on",
  permissions: perms,
  async fn() {
    const server = spawnHostile(["--max=1048576"], "read");
    await initialize(server);
    // A billion empty rows cost the handler nothing and would be 5 GB of JSON text.
    await server.send(call("huge", "rows", { n: 1_000_000_000 }));
    const reply = await deadline(server.next(), "the refusal");
    assert.equal(reply.id, "huge");
    const error = reply.error as { code: number; message: string; data: { limit: number } };
    assert.equal(error.code, -32603);
    assert.equal(error.message, "Reply too large: it exceeds the limit of 1048576 bytes (maxMessageBytes)");
    assert.equal(error.data.limit, 1048576);
    await server.send(call("small", "rows", { n: 2 }));
    assert.deepEqual((await deadline(server.next(), "the next reply")).result, {
      content: [{ type: "text", text: "rows" }],
      rows: [null, null],
    });
    await server.closeInput();
    assert.equal((await server.status()).code, 0);
  },
});

// The message object, params and arguments are three levels (and three containers); the pad adds the rest.
const nested = (levels: number) => JSON.parse("[".repeat(levels) + "]".repeat(levels));
const empties = (n: number) => Array.from({ length: n }, () => []);
const shapeCases: {
  name: string;
  flag: string;
  limit: number;
  over: Record<string, unknown>;
  within: Record<string, unknown>;
  message: string;
}[] = [
  {
    name:
      "a message nested deeper than maxDepth is refused with -32600 naming the limit and its id; one level less is served",
    flag: "--depth=50",
    limit: 50,
    over: { pad: nested(48) },
    within: { pad: nested(47) },
    message: "Invalid request: nested deeper than 50 levels (maxDepth)",
  },
  {
    name: "a message holding more arrays and objects than maxContainers is refused with -32600 before it is parsed",
    flag: "--containers=1000",
    limit: 1000,
    over: { pad: empties(997) },
    // Brackets inside strings are text, not containers.
    within: { pad: empties(996), note: "[]".repeat(5000) },
    message: "Invalid request: more than 1000 arrays and objects (maxContainers)",
  },
  {
    name:
      "a message holding more values than maxValues (items, keys and values) is refused with -32600 before it is parsed",
    flag: "--values=1000",
    limit: 1000,
    // The call itself has twelve commas and colons (fourteen with the note); the pad one fewer than its items.
    over: { pad: Array(989).fill(1) },
    // Commas and colons inside strings are text, not values.
    within: { pad: Array(986).fill(1), note: ",:".repeat(5000) },
    message: "Invalid request: more than 1000 values (maxValues)",
  },
  {
    name:
      "a message holding an object key longer than maxKeyBytes (as sent) is refused with -32600 before it is parsed",
    flag: "--keys=1000",
    limit: 1000,
    // 999 bytes of `k` and a €: one byte over, counted as sent, not as characters.
    over: { pad: { ["k".repeat(998) + "€"]: 1 } },
    // A key of just the limit, and a value far longer: a value is not a key.
    within: { pad: { ["k".repeat(997) + "€"]: 1 }, note: "k".repeat(5000) },
    message: "Invalid request: an object key longer than 1000 bytes (maxKeyBytes)",
  },
];

Deno.test({
  name:
    "by default an object key over 16,383 bytes as sent is refused under its id (V8 hashes a longer one by its length alone: many of one length cost JSON.parse their square), in a line under 1 MiB and in one over it; keys of 16,383 bytes are served",
  permissions: perms,
  async fn() {
    const server = spawnHostile([], "read");
    await initialize(server);
    const key = (bytes: number, i = 0) => "€" + String(i).padStart(4, "0") + "k".repeat(bytes - 7);
    const keys = (count: number, bytes: number) =>
      Object.fromEntries(Array.from({ length: count }, (_, i) => [key(bytes, i), i]));
    // One key in a short line, parsed first and its keys looked at; then 200 of one length, a 3.2 MB line scanned first.
    for (const [id, pad] of [["one", keys(1, 16_384)], ["many", keys(200, 16_384)]] as const) {
      await server.send(call(id, "blob", { bytes: 1, pad }));
      const refused = await deadline(server.next(), `the refusal of ${id}`);
      assert.equal(refused.id, id);
      const error = refused.error as { code: number; message: string; data: { limit: number } };
      assert.equal(error.code, -32600);
      assert.equal(error.message, "Invalid request: an object key longer than 16383 bytes (maxKeyBytes)");
      assert.equal(error.data.limit, 16_383);
    }
    await server.send(call("within", "blob", { bytes: 1, pad: keys(200, 16_383) }));
    const served = await deadline(server.next(), "the served reply");
    assert.equal(served.id, "within");
    assert.ok(served.result, "not refused: it reached the tool");
    await server.closeInput();
    assert.equal((await server.status()).code, 0);
  },
});

for (const c of shapeCases) {
  Deno.test({
    name: c.name,
    permissions: perms,
    async fn() {
      const server = spawnHostile([c.flag], "read");
      await initialize(server);
      await server.send(call("over", "blob", { bytes: 1, ...c.over }));
      const refused = await deadline(server.next(), "the refusal");
      assert.equal(refused.id, "over");
      const error = refused.error as { code: number; message: string; data: { limit: number } };
      assert.equal(error.code, -32600);
      assert.equal(error.message, c.message);
      assert.equal(error.data.limit, c.limit);
      await server.send(call("within", "blob", { bytes: 1, ...c.within }));
      const served = await deadline(server.next(), "the served reply");
      assert.equal(served.id, "within");
      assert.ok(served.result, "not refused: it reached the tool");
      await server.closeInput();
      assert.equal((await server.status()).code, 0);
    },
  });
}

Deno.test({
  name: "large numeric ids come back byte for byte, two of them in flight do not collide, and cancelling one finds it",
  permissions: perms,
  async fn() {
    const server = spawnHostile([], "read");
    await initialize(server);
    const ids = ["9007199254740993", "9007199254740992", "123456789012345678901234567890", "1.50"];
    const line = (id: string, ms: number) =>
      `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"sleep","arguments":{"ms":${ms}}}}\n`;
    for (const id of ids) await server.sendRaw(line(id, 200));
    const replies: string[] = [];
    for (let i = 0; i < ids.length; i++) replies.push(await deadline(server.nextLine(), `reply ${i + 1}`));
    for (const id of ids) {
      assert.equal(replies.filter((r) => r.startsWith(`{"jsonrpc":"2.0","id":${id},"result"`)).length, 1, id);
    }
    // A call cancelled by its large id is found and aborted, so the id is free again (else: "already used").
    const big = "123456789012345678901234567890";
    await server.sendRaw(line(big, 60_000));
    await server.sendRaw(
      `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":${big},"reason":"t"}}\n`,
    );
    await server.sendRaw(line("7", 1));
    assert.match(await deadline(server.nextLine(), "the reply after the cancellation"), /^\{"jsonrpc":"2.0","id":7,/);
    await server.sendRaw(line(big, 1));
    const after = await deadline(server.nextLine(), "the reply with the freed id");
    assert.equal(after, `{"jsonrpc":"2.0","id":${big},"result":{"content":[{"type":"text","text":"slept 1"}]}}`);
    await server.closeInput();
    assert.equal((await server.status()).code, 0);
  },
});
