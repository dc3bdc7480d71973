import assert from "node:assert/strict";
import { classify, decodeFrame, encodeError, ErrorCode, parseFrame } from "./jsonrpc.ts";
import { encodeReply } from "./json_parts.ts";
import { ExactNumber, publicMeta } from "./id.ts";
import { peekId } from "./peek_id.ts";

const enc = new TextEncoder();
const decode = (text: string) => decodeFrame(enc.encode(text));

Deno.test("decodeFrame() reads a request, a notification and a response", () => {
  assert.deepEqual(decode('{"jsonrpc":"2.0","id":1,"method":"ping"}'), {
    kind: "request",
    id: 1,
    method: "ping",
    params: undefined,
  });
  assert.deepEqual(decode('{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}'), {
    kind: "notification",
    method: "notifications/initialized",
    params: {},
  });
  assert.deepEqual(decode('{"jsonrpc":"2.0","id":"a","result":{}}'), { kind: "response", id: "a", result: {} });
});

Deno.test("decodeFrame() drops one byte order mark at the start of any line, as a decoder does at a stream's start; elsewhere it is data", () => {
  const ping = { kind: "request", id: 1, method: "ping", params: undefined };
  assert.deepEqual(decode('\uFEFF{"jsonrpc":"2.0","id":1,"method":"ping"}'), ping);
  assert.equal(decode('\uFEFF\uFEFF{"jsonrpc":"2.0","id":1,"method":"ping"}').kind, "invalid");
  assert.equal(decode('{"jsonrpc":"2.0","id":1,"method":"ping"}\uFEFF').kind, "invalid");
  assert.deepEqual(decode('\uFEFF{"jsonrpc":"2.0","id":"\uFEFF","method":"ping"}'), { ...ping, id: "\uFEFF" });
});

Deno.test("decodeFrame() answers invalid JSON and invalid UTF-8 with a parse error", () => {
  for (const bad of [enc.encode("{"), enc.encode("nope"), new Uint8Array([0x7b, 0xff, 0xfe, 0x7d])]) {
    const msg = decodeFrame(bad);
    assert.equal(msg.kind, "invalid");
    if (msg.kind === "invalid") {
      assert.equal(msg.error.code, ErrorCode.parseError);
      assert.equal(msg.id, null);
    }
  }
});

Deno.test("classify() refuses wrong types for jsonrpc, id, method and params", () => {
  const cases: [unknown, number, string | number | null][] = [
    [{ jsonrpc: "1.0", id: 1, method: "x" }, ErrorCode.invalidRequest, 1],
    [{ id: 1, method: "x" }, ErrorCode.invalidRequest, 1],
    [{ jsonrpc: "2.0", id: {}, method: "x" }, ErrorCode.invalidRequest, null],
    [{ jsonrpc: "2.0", id: null, method: "x" }, ErrorCode.invalidRequest, null],
    [{ jsonrpc: "2.0", id: true, method: "x" }, ErrorCode.invalidRequest, null],
    [{ jsonrpc: "2.0", id: 2, method: 5 }, ErrorCode.invalidRequest, 2],
    [{ jsonrpc: "2.0", id: 2, method: "" }, ErrorCode.invalidRequest, 2],
    [{ jsonrpc: "2.0", id: 3 }, ErrorCode.invalidRequest, 3],
    [{ jsonrpc: "2.0", id: 4, method: "x", params: "s" }, ErrorCode.invalidRequest, 4],
    [{ jsonrpc: "2.0", id: 4, method: "x", params: null }, ErrorCode.invalidRequest, 4],
    // No id: not a notification but an invalid request, answered under id null as JSON-RPC 2.0 says.
    [{ jsonrpc: "2.0", method: "notifications/cancelled", params: 5 }, ErrorCode.invalidRequest, null],
    [{ method: "notifications/initialized" }, ErrorCode.invalidRequest, null],
    [42, ErrorCode.invalidRequest, null],
    [null, ErrorCode.invalidRequest, null],
    ["str", ErrorCode.invalidRequest, null],
  ];
  for (const [value, code, id] of cases) {
    const msg = classify(value);
    assert.equal(msg.kind, "invalid", JSON.stringify(value));
    if (msg.kind === "invalid") {
      assert.equal(msg.error.code, code);
      assert.equal(msg.id, id);
    }
  }
});

Deno.test('classify() takes a response as an error only when "error" is an object; "error": null beside a result is that result', () => {
  const cases: [Record<string, unknown>, Record<string, unknown>][] = [
    [{ result: { a: 1 }, error: null }, { result: { a: 1 } }],
    [{ result: null }, { result: null }],
    [{ error: { code: -1, message: "no" } }, { error: { code: -1, message: "no" } }],
    [{ result: {}, error: { code: -1, message: "no" } }, { error: { code: -1, message: "no" } }],
    [{ error: null }, { problem: 'it has neither "result" nor "error"' }],
    [{ result: {}, error: "no" }, { problem: '"error" must be an object with "code" and "message"' }],
    [{ error: [] }, { problem: '"error" must be an object with "code" and "message"' }],
  ];
  for (const [fields, expected] of cases) {
    assert.deepEqual(classify({ jsonrpc: "2.0", id: "q", ...fields }), { kind: "response", id: "q", ...expected });
  }
});

Deno.test('classify() takes a message with a result or an error, no method and a "jsonrpc" other than "2.0" as a malformed response, never a request to answer', () => {
  for (const value of [{ id: "q", result: {} }, { jsonrpc: "1.0", id: "q", error: { code: 1, message: "m" } }]) {
    assert.deepEqual(classify(value), { kind: "response", id: "q", problem: '"jsonrpc" must be "2.0"' });
  }
  assert.deepEqual(classify({ id: {}, result: 1 }), { kind: "response", id: null, problem: '"jsonrpc" must be "2.0"' });
  assert.equal(classify({ id: 1, result: 1, method: "x" }).kind, "invalid", "one with a method is still a bad request");
});

Deno.test("classify() takes a message with a result or an error, no method and an id that is not a string or a number as a response that names no request", () => {
  for (const id of [[1], { id: "q" }, true]) {
    assert.deepEqual(classify({ jsonrpc: "2.0", id, result: {} }), {
      kind: "response",
      id: null,
      problem: '"id" must be a string or a number',
    });
  }
  assert.equal(classify({ jsonrpc: "2.0", id: [1], method: "x" }).kind, "invalid", "a request with one is refused");
});

Deno.test("decodeFrame() returns arrays as batches and refuses an empty one", () => {
  assert.equal(decode("[1,2]").kind, "batch");
  const empty = decode("[]");
  assert.equal(empty.kind === "invalid" && empty.error.code, ErrorCode.invalidRequest);
});

Deno.test("decodeFrame() keeps __proto__ and constructor keys as plain data", () => {
  const msg = decode('{"jsonrpc":"2.0","id":1,"method":"x","params":{"__proto__":{"polluted":1},"constructor":{}}}');
  assert.equal(msg.kind, "request");
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  if (msg.kind === "request") assert.ok(Object.hasOwn(msg.params as object, "__proto__"));
});

Deno.test("decodeFrame() survives 100k levels of nesting", () => {
  const deep = "[".repeat(100_000) + "]".repeat(100_000);
  assert.equal(decode(deep).kind, "batch");
  const msg = decode(`{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":${deep}}}`);
  assert.equal(msg.kind, "request");
  assert.equal(decode("[".repeat(100_000)).kind, "invalid");
});

Deno.test("encodeReply() and encodeError() write JSON-RPC 2.0 replies", () => {
  assert.deepEqual(JSON.parse(encodeReply("a", { x: 1 }) as string), { jsonrpc: "2.0", id: "a", result: { x: 1 } });
  assert.deepEqual(JSON.parse(encodeError(null, { code: -1, message: "m" })), {
    jsonrpc: "2.0",
    id: null,
    error: { code: -1, message: "m" },
  });
});

Deno.test("numeric ids that are not safe integers come back byte for byte (-0, 1e400, 1.50, past 2^53)", () => {
  const texts = ["9007199254740993", "123456789012345678901234567890", "-9007199254740993", "1.50", "1e400", "-1E400"];
  for (const text of [...texts, "-0", "-0.0"]) {
    for (
      const line of [`{"jsonrpc":"2.0","id":${text},"method":"ping"}`, `{"method":"ping","jsonrpc":"2.0","id":${text}}`]
    ) {
      const msg = decode(line);
      assert.equal(msg.kind, "request");
      const id = (msg as { id: unknown }).id;
      assert.ok(id instanceof ExactNumber, line);
      assert.equal(encodeReply(id, {}), `{"jsonrpc":"2.0","id":${text},"result":{}}`);
      assert.equal(id.text, text);
    }
  }
  // A safe integer stays a number, whatever its notation: 1.0 is the id 1.
  for (
    const [text, value] of [["9007199254740991", 9007199254740991], ["0", 0], ["-7", -7], ["1.0", 1], ["1e2", 100]]
  ) {
    const plain = decode(`{"jsonrpc": "2.0", "id": ${text}, "method": "ping"}`) as { id: unknown };
    assert.equal(plain.id, value);
  }
  assert.equal((decode('{"jsonrpc":"2.0","id":1.5,"method":"ping"}') as { id: unknown }).id, 1.5, "written as sent");
});

Deno.test("parseFrame() parses a message once, whatever its ids: their text is read, the message not parsed again", () => {
  const parse = JSON.parse;
  let calls = 0;
  JSON.parse = (...args: Parameters<typeof JSON.parse>) => (calls++, parse(...args));
  try {
    const line = '{"jsonrpc":"2.0","method":"x","params":{"requestId":1.5,"_meta":{"progressToken":-0}},"id":1e400}';
    const msg = parseFrame(enc.encode(line));
    assert.equal(calls, 1);
    assert.equal(JSON.stringify(msg.kind === "parsed" ? msg.value : msg), line);
  } finally {
    JSON.parse = parse;
  }
});

Deno.test("two distinct large ids stay distinct keys, the same one is the same key, and cancellation finds it", () => {
  const idOf = (text: string) => (decode(`{"jsonrpc":"2.0","id":${text},"method":"ping"}`) as { id: unknown }).id;
  const a = idOf("9007199254740993");
  const b = idOf("9007199254740992.5");
  assert.notEqual(a, b);
  assert.equal(idOf("9007199254740993"), a);
  const cancel = decode(
    '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9007199254740993}}',
  ) as unknown as { params: { requestId: unknown } };
  assert.equal(cancel.params.requestId, a);
  assert.equal(
    peekId('{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"x","params":{"a":"', ""),
    idOf("123456789012345678901234567890"),
  );
});

Deno.test("a progressToken JavaScript cannot hold exactly keeps its text, and handlers see that text", () => {
  const text = "123456789012345678901234567890";
  const msg = decode(
    `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","_meta":{"progressToken":${text},"k":1}}}`,
  ) as unknown as { params: { _meta: Record<string, unknown> } };
  const meta = msg.params._meta;
  assert.ok(meta.progressToken instanceof ExactNumber);
  assert.equal(JSON.stringify({ progressToken: meta.progressToken }), `{"progressToken":${text}}`);
  assert.deepEqual(publicMeta(meta), { progressToken: text, k: 1 });
  const safe = { progressToken: 7 };
  assert.equal(publicMeta(safe), safe, "a token JavaScript holds exactly leaves _meta as it is");
});

Deno.test("parseFrame() lets the bytes go once decoded, before JSON.parse, exactly once", () => {
  const bytes = enc.encode('{"jsonrpc":"2.0","id":1,"method":"ping","params":{"s":"é"}}');
  let calls = 0;
  const parsed = parseFrame(bytes, undefined, () => {
    calls++;
    bytes.fill(0x20);
  });
  assert.equal(calls, 1);
  assert.deepEqual(parsed, { kind: "parsed", value: { jsonrpc: "2.0", id: 1, method: "ping", params: { s: "é" } } });
});

Deno.test("parseFrame() parses a large all-ASCII line whole, as JSON.parse does, keeping an inexact id as written", () => {
  const strings = Array.from({ length: 20_000 }, (_, i) => `s${i}${"a".repeat(70)}`);
  const text = JSON.stringify({ jsonrpc: "2.0", id: 0, method: "ping", params: { pad: strings } }).replace(
    '"id":0',
    '"id":1e400',
  );
  const bytes = new TextEncoder().encode(text);
  assert.ok(bytes.length > 1024 * 1024);
  const parsed = parseFrame(bytes);
  assert.equal(parsed.kind, "parsed");
  const value = (parsed as { value: { id: unknown; params: { pad: string[] } } }).value;
  assert.deepEqual(value.params.pad, strings);
  assert.ok(value.id instanceof ExactNumber && value.id.text === "1e400");
});
