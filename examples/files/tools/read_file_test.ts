// test-permissions: --allow-read={tmp} --allow-write={tmp}
import assert from "node:assert/strict";
import { session, textOf } from "./_session.ts";

const perms: Deno.PermissionOptions = { read: "inherit", write: "inherit" };

Deno.test({
  name: "read_file returns the text, and a marked cut past max_bytes",
  permissions: perms,
  async fn() {
    const s = await session();
    const ok = await s.client.callTool({ name: "read_file", arguments: { path: "hello.txt" } });
    assert.deepEqual(ok.content, [{ type: "text", text: "hello\n" }]);
    await Deno.writeTextFile(`${s.data}/big.txt`, "x".repeat(100));
    const cut = await s.client.callTool({ name: "read_file", arguments: { path: "big.txt" } });
    assert.equal(textOf(cut), `${"x".repeat(64)}\n[truncated: showed 64 of 100 bytes]`);
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
