// test-permissions: --allow-run --allow-read={repo} --allow-net=127.0.0.1 --allow-env={child-env}
// A server whose policy uses the network connects to the address layer 1 checked even when its environment names a
// proxy (docs/security.md, note 10): a real server process under exactly its printed flags, a real recording proxy
// and a real target, both on 127.0.0.1.
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { printedPermissions } from "@forge/toolkit/permissions";
import { spawnServer } from "@forge/toolkit/testing";
import { withRecordingProxy } from "../testing/recording_proxy.ts";

const fixture = fileURLToPath(new URL("./testdata/fetch_server.ts", import.meta.url));
const perms: Deno.PermissionOptions = {
  run: [Deno.execPath()],
  read: [fileURLToPath(new URL("..", import.meta.url))],
  net: ["127.0.0.1"],
  env: "inherit",
};

/** A target on 127.0.0.1 that answers `direct` and records each path it is sent. */
async function withTarget(fn: (port: number, paths: string[]) => Promise<void>): Promise<void> {
  const paths: string[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
    paths.push(new URL(req.url).pathname);
    return new Response("direct");
  });
  try {
    await fn(server.addr.port, paths);
  } finally {
    await server.shutdown();
  }
}

/** Starts the fixture with exactly its printed flags and `env`, fetches `url` once, and returns the tool's text. */
async function fetchThrough(args: string[], env: Record<string, string>, url: string): Promise<string> {
  const flags = await printedPermissions({ script: fixture, args, env });
  const server = await spawnServer({ args: ["--no-prompt", ...flags, fixture, ...args], env });
  try {
    const result = await server.client.callTool({ name: "get", arguments: { url } });
    return (result.content as { text: string }[]).map((block) => block.text).join("\n");
  } finally {
    assert.equal((await server.close()).code, 0, server.stderr());
  }
}

Deno.test({
  name:
    "a server whose policy uses the network fetches directly under its printed flags though HTTP_PROXY, HTTPS_PROXY and ALL_PROXY name a proxy: the proxy sees nothing",
  permissions: perms,
  fn: () =>
    withTarget((port, paths) =>
      withRecordingProxy(async ({ port: proxyPort, lines }) => {
        const proxy = `http://127.0.0.1:${proxyPort}`;
        const env = { HTTP_PROXY: proxy, HTTPS_PROXY: proxy, ALL_PROXY: proxy, http_proxy: proxy, all_proxy: proxy };
        const args = ["--private=127.0.0.1", `--port=${port}`];
        assert.equal(await fetchThrough(args, env, `http://127.0.0.1:${port}/target`), "direct");
        assert.deepEqual(paths, ["/target"], "the target saw the request");
        assert.deepEqual(lines, [], "the proxy saw nothing");
      })
    ),
});

Deno.test({
  name: "a server whose policy sets net.environmentProxy keeps the environment's proxy: the proxy gets the request",
  permissions: perms,
  fn: () =>
    withTarget((port, paths) =>
      withRecordingProxy(async ({ port: proxyPort, lines }) => {
        const env = { HTTP_PROXY: `http://127.0.0.1:${proxyPort}` };
        const args = ["--private=127.0.0.1", `--port=${port}`, "--environment-proxy"];
        const url = `http://127.0.0.1:${port}/target`;
        assert.equal(await fetchThrough(args, env, url), "proxied");
        assert.deepEqual(lines, [`GET ${url} HTTP/1.1`]);
        assert.deepEqual(paths, [], "the target was reached through the proxy only");
      })
    ),
});

Deno.test({
  name:
    "the printed flags grant NO_PROXY and no_proxy exactly when the policy uses the network and keeps no environment proxy",
  permissions: perms,
  async fn() {
    const env = (args: string[]) =>
      printedPermissions({ script: fixture, args }).then((flags) => flags.filter((f) => f.startsWith("--allow-env")));
    assert.deepEqual(await env(["--private=127.0.0.1", "--port=8080"]), ["--allow-env=NO_PROXY,no_proxy"]);
    assert.deepEqual(await env(["--private=127.0.0.1", "--port=8080", "--environment-proxy"]), []);
    assert.deepEqual(await env([]), [], "a policy without a host needs no env grant");
  },
});
