// test-permissions: --allow-run --allow-read={repo} --allow-env={child-env},FORGE_TEST_SECRET
import assert from "node:assert/strict";
import { spawnServer } from "./subprocess.ts";
import { fileURLToPath } from "node:url";

const fixture = fileURLToPath(new URL("./testdata/echo_server.ts", import.meta.url));

Deno.test("spawnServer() drives a server over its real stdio with only the environment it was given, and closes it", async () => {
  // Set in this process: the server must not see it.
  Deno.env.set("FORGE_TEST_SECRET", "do not leak");
  try {
    const server = await spawnServer({ args: ["--allow-env=GIVEN,FORGE_TEST_SECRET", fixture], env: { GIVEN: "yes" } });
    const result = await server.client.callTool({ name: "echo", arguments: { say: "over a pipe" } });
    assert.deepEqual(result.content, [{ type: "text", text: "over a pipe" }]);
    await server.waitForStderr("fixture ready");
    assert.match(server.stderr(), /GIVEN=yes SECRET=-/);
    assert.ok(server.lines.length >= 2, "initialize and the call");
    assert.ok(server.lines.every((line) => JSON.parse(line).jsonrpc === "2.0"), "nothing but JSON-RPC on stdout");
    assert.equal((await server.close()).code, 0);
  } finally {
    Deno.env.delete("FORGE_TEST_SECRET");
  }
});

Deno.test("spawnServer() that cannot connect says why, with the exit code and the server's stderr", async () => {
  await assert.rejects(spawnServer({ args: [fixture, "--exit-at-once"] }), (err: unknown) => {
    assert.ok(err instanceof Error);
    assert.match(err.message, /^Cannot connect to the server: .* \(exit 4\); stderr: not serving today/);
    return true;
  });
});
