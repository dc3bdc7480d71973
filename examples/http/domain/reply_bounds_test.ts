// test-permissions: --allow-net=127.0.0.1,127.0.0.2,localhost
import assert from "node:assert/strict";
import type { ToolHandler } from "@forge/toolkit";
import { assertCanaryUntouched, testConfig, testServersForFile } from "../testdata/test_servers.ts";
import { fetchUrlHandler } from "../tools/fetch_url.ts";
import type { FetchUrlArgs } from "../tools/fetch_url.ts";
import { ConfigSchema } from "./config.ts";
import { Manager } from "./manager.ts";
import { fetchReplyBytes } from "./reply_bounds.ts";

const servers = testServersForFile();
const MiB = 1024 * 1024;

/** The JSON-RPC reply line the server writes for a handler's result. */
function replyLine(result: unknown): number {
  return new TextEncoder().encode(JSON.stringify({ jsonrpc: "2.0", id: 1, result })).length;
}

Deno.test({
  name:
    "fetchReplyBytes() covers the real reply to a body of control characters and a Content-Type of quotes, sent twice",
  sanitizeOps: false,
  sanitizeResources: false,
  permissions: { net: ["127.0.0.1"] },
  async fn() {
    const config = testConfig(servers, { max_bytes: 1000 });
    const mgr = new Manager(() => Promise.resolve(config), { timeoutMs: config.timeout_ms, initial: config });
    const handler: ToolHandler<FetchUrlArgs> = fetchUrlHandler(mgr);
    // A header cannot hold control characters; a quote and a backslash take 2 + 4 bytes each.
    const query = new URLSearchParams({ body: "\u0001".repeat(2000), type: `text/plain; p=${'\\"'.repeat(200)}` });
    const args = { url: `${servers.main}/token-in?${query}` };
    const result = await handler(
      { arguments: args, signal: new AbortController().signal } as Parameters<
        typeof handler
      >[0],
    );
    const structured =
      (result as unknown as { structuredContent: { body: string; truncated: boolean } }).structuredContent;
    assert.equal(structured.body, "\u0001".repeat(1000), "the body is text, cut at max_bytes");
    assert.ok(structured.truncated);
    const bytes = replyLine(result);
    assert.ok(bytes > 13 * 1000, `${bytes}: the body's characters take 13 bytes each`);
    assert.ok(bytes <= mgr.replyBytes(), `${bytes} > ${mgr.replyBytes()}`);
    assertCanaryUntouched(servers);
  },
});

Deno.test("fetchReplyBytes() covers a result whose every string is at its cap, and lets four default calls run at once", () => {
  const config = ConfigSchema.parse({});
  const control = (n: number) => "\u0001".repeat(n);
  const hop = `https://a.example/${"%01".repeat(341)}`.slice(0, 1024) + "…";
  const value = {
    url: `https://a.example/${"[hidden credential]".repeat(8192 * 7 / 19)}`,
    status: 599,
    content_type: `${control(256)}…`,
    body: control(config.max_bytes),
    truncated: true,
    redirects: Array.from({ length: config.max_redirects }, () => hop),
    binary: false,
  };
  const result = { content: [{ type: "text", text: JSON.stringify(value) }], structuredContent: value };
  assert.ok(replyLine(result) <= fetchReplyBytes(config), `${replyLine(result)} > ${fetchReplyBytes(config)}`);
  assert.ok(4 * fetchReplyBytes(config) < 64 * MiB, `${fetchReplyBytes(config)}`);
  assert.ok(fetchReplyBytes({ max_bytes: 4 * MiB, max_redirects: 10 }) > 52 * MiB, "at the largest, one at a time");
});
