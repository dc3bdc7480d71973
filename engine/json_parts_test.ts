import assert from "node:assert/strict";
import { encodeErrorReply, encodeReply, escapedBytes, JsonParts, LARGE_UNITS } from "./json_parts.ts";
import { encodeError } from "./jsonrpc.ts";
import { ExactNumber } from "./id.ts";

const big = (unit: string, units = LARGE_UNITS * 3 + 7) => unit.repeat(Math.ceil(units / unit.length));

/** Every piece joined, as the writer writes them. */
function text(reply: string | JsonParts): string {
  return typeof reply === "string" ? reply : [...reply.pieces()].join("");
}

Deno.test("encodeReply keeps a short result one string, exactly as JSON.stringify writes the reply", () => {
  const result = { content: [{ type: "text", text: "hi" }] };
  assert.equal(encodeReply(7, result), JSON.stringify({ jsonrpc: "2.0", id: 7, result }));
});

const cases: [string, unknown][] = [
  ["ASCII", big("x")],
  ["control characters", big('\u0001\n\t"\\')],
  ["a surrogate pair on every slice boundary", big("a😀")],
  ["lone surrogates", big("\ud800x\udc00")],
  ["two-byte and three-byte characters", big("é€")],
  ["nested large strings, undefined, functions, toJSON", {
    a: [big("y"), undefined, () => 1, new Date(0), { skip: undefined, keep: big("\u0000") }],
    b: { toJSON: (key: string) => `key ${key}` },
    c: new String(big("s")),
  }],
  ["an array of many small objects", Array.from({ length: 20_000 }, (_, i) => ({ i, s: "é\u0002" }))],
];

for (const [label, value] of cases) {
  Deno.test(`encodeReply writes ${label} byte for byte as JSON.stringify`, () => {
    const result = { content: [{ type: "text", text: "x" }], structuredContent: { value } };
    const reply = encodeReply(ExactNumber.of("9007199254740993"), result);
    assert.ok(reply instanceof JsonParts, "large enough to go in pieces");
    const expected = `{"jsonrpc":"2.0","id":9007199254740993,"result":${JSON.stringify(result)}}`;
    assert.equal(text(reply), expected);
    assert.equal(reply.bytes(), new TextEncoder().encode(expected).length);
    assert.ok(reply.head().startsWith('{"jsonrpc":"2.0","id":9007199254740993,'));
  });
}

Deno.test("encodeReply refuses a large result that refers to itself, as JSON.stringify does", () => {
  const loop: Record<string, unknown> = { text: big("z") };
  loop.self = { back: loop, pad: big("p") };
  assert.throws(() => encodeReply(1, loop), TypeError);
});

Deno.test("escapedBytes counts the UTF-8 bytes of JSON.stringify without building it", () => {
  for (const s of ["", "plain", "\u0000\u001f\b\t\n\f\r", '"\\', "é€😀", "\ud800", "\udc00x", "a\ud83d"]) {
    assert.equal(escapedBytes(s), new TextEncoder().encode(JSON.stringify(s)).length, JSON.stringify(s));
  }
});

Deno.test("encodeReply stops building past maxBytes: a sparse array of a billion items is refused, not built", () => {
  assert.throws(() => encodeReply(1, { rows: new Array(1_000_000_000) }, 1024 * 1024), {
    name: "ReplyTooLarge",
    message: "Cannot serialise the result: it takes more than 1048576 bytes (maxMessageBytes)",
  });
  // Large strings are kept as they are, so a reply of one string over the limit is still built, to be sized exactly.
  const big = encodeReply(1, { text: "x".repeat(2 * 1024 * 1024) }, 1024 * 1024);
  assert.equal(typeof big === "string" ? big.length : big.bytes(), 2 * 1024 * 1024 + 45);
});

Deno.test("a large string's slices with nothing to escape are written as they are, the others escaped: the bytes are JSON.stringify's", () => {
  const special = ['"', "\\", "\n", "\u0001", "\u2028", "é", "€", "😀", "\ud83d", "\ude00"];
  let seed = 7;
  const random = (n: number) => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) % n;
  const encoder = new TextEncoder();
  let clean = 0;
  for (let round = 0; round < 12; round++) {
    // Long runs of plain text with a special character now and then: some slices hold none, some several.
    let text = "";
    while (text.length < 200_000) {
      text += "x".repeat(random(60_000));
      if (random(3) > 0) text += special[random(special.length)];
    }
    const reply = encodeReply(1, { text });
    assert.ok(reply instanceof JsonParts);
    const expected = JSON.stringify({ jsonrpc: "2.0", id: 1, result: { text } });
    const pieces = [...reply.pieces()];
    assert.equal(pieces.join(""), expected);
    assert.deepEqual(encoder.encode(pieces.join("")), encoder.encode(expected));
    assert.equal(reply.bytes(), encoder.encode(expected).length);
    // deno-lint-ignore no-control-regex -- what JSON escapes
    clean += pieces.filter((piece) => piece.length > 40_000 && !/["\\\u0000-\u001f\ud800-\udfff]/.test(piece)).length;
  }
  assert.ok(clean > 5, `slices with nothing to escape: ${clean}`);
});

Deno.test("encodeErrorReply() writes what encodeError() writes for every id short enough to be one string", () => {
  // Two writers of one error reply: encodeError() for the frames refused before dispatch, encodeErrorReply() for
  // the engine's (a long id in pieces). Short ids must give the same bytes, or a client sees two formats.
  const ids = [null, 0, -1, 7.5, 2 ** 53 - 1, "", "a", 'q"\\\n\u2028', "é€😀", "\ud800", "x".repeat(LARGE_UNITS)];
  const errors = [
    { code: -32600, message: "Invalid request" },
    { code: -32602, message: 'bad "arg"', data: { limit: 1, list: [null, "é"] } },
    { code: -32000, message: "", data: undefined },
  ];
  for (const id of ids) {
    for (const error of errors) {
      const reply = encodeErrorReply(id, error);
      assert.equal(typeof reply, "string", `id of ${String(id).length} units is one string`);
      assert.equal(reply, encodeError(id, error));
    }
  }
  const long = encodeErrorReply("x".repeat(LARGE_UNITS + 1), errors[1]);
  assert.ok(long instanceof JsonParts);
  assert.equal(long.toString(), encodeError("x".repeat(LARGE_UNITS + 1), errors[1]));
});
