import assert from "node:assert/strict";
import { textWithNotice } from "@forge/toolkit";
import { readReplyBytes, searchReplyBytes } from "./reply_bounds.ts";
import { SEARCH_DEFAULTS } from "./search.ts";

Deno.test("readReplyBytes() covers a file of control characters, each written in six bytes of JSON", () => {
  const text = "\u0001".repeat(1000);
  const reply = JSON.stringify({ jsonrpc: "2.0", id: 1, result: { content: [{ type: "text", text }] } });
  assert.ok(reply.length <= readReplyBytes(1000), `${reply.length}`);
  // Cut, the marker comes in a second block: the largest a file's size can make it still fits.
  const marker = `[truncated: showed 1000 of ${Number.MAX_SAFE_INTEGER} bytes]`;
  const cut = JSON.stringify({ jsonrpc: "2.0", id: 1, result: textWithNotice(text, marker) });
  assert.ok(cut.length <= readReplyBytes(1000), `${cut.length}`);
  assert.ok(readReplyBytes(1 << 20) < 7 * (1 << 20), "and not far above it");
});

Deno.test("searchReplyBytes() covers matches whose names and paths are all control characters, sent twice", () => {
  const bounds = { maxDepth: 1, maxResults: 3 };
  const name = "\u0001".repeat(255);
  const match = { name, path: `${"\u0001".repeat(4096)}/${name}/${name}`, type: "file", size: 2 ** 53 - 1 };
  const value = {
    root: "\u0001".repeat(4096),
    path: "\u0001".repeat(4096),
    pattern: "\u0001".repeat(255),
    matches: [match, match, match],
    truncated: true,
    limits_hit: ["max_depth", "max_results", "max_entries", "time", "folder_size"],
  };
  const reply = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    result: { content: [{ type: "text", text: JSON.stringify(value) }], structuredContent: value },
  });
  assert.ok(reply.length <= searchReplyBytes(bounds), `${reply.length} > ${searchReplyBytes(bounds)}`);
  assert.ok(searchReplyBytes(SEARCH_DEFAULTS) < 20 * 1024 * 1024);
});
