// test-permissions: --allow-run --allow-read={repo},{tmp} --allow-write={tmp} --allow-env=TMPDIR,{child-env}
import assert from "node:assert/strict";
import { spawnServer } from "@forge/toolkit/testing";
import { SERVER_IN_TMP } from "../internal/testdata/server_in_tmp.ts";

const fixture = new URL("./testdata/limits_server.ts", import.meta.url).pathname;
const perms = SERVER_IN_TMP;

Deno.test({
  name: "rateLimit() refuses calls past the bucket with an isError result, through a real subprocess",
  permissions: perms,
  async fn() {
    const server = await spawnServer({ args: [fixture, "--rate=1", "--burst=3"] });
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) => server.client.callTool({ name: "write", arguments: { path: `f${i}` } })),
    );
    const refused = results.filter((r) => r.isError);
    assert.equal(results.length - refused.length, 3, "the burst passes");
    assert.equal(refused.length, 3);
    assert.match(
      JSON.stringify(refused[0].content),
      /Rate limit exceeded for tool \\"write\\": at most 1 calls per second/,
    );
    assert.equal((await server.close()).code, 0);
  },
});

Deno.test({
  name: "concurrencyLimit() refuses calls past the limit while others run, and frees slots when they end",
  permissions: perms,
  async fn() {
    const server = await spawnServer({ args: [fixture, "--concurrency=2"] });
    const results = await Promise.all(
      Array.from(
        { length: 5 },
        (_, i) => server.client.callTool({ name: "write", arguments: { path: `f${i}`, ms: 200 } }),
      ),
    );
    assert.equal(results.filter((r) => !r.isError).length, 2);
    assert.match(
      JSON.stringify(results.find((r) => r.isError)!.content),
      /Too many concurrent calls of tool \\"write\\": at most 2/,
    );
    const later = await server.client.callTool({ name: "write", arguments: { path: "again" } });
    assert.equal(later.isError, undefined);
    assert.equal((await server.close()).code, 0);
  },
});

Deno.test({
  name: "a server audits to a file it was granted --allow-write for, and to nothing else",
  permissions: perms,
  async fn() {
    const dir = await Deno.makeTempDir();
    const file = `${dir}/audit.jsonl`;
    const server = await spawnServer({
      args: [`--allow-read=${file}`, `--allow-write=${file}`, fixture, `--audit=${file}`],
    });
    await server.client.callTool({ name: "write", arguments: { path: "notes.txt" } });
    assert.equal((await server.close()).code, 0);
    const [intent, outcome] = (await Deno.readTextFile(file)).trim().split("\n").map((line) => JSON.parse(line));
    assert.deepEqual(intent.patterns, ["write:notes.txt"]);
    assert.equal(outcome.outcome, "ok");
    await Deno.remove(dir, { recursive: true });
  },
});
