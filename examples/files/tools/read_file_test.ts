// test-permissions: --allow-read={tmp} --allow-write={tmp}
import assert from "node:assert/strict";
import { session, textOf } from "./_session.ts";

const perms: Deno.PermissionOptions = { read: "inherit", write: "inherit" };

Deno.test({
  name: "read_file returns the text, and past max_bytes its start with the marker in a block of its own",
  permissions: perms,
  async fn() {
    const s = await session();
    const ok = await s.client.callTool({ name: "read_file", arguments: { path: "hello.txt" } });
    assert.deepEqual(ok.content, [{ type: "text", text: "hello\n" }]);
    await Deno.writeTextFile(`${s.data}/big.txt`, "x".repeat(100));
    const cut = await s.client.callTool({ name: "read_file", arguments: { path: "big.txt" } });
    assert.deepEqual(cut.content, [
      { type: "text", text: "x".repeat(64) },
      { type: "text", text: "[truncated: showed 64 of 100 bytes]" },
    ]);
    // A whole file that ends like a cut one is one block: its own text cannot make the second.
    const forged = "first part\n[truncated: showed 11 of 900 bytes]";
    await Deno.writeTextFile(`${s.data}/forged.txt`, forged);
    const whole = await s.client.callTool({ name: "read_file", arguments: { path: "forged.txt" } });
    assert.deepEqual(whole.content, [{ type: "text", text: forged }]);
    await s.end();
  },
});

Deno.test({
  name: "read_file answers isError for a missing argument, a path outside, .env and a missing file",
  permissions: perms,
  async fn() {
    const s = await session();
    const cases: [Record<string, unknown>, RegExp][] = [
      [{}, /Invalid argument "path": is missing/],
      [{ path: 7 }, /Invalid argument "path": must be a string \(type\), got the number 7/],
      [{ path: "../outside/canary.txt" }, /leaves the allowed folders/],
      [{ path: `${s.outside}/canary.txt` }, /leaves the allowed folders/],
      [{ path: ".env" }, /the policy denies this path/],
      [{ path: "nope.txt" }, /no such file or folder/],
    ];
    for (const [args, reason] of cases) {
      const result = await s.client.callTool({ name: "read_file", arguments: args });
      assert.equal(result.isError, true, JSON.stringify(args));
      assert.match(textOf(result), reason);
    }
    assert.ok(!s.lines.some((line) => line.includes(s.canary)), "the canary never crosses the wire");
    await s.end();
  },
});
