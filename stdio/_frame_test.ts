import assert from "node:assert/strict";
import { type Frame, LineFramer, OVERSIZE_HEAD_BYTES, OVERSIZE_TAIL_BYTES } from "./_frame.ts";
import { prng } from "../internal/prng.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();

function frames(max: number, chunks: (string | Uint8Array)[], end = true): Frame[] {
  const out: Frame[] = [];
  const framer = new LineFramer(max);
  // Copy line bytes: the framer only lends them for the duration of the call.
  const sink = (f: Frame) => out.push(f.kind === "line" ? { kind: "line", size: f.size, bytes: f.bytes.slice() } : f);
  for (const c of chunks) framer.push(typeof c === "string" ? enc.encode(c) : c, sink);
  if (end) framer.end(sink);
  return out;
}

function texts(list: Frame[]): string[] {
  return list.map((f) => (f.kind === "line" ? dec.decode(f.bytes) : `<oversize ${f.size}>`));
}

Deno.test("LineFramer splits one chunk into its lines", () => {
  assert.deepEqual(texts(frames(100, ["a\nb\nc\n"])), ["a", "b", "c"]);
});

Deno.test("LineFramer joins a line split across many chunks", () => {
  assert.deepEqual(texts(frames(100, ['{"a"', ":", "1}\n{", '"b":2}\n'])), ['{"a":1}', '{"b":2}']);
});

Deno.test("LineFramer strips CR of CRLF line endings", () => {
  assert.deepEqual(texts(frames(100, ["a\r\nb\r", "\n"])), ["a", "b"]);
});

Deno.test("LineFramer skips empty and blank lines", () => {
  assert.deepEqual(texts(frames(100, ["\n\n  \t\na\n\r\n"])), ["a"]);
});

Deno.test("LineFramer skips a line of only a UTF-8 BOM, or a BOM then white space, as blank, and keeps a BOM before a message", () => {
  const bom = [0xef, 0xbb, 0xbf];
  const nl = 0x0a;
  const bytes = (...parts: number[][]) => new Uint8Array(parts.flat());
  assert.deepEqual(
    texts(frames(100, [bytes(bom, [nl], bom, [0x20, 0x09, 0x0d, nl], bom, [...enc.encode("a\n")])])),
    ["a"],
  );
  // Split across reads, and as the last line with no newline.
  assert.deepEqual(texts(frames(100, [bytes([0xef]), bytes([0xbb, 0xbf, 0x20]), bytes([nl]), bytes(bom)])), []);
  // Only a whole BOM is dropped: a cut one, or one further in, leaves a line the decoder refuses.
  assert.equal(frames(100, [bytes([0xef, 0xbb, 0x20, nl])]).length, 1);
  assert.equal(frames(100, [bytes([0x20], bom, [nl])]).length, 1);
});

Deno.test("LineFramer delivers a final line without newline at end of input", () => {
  assert.deepEqual(texts(frames(100, ["a\npartial"])), ["a", "partial"]);
  assert.deepEqual(texts(frames(100, ["a\npartial"], false)), ["a"]);
});

Deno.test("LineFramer keeps a UTF-8 character split across reads intact", () => {
  const bytes = enc.encode("é€😀\n");
  const chunks = [...bytes].map((b) => new Uint8Array([b]));
  assert.deepEqual(texts(frames(100, chunks)), ["é€😀"]);
});

Deno.test("LineFramer copies a pending partial line, so a reused read buffer cannot corrupt it", () => {
  const framer = new LineFramer(100);
  const out: string[] = [];
  const buf = enc.encode("abc");
  framer.push(buf, (f) => f.kind === "line" && out.push(dec.decode(f.bytes)));
  buf.set(enc.encode("XYZ"));
  framer.push(enc.encode("def\n"), (f) => f.kind === "line" && out.push(dec.decode(f.bytes)));
  assert.deepEqual(out, ["abcdef"]);
});

Deno.test("LineFramer accepts a line of exactly the limit and refuses one byte more", () => {
  assert.deepEqual(texts(frames(5, ["12345\n"])), ["12345"]);
  assert.deepEqual(texts(frames(5, ["123456\n"])), ["<oversize 6>"]);
  assert.deepEqual(texts(frames(5, ["123", "456\n"])), ["<oversize 6>"]);
});

Deno.test("LineFramer counts a line against the limit without its CRLF ending, in one read or split across reads", () => {
  assert.deepEqual(texts(frames(5, ["12345\r\n"])), ["12345"]);
  assert.deepEqual(texts(frames(5, ["123", "45\r", "\n"])), ["12345"]);
  assert.deepEqual(texts(frames(5, ["123", "45\r\n"])), ["12345"]);
  assert.deepEqual(texts(frames(5, ["12345\r"])), ["12345"], "a last line at end of input too");
  // One byte over is refused, and its size is the message's, its CR not counted.
  assert.deepEqual(texts(frames(5, ["123456\r\n"])), ["<oversize 6>"]);
  assert.deepEqual(texts(frames(5, ["123", "456\r\n"])), ["<oversize 6>"]);
  assert.deepEqual(texts(frames(5, ["123", "456", "\n"])), ["<oversize 6>"]);
  const held = frames(5, ["12", "3456\nok\n"]);
  assert.deepEqual(texts(held), ["<oversize 6>", "ok"]);
  const [over] = held;
  assert.ok(over.kind === "oversize");
  assert.deepEqual([dec.decode(over.head), dec.decode(over.tail)], ["123456", "123456"]);
});

Deno.test("LineFramer drops an oversize line as it streams, keeps its head and tail, then goes on", () => {
  const framer = new LineFramer(1000);
  const out: Frame[] = [];
  const sink = (f: Frame) => out.push(f.kind === "line" ? { kind: "line", size: f.size, bytes: f.bytes.slice() } : f);
  framer.push(enc.encode('{"jsonrpc":"2.0","id":7,"params":"'), sink);
  for (let i = 0; i < 100; i++) framer.push(new Uint8Array(10_000).fill(0x61), sink);
  assert.ok(framer.pending > 1000, "the size is still counted");
  framer.push(enc.encode('"}\r\n{"ok":1}\n'), sink);
  assert.equal(out.length, 2);
  const big = out[0];
  assert.equal(big.kind, "oversize");
  if (big.kind !== "oversize") return;
  assert.equal(big.size, 34 + 1_000_000 + 2, "the size of the message, its CR not counted");
  assert.equal(big.head.length, OVERSIZE_HEAD_BYTES);
  assert.ok(dec.decode(big.head).startsWith('{"jsonrpc":"2.0","id":7'));
  assert.ok(big.tail.length <= OVERSIZE_TAIL_BYTES);
  assert.ok(dec.decode(big.tail).endsWith('aa"}'), "the tail ends at the line end, CR removed");
  assert.deepEqual(texts([out[1]]), ['{"ok":1}']);
});

Deno.test("LineFramer reports an oversize partial line at end of input", () => {
  assert.deepEqual(texts(frames(10, ["x".repeat(50)])), ["<oversize 50>"]);
});

Deno.test("LineFramer handles a million one-byte chunks of one line", () => {
  const framer = new LineFramer(2_000_000);
  const one = new Uint8Array([0x62]);
  let got = 0;
  for (let i = 0; i < 1_000_000; i++) framer.push(one, () => got++);
  framer.push(enc.encode("\n"), (f) => {
    got++;
    assert.equal(f.kind === "line" && f.bytes.length, 1_000_000);
  });
  assert.equal(got, 1);
});

Deno.test("LineFramer hands out the text of all-ASCII lines decoded once per chunk, and only then", () => {
  const got: { bytes: string; text: string | undefined }[] = [];
  const framer = new LineFramer(1_000);
  const sink = (f: Frame) => {
    if (f.kind === "line") got.push({ bytes: new TextDecoder().decode(f.bytes), text: f.text });
  };
  framer.push(new TextEncoder().encode('{"a":1}\r\n\n  \n{"b":2}\n{"c"'), sink);
  framer.push(new TextEncoder().encode(':3}\n{"d":4}\n'), sink);
  framer.push(new TextEncoder().encode('{"e":"é"}\n{"f":5}\n'), sink);
  framer.push(new Uint8Array([0x7b, 0x80, 0x7d, 0x0a]), sink);
  assert.deepEqual(got, [
    { bytes: '{"a":1}', text: '{"a":1}' },
    { bytes: '{"b":2}', text: '{"b":2}' },
    // Joined across chunks: no text, the dispatcher decodes the bytes.
    { bytes: '{"c":3}', text: undefined },
    { bytes: '{"d":4}', text: '{"d":4}' },
    // Not all ASCII: no text for any line of that chunk.
    { bytes: '{"e":"é"}', text: undefined },
    { bytes: '{"f":5}', text: undefined },
    { bytes: "{\uFFFD}", text: undefined },
  ]);
});

Deno.test("LineFramer decodes nothing ahead for a run longer than one message", () => {
  const got: (string | undefined)[] = [];
  const framer = new LineFramer(10);
  const sink = (f: Frame) => {
    if (f.kind === "line") got.push(f.text);
  };
  framer.push(new TextEncoder().encode(`ok\n${"x".repeat(50)}\n`), sink);
  assert.deepEqual(got, [undefined]);
  // After an oversize line, the run starts at the next line that fits.
  framer.push(new TextEncoder().encode(`${"x".repeat(50)}\nok\n`), sink);
  assert.deepEqual([...got], [undefined, "ok"]);
});

Deno.test("LineFramer lends a line gathered over reads with release(), which returns a large line's pages at once", () => {
  const big = 2 * 1024 * 1024;
  const framer = new LineFramer(4 * 1024 * 1024);
  const chunk = new Uint8Array(64 * 1024).fill(0x78);
  const seen: { before: number; after: number; released: boolean }[] = [];
  for (let sent = 0; sent < big; sent += chunk.length) framer.push(chunk, () => assert.fail("no line yet"));
  framer.push(enc.encode("\nshort\n"), (f) => {
    if (f.kind !== "line") return assert.fail("a line");
    const before = f.bytes.length;
    f.release?.();
    seen.push({ before, after: f.bytes.length, released: f.release !== undefined });
  });
  assert.deepEqual(seen, [
    { before: big, after: 0, released: true },
    // A line within one read is a view of the caller's chunk: nothing to give back.
    { before: 5, after: 5, released: false },
  ]);
});

Deno.test("LineFramer frames any input read in any chunks as one pass over its whole bytes would, and each line's text is its bytes, an oversize line's head and tail its first and last bytes", () => {
  // A seeded differential check of both ways a line is found (in the decoded
  // text of an all-ASCII run, or in the bytes): lines of ASCII, of two-byte
  // text, blank, CRLF-ended, over the limit, cut at random places.
  const next = prng(20261206);
  const random = (n: number) => Math.floor(next() * n);
  const pieces = ['{"a":1}', "é", "  ", "\r", "", "x".repeat(40), '{"id":7}', "\t"];
  for (let round = 0; round < 300; round++) {
    const max = 8 + random(40);
    const lines = Array.from({ length: 1 + random(12) }, () => {
      let line = "";
      for (let i = random(4); i > 0; i--) line += pieces[random(pieces.length)];
      return line;
    });
    const input = enc.encode(lines.join("\n") + (random(2) ? "\n" : ""));
    const expected: string[] = [];
    for (const line of dec.decode(input).split("\n")) {
      const trimmed = line.endsWith("\r") ? line.slice(0, -1) : line;
      const size = enc.encode(trimmed).length;
      if (size > max) {
        const bytes = enc.encode(trimmed);
        const head = dec.decode(bytes.subarray(0, OVERSIZE_HEAD_BYTES));
        const tail = dec.decode(bytes.subarray(Math.max(0, size - OVERSIZE_TAIL_BYTES)));
        expected.push(`<oversize ${size} ${JSON.stringify(head)} ${JSON.stringify(tail)}>`);
      } else if (trimmed.trim() !== "") expected.push(trimmed);
    }
    const chunks: Uint8Array[] = [];
    for (let at = 0; at < input.length;) {
      const end = Math.min(input.length, at + 1 + random(24));
      chunks.push(input.slice(at, end));
      at = end;
    }
    const got: string[] = [];
    const framer = new LineFramer(max);
    const sink = (f: Frame) => {
      if (f.kind === "oversize") {
        return got.push(
          `<oversize ${f.size} ${JSON.stringify(dec.decode(f.head))} ${JSON.stringify(dec.decode(f.tail))}>`,
        );
      }
      const text = dec.decode(f.bytes);
      if (f.text !== undefined) assert.equal(f.text, text, `round ${round}: a line's text is not its bytes`);
      got.push(text);
    };
    for (const chunk of chunks) framer.push(chunk, sink);
    framer.end(sink);
    assert.deepEqual(
      got,
      expected,
      `round ${round}: ${JSON.stringify(lines)} in ${chunks.length} chunks, limit ${max}`,
    );
  }
});
