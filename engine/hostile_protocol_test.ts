// test-permissions: --allow-run --allow-read={repo}
// Clients that misbehave at the protocol level, against a real server
// subprocess over real pipes: ids JSON cannot hold, ids reused while in use,
// batches whose replies do not fit, input that ends while replies wait, and
// messages built to cost far more than their size. No timings are asserted;
// the generous deadlines only turn a hang into a failure.
import assert from "node:assert/strict";
import { deadline, type Hostile, hostilePerms as perms, initialize, spawnHostile } from "../stdio/testdata/hostile.ts";

const line = (id: string, method: string, params?: string) =>
  `{"jsonrpc":"2.0","id":${id},"method":"${method}"${params === undefined ? "" : `,"params":${params}`}}\n`;
// The official SDK client writes the id last.
const callLast = (id: string, name: string, args: string) =>
  `{"method":"tools/call","params":{"name":"${name}","arguments":${args}},"jsonrpc":"2.0","id":${id}}\n`;

Deno.test({
  name: "numeric ids come back byte for byte (-0, 1e400, 1.50, past 2^53): results, errors, refusals",
  permissions: perms,
  async fn() {
    const server = spawnHostile(["--max=65536", "--depth=20"], "read");
    await initialize(server);
    const ids = ["-0", "-0.0", "1e400", "-1E400", "9007199254740993", "1.50", "1.5"];
    for (const id of ids) {
      await server.sendRaw(line(id, "ping"));
      await server.sendRaw(callLast(id, "blob", '{"bytes":2}'));
      await server.sendRaw(line(id, "no/such/method"));
      // Refused before parsing: the id is read from the line's start or end.
      await server.sendRaw(line(id, "ping", `{"pad":${"[".repeat(30)}${"]".repeat(30)}}`));
      await server.sendRaw(callLast(id, "blob", `{"pad":"${"x".repeat(70_000)}"}`));
      const replies = [];
      for (let i = 0; i < 5; i++) replies.push(await deadline(server.nextLine(), `reply ${i + 1} for id ${id}`));
      const heads = replies.map((r) => r.slice(0, `{"jsonrpc":"2.0","id":${id},`.length + 9));
      assert.deepEqual(heads, [
        `{"jsonrpc":"2.0","id":${id},"result":{}}`.slice(0, heads[0].length),
        `{"jsonrpc":"2.0","id":${id},"result":{"`.slice(0, heads[1].length),
        `{"jsonrpc":"2.0","id":${id},"error":{"c`.slice(0, heads[2].length),
        `{"jsonrpc":"2.0","id":${id},"error":{"c`.slice(0, heads[3].length),
        `{"jsonrpc":"2.0","id":${id},"error":{"c`.slice(0, heads[4].length),
      ], `id ${id}`);
    }
    await server.closeInput();
    assert.equal((await server.status()).code, 0);
  },
});

Deno.test({
  name: "a call is cancelled by its id as written: -0 and 1.50 find their calls, 0 and 1.5 do not",
  permissions: perms,
  async fn() {
    const server = spawnHostile([], "read");
    await initialize(server);
    for (const [id, other] of [["-0", "0"], ["1.50", "1.5"]]) {
      await server.sendRaw(line(id, "tools/call", '{"name":"sleep","arguments":{"ms":60000}}'));
      // Another id of the same value as a double is another request: it runs and is answered.
      await server.sendRaw(line(other, "tools/call", '{"name":"sleep","arguments":{"ms":1}}'));
      assert.equal(
        await deadline(server.nextLine(), `the reply to ${other}`),
        `{"jsonrpc":"2.0","id":${other},"result":{"content":[{"type":"text","text":"slept 1"}]}}`,
      );
      await server.sendRaw(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":${id}}}\n`);
      // Cancelled: no reply, and once the call has ended (a ping answered after it) the id is free again.
      await server.sendRaw(line('"after"', "ping"));
      assert.equal(await deadline(server.nextLine(), "the ping"), '{"jsonrpc":"2.0","id":"after","result":{}}');
      await server.sendRaw(line(id, "tools/call", '{"name":"sleep","arguments":{"ms":1}}'));
      assert.equal(
        await deadline(server.nextLine(), `the reply to ${id} reused`),
        `{"jsonrpc":"2.0","id":${id},"result":{"content":[{"type":"text","text":"slept 1"}]}}`,
      );
    }
    await server.closeInput();
    assert.equal((await server.status()).code, 0);
  },
});

Deno.test({
  name: "a numeric id JavaScript reads as a safe integer is served as that integer whatever its notation: 1e-400 is " +
    "id 0, refused as a duplicate of a running call 0, and cancelling 1e-400 cancels call 0",
  permissions: perms,
  async fn() {
    const server = spawnHostile([], "read");
    await initialize(server);
    // Underflow to 0, over-precise fractions and exponents that land on an integer: the text is not kept.
    const read = [
      ["1e-400", 0],
      ["1.00000000000000000001", 1],
      ["2.0000000000000001", 2],
      [
        "100000000000000000000000e-23",
        1,
      ],
      ["1.0", 1],
      ["1e0", 1],
    ] as const;
    for (const [id, integer] of read) {
      await server.sendRaw(line(id, "ping"));
      assert.equal(
        await deadline(server.nextLine(), `the reply to ${id}`),
        `{"jsonrpc":"2.0","id":${integer},"result":{}}`,
      );
    }
    await server.sendRaw(line("0", "tools/call", '{"name":"sleep","arguments":{"ms":60000}}'));
    await server.waitForStderr("SLEEP_STARTED 60000");
    await server.sendRaw(line("1e-400", "tools/call", '{"name":"sleep","arguments":{"ms":1}}'));
    const duplicate = JSON.parse(await deadline(server.nextLine(), "the refusal of 1e-400"));
    assert.equal(duplicate.id, 0);
    assert.equal(duplicate.error.code, -32600);
    await server.sendRaw('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1e-400}}\n');
    // Call 0 was cancelled: no reply, and once it has ended (a ping answered after it) the id 0 is free again.
    await server.sendRaw(line('"after"', "ping"));
    assert.equal(await deadline(server.nextLine(), "the ping"), '{"jsonrpc":"2.0","id":"after","result":{}}');
    await server.sendRaw(line("0", "tools/call", '{"name":"sleep","arguments":{"ms":1}}'));
    assert.equal(
      await deadline(server.nextLine(), "the reply to 0 reused"),
      '{"jsonrpc":"2.0","id":0,"result":{"content":[{"type":"text","text":"slept 1"}]}}',
    );
    await server.closeInput();
    assert.equal((await server.status()).code, 0);
  },
});

Deno.test({
  name: "a reply too large for maxMessageBytes is answered with its id however long the id is, never dropped",
  permissions: perms,
  async fn() {
    const server = spawnHostile(["--max=65536"], "read");
    await initialize(server);
    const id = JSON.stringify("i".repeat(5_000));
    await server.sendRaw(line(id, "tools/call", '{"name":"blob","arguments":{"bytes":70000}}'));
    const reply = await deadline(server.nextLine(), "the refusal");
    assert.ok(reply.startsWith(`{"jsonrpc":"2.0","id":${id},"error":{"code":-32603,"message":"Reply too large:`));
    await server.closeInput();
    assert.equal((await server.status()).code, 0);
  },
});

const STATELESS_META = '"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",' +
  '"io.modelcontextprotocol/clientCapabilities":{}}';

Deno.test({
  name: "an id in use by a subscription or a call in flight is refused with -32600; a cancellation reaches one request",
  permissions: perms,
  async fn() {
    const server = spawnHostile([], "read");
    // 2026-07-28: a subscription holds id 5 open.
    await server.sendRaw(
      line("5", "subscriptions/listen", `{"notifications":{"toolsListChanged":true},${STATELESS_META}}`),
    );
    assert.match(await deadline(server.nextLine(), "the acknowledgement"), /subscriptions\/acknowledged/);
    await server.sendRaw(line("5", "tools/call", `{"name":"sleep","arguments":{"ms":60000},${STATELESS_META}}`));
    assert.match(
      await deadline(server.nextLine(), "the refusal of the call"),
      /^\{"jsonrpc":"2.0","id":5,"error":\{"code":-32600,"message":"Invalid request: id 5 is already used/,
    );
    // The cancellation ends the subscription, the only request under id 5: its id is free again.
    await server.sendRaw('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}\n');
    await server.sendRaw(line("5", "tools/call", `{"name":"sleep","arguments":{"ms":1},${STATELESS_META}}`));
    assert.match(
      await deadline(server.nextLine(), "the call under the freed id"),
      /^\{"jsonrpc":"2.0","id":5,"result"/,
    );
    // Initialize era: a call in flight holds id 9 against any request, a ping included.
    await initialize(server);
    await server.sendRaw(line("9", "tools/call", '{"name":"sleep","arguments":{"ms":60000}}'));
    await server.sendRaw(line("9", "ping"));
    await server.sendRaw(
      line("9", "subscriptions/listen", `{"notifications":{"toolsListChanged":true},${STATELESS_META}}`),
    );
    for (const what of ["ping", "subscription"]) {
      assert.match(
        await deadline(server.nextLine(), `the refusal of the ${what}`),
        /^\{"jsonrpc":"2.0","id":9,"error":\{"code":-32600,/,
      );
    }
    await server.sendRaw('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}}\n');
    await server.sendRaw(line('"after"', "ping"));
    assert.equal(await deadline(server.nextLine(), "the ping"), '{"jsonrpc":"2.0","id":"after","result":{}}');
    await server.sendRaw(line("9", "ping"));
    assert.equal(
      await deadline(server.nextLine(), "the ping under the freed id"),
      '{"jsonrpc":"2.0","id":9,"result":{}}',
    );
    await server.closeInput();
    assert.equal((await server.status()).code, 0);
    assert.doesNotMatch(server.stderr(), /error/i);
  },
});

Deno.test({
  name: "initialize era: no request reaches the client before notifications/initialized; the question waits for it; " +
    'an answer with "error": null beside its result is that result, one with a bad "error" fails the call clearly',
  permissions: perms,
  async fn() {
    const server = spawnHostile([], "read", new URL("./testdata/ask_server.ts", import.meta.url).pathname);
    await server.sendRaw(line(
      "0",
      "initialize",
      '{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"h","version":"1"}}',
    ));
    assert.match(await deadline(server.nextLine(), "the initialize reply"), /"protocolVersion":"2025-11-25"/);
    await server.sendRaw(line("1", "tools/call", '{"name":"greet","arguments":{"greeting":"Hi"}}'));
    // The call's question would be written in the turn the call starts, before this ping's answer.
    await server.sendRaw(line("2", "ping"));
    assert.equal(await deadline(server.nextLine(), "the ping"), '{"jsonrpc":"2.0","id":2,"result":{}}');
    await server.sendRaw('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
    const ask = JSON.parse(await deadline(server.nextLine(), "the elicitation"));
    assert.equal(ask.method, "elicitation/create");
    // Some JSON-RPC libraries write "error": null beside the result.
    const answer = { action: "accept", content: { name: "Ada" } };
    await server.send({ jsonrpc: "2.0", id: ask.id, result: answer, error: null });
    assert.match(await deadline(server.nextLine(), "the call's reply"), /"id":1,"result".*Hi, Ada/);
    await server.sendRaw(line("3", "tools/call", '{"name":"greet","arguments":{"greeting":"Hi"}}'));
    const again = JSON.parse(await deadline(server.nextLine(), "the second elicitation"));
    await server.send({ jsonrpc: "2.0", id: again.id, result: answer, error: "no" });
    const refused = JSON.parse(await deadline(server.nextLine(), "the second call's reply"));
    assert.deepEqual(refused.result, {
      content: [{
        type: "text",
        text: "Cannot get the client's answer to elicitation/create: its response is malformed " +
          '("error" must be an object with "code" and "message")',
      }],
      isError: true,
    });
    await server.closeInput();
    assert.equal((await server.status()).code, 0);
  },
});

Deno.test({
  name: "a client that writes large calls and pings, closes stdin, then reads: every request is answered",
  permissions: perms,
  async fn() {
    // The grace period counts from the end of input, and a loaded machine took more than the fixture's 2 s to write
    // 6 MiB and 103 replies and have them read (the server then gave up the rest, as it must: the next test proves
    // that). What this test proves is that a client that reads gets every reply, so its grace is one no run reaches.
    const server = spawnHostile(["--queue=1048576", "--grace=30000"], "read");
    await initialize(server);
    // Three replies of 2 MiB pass the 1 MiB queue bound: what follows is held until the client reads.
    for (let id = 1; id <= 3; id++) {
      await server.sendRaw(line(String(id), "tools/call", '{"name":"blob","arguments":{"bytes":2097152}}'));
    }
    for (let id = 4; id <= 103; id++) await server.sendRaw(line(String(id), "ping"));
    await server.closeInput();
    const ids = [];
    for (let i = 0; i < 103; i++) ids.push(JSON.parse(await deadline(server.nextLine(), `reply ${i + 1} of 103`)).id);
    assert.deepEqual(ids, Array.from({ length: 103 }, (_, i) => i + 1));
    assert.equal((await server.status()).code, 0);
    assert.doesNotMatch(server.stderr(), /not served/);
  },
});

Deno.test({
  name:
    "a client that closes stdin and never reads: the held requests are given up after the grace period, and the log says why",
  permissions: perms,
  async fn() {
    const server = spawnHostile(["--queue=1048576", "--grace=200"], "read");
    await initialize(server);
    for (let id = 1; id <= 3; id++) {
      await server.sendRaw(line(String(id), "tools/call", '{"name":"blob","arguments":{"bytes":2097152}}'));
    }
    for (let id = 4; id <= 103; id++) await server.sendRaw(line(String(id), "ping"));
    await server.closeInput();
    assert.equal((await server.status()).code, 0);
    assert.match(
      server.stderr(),
      /\d+ messages read before the input ended were not served: the client did not read the replies before them within shutdownGraceMs \(200 ms\)/,
    );
    assert.doesNotMatch(server.stderr(), /stopped reading stdout/);
  },
});

/** Sends a 2025-03-26 batch of `count` calls of `blob` with `bytes`, ids made by `id`; returns its parsed reply. */
async function batchOf(server: Hostile, count: number, bytes: number, id: (i: number) => string) {
  const items = Array.from({ length: count }, (_, i) => callLast(id(i), "blob", `{"bytes":${bytes}}`).trim());
  await server.sendRaw(`[${items.join(",")}]\n`);
  const reply = await deadline(server.nextLine(), "the batch's reply");
  return { bytes: new TextEncoder().encode(reply).length, items: JSON.parse(reply) as Record<string, unknown>[] };
}

Deno.test({
  name: "every request of a batch is answered in one array within maxMessageBytes, long ids and many items alike",
  permissions: perms,
  async fn() {
    const server = spawnHostile(["--max=1048576"], "read");
    await initialize(server, "2025-03-26");
    const cases = [
      // Errors carrying 10,000-character ids must fit too.
      { count: 70, bytes: 100_000, id: (i: number) => JSON.stringify(`${i}:${"i".repeat(10_000)}`) },
      // 1,024 replies of 2 kB pass 1 MiB: the ones that do not fit are answered Reply too large.
      { count: 1024, bytes: 2_000, id: (i: number) => String(i) },
    ];
    for (const c of cases) {
      const { bytes, items } = await batchOf(server, c.count, c.bytes, c.id);
      assert.ok(bytes <= 1048576, `${bytes} bytes`);
      assert.deepEqual(
        items.map((item) => JSON.stringify(item.id)).sort(),
        Array.from({ length: c.count }, (_, i) => c.id(i)).map((id) => JSON.stringify(JSON.parse(id))).sort(),
      );
      const tooLarge = items.filter((item) =>
        /^Reply too large/.test((item.error as { message?: string })?.message ?? "")
      );
      assert.ok(tooLarge.length > 0 && tooLarge.length < c.count, `${tooLarge.length} of ${c.count} too large`);
    }
    // Ids so long that a short error for each would not fit: one refusal, nothing run.
    const huge = Array.from({ length: 1024 }, (_, i) => line(JSON.stringify(`${"i".repeat(950)}${i}`), "x").trim());
    await server.sendRaw(`[${huge.join(",")}]\n`);
    assert.match(
      await deadline(server.nextLine(), "the refusal"),
      /^\{"jsonrpc":"2.0","id":null,"error":\{"code":-32600,"message":"Invalid request: the answers to this batch cannot fit/,
    );
    await server.closeInput();
    assert.equal((await server.status()).code, 0);
  },
});

Deno.test({
  name: "a progressToken over 256 characters is ignored: the call runs and reports nothing under it",
  permissions: perms,
  async fn() {
    const server = spawnHostile([], "read");
    await initialize(server);
    const call = (id: number, token: string) =>
      line(String(id), "tools/call", `{"name":"steps","arguments":{"n":3},"_meta":{"progressToken":${token}}}`);
    await server.sendRaw(call(1, JSON.stringify("t".repeat(300_000))));
    await server.sendRaw(call(2, "1".repeat(300)));
    for (const id of [1, 2]) {
      assert.match(
        await deadline(server.nextLine(), `reply ${id}`),
        new RegExp(`^\\{"jsonrpc":"2.0","id":${id},"result"`),
      );
    }
    // Within the limit, progress flows as before.
    await server.sendRaw(call(3, JSON.stringify("t".repeat(256))));
    for (let k = 1; k <= 3; k++) {
      assert.match(await deadline(server.nextLine(), `progress ${k}`), new RegExp(`"progress":${k},"total":3\\}\\}$`));
    }
    assert.match(await deadline(server.nextLine(), "reply 3"), /^\{"jsonrpc":"2.0","id":3,"result"/);
    await server.closeInput();
    assert.equal((await server.status()).code, 0);
  },
});

Deno.test({
  name: "progress respects backpressure: while the client is behind, a handler's 1,000 reports queue as one",
  permissions: perms,
  async fn() {
    // 10 kB per report: seven pass the 64 KiB queue bound, the rest coalesce.
    const server = spawnHostile(["--queue=65536"], "read");
    await initialize(server);
    await server.sendRaw(
      line("1", "tools/call", '{"name":"steps","arguments":{"n":1000,"size":10000},"_meta":{"progressToken":"p"}}'),
    );
    const progress: number[] = [];
    for (;;) {
      const message = JSON.parse(await deadline(server.nextLine(), "the next line"));
      if (message.id === 1) break;
      progress.push(message.params.progress);
    }
    assert.ok(progress.length > 0 && progress.length < 20, `${progress.length} reports sent`);
    assert.deepEqual(progress, [...progress].sort((a, b) => a - b), "in increasing order");
    await server.closeInput();
    assert.equal((await server.status()).code, 0);
  },
});

Deno.test({
  name: "calls under many long ids of one length that differ only at their end (string ids of 20,000 and 70,000 " +
    "units, numbers of 20,000 digits): each is answered under its own id, a cancellation written another way finds " +
    "exactly its call, a near miss of the same length none, and an id in flight written with an escape is refused",
  permissions: perms,
  async fn() {
    const server = spawnHostile(["--grace=200"], "read");
    await initialize(server);
    const count = 48;
    const sleep = '{"name":"sleep","arguments":{"ms":60000}}';
    const cancel = (id: string) =>
      `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":${id}}}\n`;
    // Each family: the id of call i as sent, the same id written another way, and a near miss of its length.
    const pad = (i: number) => String(i).padStart(8, "0");
    const families = [20_000, 70_000].map((units) => {
      const head = "x".repeat(units - 9);
      // One id ends with a lone surrogate: ordered among the others by its code unit.
      return {
        sent: (i: number) => JSON.stringify(`${head}${pad(i)}${i === 4 ? "\ud800" : "A"}`),
        other: (i: number) => `"${head}${pad(i)}${i === 4 ? "\\uD800" : "\\u0041"}"`,
        miss: (i: number) => JSON.stringify(`${head}${pad(i)}B`),
      };
    });
    const digits = "1".repeat(20_000 - 8);
    // A number's text is its id: the same text again finds it; the text as a string, or another number, does not.
    families.push({
      sent: (i) => `${digits}${pad(i)}`,
      other: (i) => `${digits}${pad(i)}`,
      miss: (i) => i % 4 === 0 ? `"${digits}${pad(i)}"` : `${digits}${pad(i + count)}`,
    });
    for (const family of families) {
      for (let i = 0; i < count; i++) await server.sendRaw(line(family.sent(i), "tools/call", sleep));
      for (let i = 0; i < count; i++) {
        if (i % 2 === 1) await server.sendRaw(cancel(family.other(i)));
        else await server.sendRaw(cancel(family.miss(i)));
      }
      // An id in flight is refused under that id; one cancelled is free again.
      await server.sendRaw(line(family.other(0), "tools/call", sleep));
      await server.sendRaw(line(family.other(1), "tools/call", sleep));
    }
    await server.sendRaw(line('"after"', "ping"));
    const replies: string[] = [];
    for (;;) {
      const reply = await deadline(server.nextLine(), "the next reply");
      if (reply === '{"jsonrpc":"2.0","id":"after","result":{}}') break;
      replies.push(reply);
    }
    assert.equal(replies.length, families.length, "one refusal per family, nothing else before the ping");
    for (const [k, family] of families.entries()) {
      assert.ok(
        replies[k].startsWith(`{"jsonrpc":"2.0","id":${family.sent(0)},"error":{"code":-32600,`),
        `family ${k}`,
      );
    }
    // At shutdown each call still open is answered once, under its own id: the even ones and the odd ids sent again.
    await server.closeInput();
    const ended = new Map<string, number>();
    for (let i = 0; i < families.length * (count / 2 + 1); i++) {
      const reply = await deadline(server.nextLine(), `shutdown reply ${i + 1}`);
      const id = reply.slice('{"jsonrpc":"2.0","id":'.length, reply.indexOf(',"error":{"code":-32004,'));
      ended.set(id, (ended.get(id) ?? 0) + 1);
    }
    const open = families.flatMap((family) => [
      ...Array.from({ length: count / 2 }, (_, j) => family.sent(2 * j)),
      family.sent(1),
    ]);
    assert.deepEqual([...ended.keys()].sort(), open.sort());
    assert.ok([...ended.values()].every((n) => n === 1), "each answered once");
    assert.equal((await server.status()).code, 0);
  },
});
