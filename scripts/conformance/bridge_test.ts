// test-permissions: --allow-run --allow-read --allow-net=127.0.0.1 --allow-env
// The conformance bridge over real HTTP on 127.0.0.1 and a real stdio child:
// what it forwards must arrive unchanged, and what it adds must be exactly
// what docs/conformance.md says. No network beyond loopback.
import assert from "node:assert/strict";
import { type Bridge, startBridge } from "./bridge.ts";
import { fileURLToPath } from "node:url";

const echo = fileURLToPath(new URL("./testdata/echo_child.ts", import.meta.url));
const fixture = fileURLToPath(new URL("./fixture.ts", import.meta.url));
const STATELESS = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};

async function withBridge(child: string, fn: (bridge: Bridge, notes: string[]) => Promise<void>): Promise<void> {
  const notes: string[] = [];
  const bridge = await startBridge({
    command: [Deno.execPath(), "run", "--quiet", "--no-prompt", child],
    log: (line) => notes.push(line),
  });
  try {
    await fn(bridge, notes);
  } finally {
    await bridge.close();
  }
}

function post(url: string, body: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: "POST",
    body,
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
  });
}

/** The headers a 2026-07-28 client sends with a request (SEP-2243). */
function routing(method: string, name?: string): Record<string, string> {
  return { "mcp-protocol-version": "2026-07-28", "mcp-method": method, ...(name ? { "mcp-name": name } : {}) };
}

/** The JSON messages of an SSE body, in order. */
function events(text: string): unknown[] {
  return text.split("\n").filter((l) => l.startsWith("data: ")).map((l) => JSON.parse(l.slice(6)));
}

Deno.test("the bridge hands the child each POST body as one unchanged line, and returns the child's answer as the body", async () => {
  await withBridge(echo, async ({ url }) => {
    // Odd key order, spacing and a number JavaScript would rewrite: all must reach the child byte for byte.
    const body = '{"params":{"b":1,  "a":[1.50, 1e3]},"id":7,"method":"x/y","jsonrpc":"2.0"}';
    const res = await post(url, body);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "application/json");
    const reply = await res.json();
    assert.equal(reply.id, 7);
    assert.equal(reply.result.line, body);
    // Raw line breaks are JSON whitespace: they become spaces, so the message stays one line.
    const broken = await (await post(url, '{"jsonrpc":"2.0",\n"id":8,\r\n"method":"x"}')).json();
    assert.equal(broken.result.line, '{"jsonrpc":"2.0", "id":8,  "method":"x"}');
  });
});

Deno.test("a notification or a client's answer is 202 with no body, and reaches the child", async () => {
  await withBridge(echo, async ({ url }) => {
    const note = '{"jsonrpc":"2.0","method":"notifications/initialized"}';
    const res = await post(url, note);
    assert.equal(res.status, 202);
    assert.equal(await res.text(), "");
    const answer = '{"jsonrpc":"2.0","id":"nobody-asked","result":{}}';
    assert.equal((await post(url, answer)).status, 202);
    const seen = (await (await post(url, '{"jsonrpc":"2.0","id":1,"method":"x"}')).json()).result.seen;
    assert.deepEqual(seen, [note, answer]);
  });
});

Deno.test("error codes become HTTP statuses for 2026-07-28 requests only; the initialize era keeps 200", async () => {
  await withBridge(echo, async ({ url }) => {
    const cases: [number, number][] = [[-32601, 404], [-32602, 400], [-32600, 400], [-32021, 400], [-32022, 400], [
      -32603,
      200,
    ]];
    for (const [code, status] of cases) {
      const params = { error: { code, message: "m" }, _meta: STATELESS };
      const res = await post(url, JSON.stringify({ jsonrpc: "2.0", id: 1, method: "x", params }), routing("x"));
      assert.equal(res.status, status, `code ${code}`);
      assert.equal((await res.json()).error.code, code);
      const legacy = { jsonrpc: "2.0", id: 2, method: "x", params: { error: { code, message: "m" } } };
      assert.equal((await post(url, JSON.stringify(legacy))).status, 200, `initialize era, code ${code}`);
    }
    // A body that is not JSON: the child's id-null answer is matched to it, status from its code.
    const bad = await post(url, "{nope", routing("x"));
    assert.equal(bad.status, 400);
    assert.equal((await bad.json()).error.code, -32700);
  });
});

Deno.test("the bridge's own refusals: foreign Host or Origin, wrong media types, GET, and headers that contradict the body", async () => {
  await withBridge(echo, async ({ url }, notes) => {
    const ok = '{"jsonrpc":"2.0","id":1,"method":"x"}';
    assert.equal((await post(url, ok, { origin: "http://evil.example" })).status, 403);
    assert.equal((await post(url, ok, { "content-type": "text/plain" })).status, 415);
    assert.equal((await post(url, ok, { accept: "application/json" })).status, 406);
    const get = await fetch(url);
    assert.equal(get.status, 405);
    await get.body?.cancel();
    const other = JSON.stringify({
      jsonrpc: "2.0",
      id: 5,
      method: "tools/call",
      params: { name: "a", _meta: STATELESS },
    });
    for (
      const headers of [
        { ...routing("tools/call", "a"), "mcp-protocol-version": "2025-11-25" },
        routing("tools/list", "a"),
        routing("tools/call", "b"),
        routing("tools/call"),
      ]
    ) {
      const res = await post(url, other, headers);
      assert.equal(res.status, 400);
      assert.deepEqual((await res.json()).error.code, -32020);
    }
    // None of the refused bodies reached the child.
    const seen = (await (await post(url, ok)).json()).result.seen;
    assert.deepEqual(seen, []);
    assert.deepEqual(notes, []);
  });
});

Deno.test("a server request rides on the open call's SSE stream; the client's answer goes back to the child", async () => {
  await withBridge(echo, async ({ url }) => {
    const res = await post(url, '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"ask":true}}');
    assert.equal(res.headers.get("content-type"), "text/event-stream");
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    while (!text.includes("elicitation/create")) text += (await reader.read()).value ?? "";
    const asked = events(text)[0] as { id: string; method: string };
    assert.equal(asked.method, "elicitation/create");
    const answer = JSON.stringify({ jsonrpc: "2.0", id: asked.id, result: { action: "decline" } });
    assert.equal((await post(url, answer)).status, 202);
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) text += chunk.value;
    const final = events(text).at(-1) as { id: number; result: { clientAnswered: string } };
    assert.equal(final.id, 3);
    assert.equal(final.result.clientAnswered, answer);
  });
});

Deno.test("a notification for a request opens its SSE stream; the answer is the stream's last event", async () => {
  await withBridge(echo, async ({ url }) => {
    const body =
      '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"notifyFirst":true,"_meta":{"progressToken":"p"}}}';
    const res = await post(url, body);
    assert.equal(res.headers.get("content-type"), "text/event-stream");
    const [progress, final] = events(await res.text()) as Record<string, unknown>[];
    assert.equal(progress.method, "notifications/progress");
    assert.equal(final.id, 4);
  });
});

Deno.test("with the real fixture: 2026-07-28 refusals carry their HTTP status, and the initialize era works through the bridge", async () => {
  await withBridge(fixture, async ({ url }) => {
    const unknown = await post(
      url,
      JSON.stringify({ jsonrpc: "2.0", id: 1, method: "nope/nope", params: { _meta: STATELESS } }),
      routing("nope/nope"),
    );
    assert.equal(unknown.status, 404);
    assert.equal((await unknown.json()).error.code, -32601);
    const noCaps = { "io.modelcontextprotocol/protocolVersion": "2026-07-28" };
    const bad = await post(
      url,
      JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list", params: { _meta: noCaps } }),
      routing("tools/list"),
    );
    assert.equal(bad.status, 400);
    assert.equal((await bad.json()).error.code, -32602);
    const init = await post(
      url,
      JSON.stringify({
        jsonrpc: "2.0",
        id: 3,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "0" } },
      }),
    );
    assert.equal(init.status, 200);
    assert.equal((await init.json()).result.protocolVersion, "2025-11-25");
    const list = await post(url, JSON.stringify({ jsonrpc: "2.0", id: 4, method: "tools/list" }));
    assert.ok((await list.json()).result.tools.some((t: { name: string }) => t.name === "test_simple_text"));
  });
});

Deno.test("closing a 2026-07-28 request's stream cancels it in the child; a second POST with a waiting id is refused", async () => {
  await withBridge(echo, async ({ url }) => {
    const held = JSON.stringify({
      jsonrpc: "2.0",
      id: 9,
      method: "tools/call",
      params: { name: "a", hold: true, _meta: STATELESS },
    });
    const controller = new AbortController();
    const first = fetch(url, {
      method: "POST",
      body: held,
      signal: controller.signal,
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...routing("tools/call", "a"),
      },
    });
    const again = await post(url, held, routing("tools/call", "a"));
    assert.equal(again.status, 409);
    assert.equal((await again.json()).error.code, -32600);
    controller.abort();
    await assert.rejects(first);
    // The child hears the cancellation once the bridge sees the stream closed; poll its record of lines.
    let seen: string[] = [];
    for (let i = 0; i < 100 && !seen.some((l) => l.includes("notifications/cancelled")); i++) {
      seen = (await (await post(url, `{"jsonrpc":"2.0","id":"look-${i}","method":"x"}`)).json()).result.seen;
    }
    const cancelled = seen.map((l) => JSON.parse(l)).find((m) => m.method === "notifications/cancelled");
    assert.equal(cancelled?.params.requestId, 9);
    assert.equal(seen.filter((l) => l === held).length, 1, "the refused duplicate never reached the child");
  });
});
