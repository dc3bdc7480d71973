import assert from "node:assert/strict";
import { isAscii, isUtf8, parseLargeLine } from "./_large_line.ts";

const enc = new TextEncoder();
// Tiny pieces, so that every chunk boundary falls inside escapes, characters and surrogate pairs somewhere.
const tiny = { extractBytes: 3, extractKeyBytes: 3, chunkBytes: 5, escapeRatio: 0.25 };
// The skeleton always written as ASCII with escapes when it holds a character past U+00FF, or never.
const ALWAYS = 1e9;
const NEVER = 0;

/**
 * What JSON.parse makes of the bytes once decoded whole, or which refusal
 * that gives: "invalid utf8" when the decoder throws, "invalid json" when
 * JSON.parse does.
 */
function expected(bytes: Uint8Array): unknown {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return "invalid utf8";
  }
  try {
    return JSON.parse(text);
  } catch {
    return "invalid json";
  }
}

function parsed(bytes: Uint8Array, options = tiny): unknown {
  const result = parseLargeLine(bytes, undefined, options);
  return "invalid" in result ? `invalid ${result.invalid}` : result.value;
}

Deno.test("parseLargeLine() gives what JSON.parse gives: escapes, characters and pairs split across chunks, long keys", () => {
  const samples = [
    '{"jsonrpc":"2.0","id":1,"params":{"text":"a\\nb\\"c\\\\d\\u00e9\\ud83d\\ude00€😀 end"}}',
    '["\\\\\\\\\\"", "\\u0000\\u001f", "\\/\\b\\f\\r\\t", "ééééééé", "😀😀😀😀"]',
    '{"a long key with é":1,"__proto__":{"x":"long enough value"},"short":"ab","another long key":[1,"x"]}',
    '\uFEFF{"bom":"at the start of the line, dropped as a whole line\'s decoding drops it"}',
    '{"inner":"\uFEFF is data inside a string","n":[1.5,-0,1e400]}',
    '"a top-level string long enough to be decoded on its own"',
    '{"dup long key":1,"dup long key":2}',
  ];
  for (const text of samples) {
    const bytes = enc.encode(text);
    for (
      const options of [
        tiny,
        { ...tiny, escapeRatio: ALWAYS },
        { ...tiny, extractBytes: 100, extractKeyBytes: 100, escapeRatio: ALWAYS },
        { extractBytes: 1, extractKeyBytes: 9, chunkBytes: 1, escapeRatio: NEVER },
        { extractBytes: 0, extractKeyBytes: 0, chunkBytes: 2, escapeRatio: ALWAYS },
      ]
    ) {
      assert.deepEqual(parsed(bytes, options), expected(bytes), `${text} ${JSON.stringify(options)}`);
    }
  }
  const proto = parsed(enc.encode('{"__proto__ as a long key":1,"__proto__":{"polluted":true}}'), {
    extractBytes: 0,
    extractKeyBytes: 0,
    chunkBytes: 4,
    escapeRatio: NEVER,
  }) as Record<string, unknown>;
  assert.equal(Object.getPrototypeOf(proto), Object.prototype);
  assert.ok(Object.hasOwn(proto, "__proto__"), "an own key, as JSON.parse makes it");
});

Deno.test("parseLargeLine() refuses what JSON.parse refuses: raw control characters, bad escapes, bad UTF-8", () => {
  const bad = [
    enc.encode('{"a":"raw \n line break in a long string"}'),
    enc.encode('{"a":"a bad \\x escape in a long string"}'),
    enc.encode('{"a":"a cut \\u12 escape in a long string"}'),
    enc.encode('{"a":"unterminated long string'),
    enc.encode('{"a":"fine" junk}'),
    enc.encode('{"a":"\uFEFF"}\uFEFF'),
    new Uint8Array([...enc.encode('{"a":"bad byte in a long string '), 0xff, ...enc.encode('"}')]),
    new Uint8Array([...enc.encode('{"a":"cut character in a long string '), 0xe2, 0x82, ...enc.encode('"}')]),
    new Uint8Array([...enc.encode('{"a'), 0xc3, ...enc.encode('":"bad byte in a short key"}')]),
  ];
  // The same in a skeleton written as ASCII with escapes (a € in a short string makes it so), where a character
  // past ASCII after a backslash would become an escape JSON allows, and bad bytes are found by its own check.
  const escaped = [
    ...bad,
    enc.encode('{"a":"\\€","b":"€"}'),
    enc.encode('{"a":"\\\\\\😀","b":"€"}'),
    enc.encode('{"a":"€"}€'),
    enc.encode('{"a":"€","b":"﻿"}﻿'),
    ...[
      [0xc0, 0x80],
      [0xc1, 0xbf],
      [0xe0, 0x9f, 0xbf],
      [0xed, 0xa0, 0x80],
      [0xf0, 0x8f, 0xbf, 0xbf],
      [0xf4, 0x90, 0x80, 0x80],
      [
        0xf5,
        0x80,
        0x80,
        0x80,
      ],
      [0x80],
      [0xe2, 0x82],
      [0xe2, 0x41, 0x41],
      [0xf0, 0x9f, 0x98],
    ].map((seq) => new Uint8Array([...enc.encode('{"a":"x'), ...seq, ...enc.encode('y","b":"€"}')])),
  ];
  // Refused for the reason decoding the whole line first gives: bad bytes anywhere make it "not UTF-8", even where
  // the first problem met is a JSON one (a red team's lines: an unclosed string, a bad escape in a literal taken
  // apart, a backslash before a € with a surrogate's bytes after it, a \u escape cut by a tiny chunk).
  const kinds = [
    new Uint8Array([...enc.encode('"'), 0xff]),
    new Uint8Array([...enc.encode(`["\\x${"a".repeat(300)}","`), 0xff, ...enc.encode('"]')]),
    new Uint8Array([...enc.encode('["\\€","'), 0xed, 0xa0, 0x80, ...enc.encode('",1111111111]')]),
    enc.encode('["\\u12€"]'),
  ];
  for (const bytes of [...escaped, ...kinds]) {
    const label = new TextDecoder().decode(bytes);
    assert.match(String(expected(bytes)), /^invalid /, label);
    for (
      const options of [
        tiny,
        { ...tiny, chunkBytes: 2, escapeRatio: NEVER },
        { ...tiny, extractBytes: 100, extractKeyBytes: 100, escapeRatio: ALWAYS },
        { ...tiny, extractBytes: 100, extractKeyBytes: 100, escapeRatio: NEVER },
      ]
    ) {
      assert.equal(parsed(bytes, options), expected(bytes), `${label} ${JSON.stringify(options)}`);
    }
    const withDefaults = parseLargeLine(bytes);
    assert.equal("invalid" in withDefaults ? `invalid ${withDefaults.invalid}` : "parsed", expected(bytes), label);
  }
  // Just valid: a backslash escaped before the €, the largest code points of each size, a pair.
  for (const text of ['{"a":"\\\\€","b":"€"}', '{"a":"\u07ff\uffff\udbff\udfff 😀","b":"€"}']) {
    const bytes = enc.encode(JSON.stringify(JSON.parse(text)));
    assert.doesNotMatch(String(expected(bytes)), /^invalid/, text);
    assert.deepEqual(
      parsed(bytes, { ...tiny, extractBytes: 100, extractKeyBytes: 100, escapeRatio: ALWAYS }),
      expected(bytes),
    );
  }
});

Deno.test("parseLargeLine() agrees with JSON.parse on 3,000 seeded random lines", () => {
  let seed = 20261204;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
  const pieces = [
    "a",
    "é",
    "€",
    "😀",
    "\\n",
    '\\"',
    "\\\\",
    "\\u00e9",
    "\\ud83d\\ude00",
    "\\ud83d",
    "\n",
    "\\x",
    "\\u12",
  ];
  const string = () => `"${Array.from({ length: Math.floor(random() * 12) }, () => pick(pieces)).join("")}"`;
  const value = (depth: number): string => {
    const kind = depth > 3 ? 0 : Math.floor(random() * 4);
    if (kind === 0) return pick([string(), "1", "-0.5", "true", "null"]);
    if (kind === 1) return `[${Array.from({ length: Math.floor(random() * 4) }, () => value(depth + 1)).join(",")}]`;
    return `{${Array.from({ length: Math.floor(random() * 4) }, () => `${string()}:${value(depth + 1)}`).join(",")}}`;
  };
  for (let i = 0; i < 3000; i++) {
    const bytes = enc.encode(value(0));
    const options = {
      extractBytes: Math.floor(random() * 8),
      extractKeyBytes: Math.floor(random() * 8),
      chunkBytes: 1 + Math.floor(random() * 9),
      escapeRatio: pick([NEVER, 0.25, ALWAYS]),
    };
    assert.deepEqual(parsed(bytes, options), expected(bytes), new TextDecoder().decode(bytes));
  }
});

Deno.test("parseLargeLine() lets the bytes go once decoded, before parsing, and gives the skeleton for the ids", () => {
  const bytes = enc.encode(`{"jsonrpc":"2.0","id":1.50,"params":{"text":"${"é".repeat(100)}"}}`);
  let released = 0;
  const result = parseLargeLine(bytes, () => released++, { ...tiny, extractKeyBytes: 4096, escapeRatio: NEVER });
  assert.equal(released, 1);
  assert.ok(!("invalid" in result));
  assert.match(result.text, /^\{"jsonrpc":"2.0","id":1.50,"params":\{"text":"\\u0000/);
  assert.equal((result.value as { params: { text: string } }).params.text, "é".repeat(100));
});

Deno.test("parseLargeLine() keeps the skeleton one byte a character where few characters are past U+00FF, and takes keys over 512 bytes apart", () => {
  // A line of short strings with a € each, as many as a message may hold at this size: decoded whole, its text would
  // be two bytes a character (V8 makes a string two-byte for one such character), ASCII included.
  const items = Array.from({ length: 2000 }, (_, i) => `"€${String(i).padStart(6, "0")}${"a".repeat(240)}"`);
  const longKey = "k".repeat(600);
  const line = `{"jsonrpc":"2.0","id":1,"params":{"pad":[${items.join(",")}],"${longKey}":"😀 \\\\€"}}`;
  const bytes = enc.encode(line);
  const result = parseLargeLine(bytes);
  assert.ok(!("invalid" in result));
  assert.deepEqual(result.value, JSON.parse(line));
  assert.doesNotMatch(result.text, /[^\x20-\xff]/, "no character past U+00FF in the skeleton's text");
  assert.ok(result.text.length < 1.1 * bytes.length, "the escapes add six bytes for each three of a €, no more");
  assert.ok(!result.text.includes(longKey), "the 600-byte key is taken apart");
  // Where most characters are past ASCII, escapes would be larger: the text is decoded as it is.
  const dense = `{"jsonrpc":"2.0","id":1,"params":{"pad":[${Array(2000).fill('"€€€€€€€€"').join(",")}]}}`;
  const denseResult = parseLargeLine(enc.encode(dense));
  assert.ok(!("invalid" in denseResult));
  assert.deepEqual(denseResult.value, JSON.parse(dense));
  assert.match(denseResult.text, /€/);
});

Deno.test("isUtf8() says what the strict decoder says, a sequence anywhere, across the edges of its 64 KiB slices", () => {
  const strict = new TextDecoder("utf-8", { fatal: true });
  const judge = (bytes: Uint8Array) => {
    try {
      strict.decode(bytes);
      return true;
    } catch {
      return false;
    }
  };
  const sequences = [
    [0xc3, 0xa9],
    [0xe2, 0x82, 0xac],
    [0xf0, 0x9f, 0x98, 0x80],
    [0xf4, 0x8f, 0xbf, 0xbf],
    [0xc0, 0x80],
    [0xe0, 0x9f, 0xbf],
    [0xed, 0xa0, 0x80],
    [0xf4, 0x90, 0x80, 0x80],
    [0xf5, 0x80],
    [0x80],
    [0xe2, 0x82],
    [0xf0, 0x9f, 0x98],
  ];
  const slice = 64 * 1024;
  let checked = 0;
  for (const sequence of sequences) {
    for (const at of [0, 1, slice - 5, slice - 4, slice - 3, slice - 2, slice - 1, slice, 2 * slice - 3]) {
      for (const length of [at + sequence.length, at + sequence.length + 1, 2 * slice + 7]) {
        const bytes = new Uint8Array(length).fill(0x61);
        bytes.set(sequence, at);
        assert.equal(isUtf8(bytes), judge(bytes), `${sequence} at ${at} of ${length}`);
        checked++;
      }
    }
  }
  assert.equal(checked, 12 * 9 * 3);
});

Deno.test("isAscii() finds one byte over 0x7f wherever it is, at any offset, in a plain or a resizable buffer", () => {
  const slice = 64 * 1024;
  const lengths = [0, 1, 3, 4, 5, 7, slice - 1, slice, slice + 1, 2 * slice + 3];
  const resizable = new ArrayBuffer(0, { maxByteLength: 4 * slice });
  resizable.resize(2 * slice + 16);
  const plain = new ArrayBuffer(2 * slice + 16);
  let checked = 0;
  for (const buffer of [plain, resizable]) {
    for (const offset of [0, 1, 2, 3]) {
      for (const length of lengths) {
        const bytes = new Uint8Array(buffer, offset, length);
        // Positions next to each word and slice boundary, and the ends.
        const places = new Set([0, 1, 2, 3, 4, length - 1, length - 2, slice - 1, slice, slice + 1, 2 * slice]);
        bytes.fill(0x7f);
        assert.equal(isAscii(bytes), true, `all ASCII, offset ${offset}, length ${length}`);
        for (const at of places) {
          if (at < 0 || at >= length) continue;
          for (const high of [0x80, 0xc3, 0xff]) {
            bytes[at] = high;
            assert.equal(isAscii(bytes), false, `0x${high.toString(16)} at ${at}, offset ${offset}, length ${length}`);
            bytes[at] = 0x7f;
            checked++;
          }
        }
        // A byte over 0x7f just outside the view is not the view's.
        if (offset > 0) {
          new Uint8Array(buffer)[offset - 1] = 0xff;
          assert.equal(isAscii(bytes), true);
          new Uint8Array(buffer)[offset - 1] = 0;
        }
        if (offset + length < buffer.byteLength) {
          new Uint8Array(buffer)[offset + length] = 0xff;
          assert.equal(isAscii(bytes), true);
          new Uint8Array(buffer)[offset + length] = 0;
        }
      }
    }
  }
  assert.ok(checked > 500);
});
