// test-permissions: --allow-run --allow-read={repo},{tmp} --allow-write={tmp} --allow-net=127.0.0.1 --allow-env={child-env},AWS_SECRET_ACCESS_KEY,FORGE_AUDIT_KEY
// The secret names in the line above also keep this file in a `deno test`
// process of its own: it sets proxy variables that would misroute another
// file's loopback requests.
import assert from "node:assert/strict";
import { join } from "node:path";
import { CHILD_ENV_NAMES, childEnv } from "./child_env.ts";
import { spawnRaw } from "../testing/raw_client.ts";

const SECRETS = { AWS_SECRET_ACCESS_KEY: "aws-secret-marker", FORGE_AUDIT_KEY: "audit-key-marker" };
/** What Deno 2.9 puts in a child's environment on its own (its Node shim on PATH). */
const ADDED_BY_DENO = ["PATH", "DENO_NODE_SHIM_ACTIVE"];

/** Sets `vars` in this process for the length of `fn`, then puts the old values back. */
async function withEnv(vars: Record<string, string>, fn: () => Promise<void>): Promise<void> {
  const old = Object.keys(vars).map((name) => [name, Deno.env.get(name)] as const);
  for (const [name, value] of Object.entries(vars)) Deno.env.set(name, value);
  try {
    await fn();
  } finally {
    for (const [name, value] of old) value === undefined ? Deno.env.delete(name) : Deno.env.set(name, value);
  }
}

/** A marker per variable; the paths do not exist and nothing in these tests makes a TLS connection. */
function markers(denoDir: string): Record<string, string> {
  const values: Record<string, string> = {};
  for (const name of CHILD_ENV_NAMES) values[name] = `http://127.0.0.1:9/${name}-marker`;
  return { ...values, DENO_CERT: "/nonexistent/ca-marker.pem", DENO_TLS_CA_STORE: "mozilla", DENO_DIR: denoDir };
}

Deno.test("spawnRaw() hands a child the proxy, certificate and cache variables that are set, and no secret", async () => {
  const dir = await Deno.makeTempDir({ prefix: "child_env_" });
  const script = join(dir, "print_env.ts");
  await Deno.writeTextFile(script, "console.log(JSON.stringify(Deno.env.toObject()));\n");
  const passed = markers(join(dir, "deno_dir"));
  try {
    await withEnv({ ...passed, ...SECRETS }, async () => {
      const server = await spawnRaw({ args: ["--allow-env", script], env: { OWN: "own" } });
      const seen = await server.next(30_000) as Record<string, string>;
      assert.equal((await server.status()).code, 0, server.stderr());
      for (const name of ADDED_BY_DENO) delete seen[name];
      assert.deepEqual(seen, { NO_COLOR: "1", OWN: "own", ...passed });
      assert.equal(childEnv().AWS_SECRET_ACCESS_KEY, undefined);
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("childEnv() lets the child's own variables win and leaves out what this process may not read", async () => {
  const dir = await Deno.makeTempDir({ prefix: "child_env_" });
  const script = join(dir, "narrow.ts");
  const module = new URL("./child_env.ts", import.meta.url).href;
  await Deno.writeTextFile(
    script,
    `import { childEnv } from ${JSON.stringify(module)};\n` +
      `console.log(JSON.stringify(childEnv({ NO_PROXY: "own" })));\n`,
  );
  try {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--quiet", "--no-prompt", "--allow-env=HTTPS_PROXY,NO_PROXY", `--allow-read=${dir}`, script],
      clearEnv: true,
      env: { HTTPS_PROXY: "http://127.0.0.1:9/p", NO_PROXY: "parent", DENO_CERT: "/nonexistent/ca.pem" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    // DENO_CERT is set but not readable: left out, not a NotCapable error.
    assert.deepEqual(JSON.parse(new TextDecoder().decode(out.stdout)), {
      NO_COLOR: "1",
      HTTPS_PROXY: "http://127.0.0.1:9/p",
      NO_PROXY: "own",
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a child with no --allow-env fetches its modules through the HTTPS_PROXY and DENO_CERT childEnv() passes on", async () => {
  // The proxy answers every request with 502 after noting its first line.
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const requests: string[] = [];
  const serving = (async () => {
    for await (const conn of listener) {
      const buffer = new Uint8Array(4096);
      const n = await conn.read(buffer).catch(() => null);
      requests.push(new TextDecoder().decode(buffer.subarray(0, n ?? 0)).split("\r\n")[0]);
      await conn.write(new TextEncoder().encode("HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\n\r\n")).catch(
        () => {},
      );
      conn.close();
    }
  })();
  const dir = await Deno.makeTempDir({ prefix: "child_env_" });
  const proxy = `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`;
  const start = async () => {
    const server = await spawnRaw({
      args: ["--no-prompt", "--allow-import=mod.invalid:443", "https://mod.invalid/main.ts"],
    });
    const status = await server.status();
    return { code: status.code, stderr: server.stderr() };
  };
  try {
    await withEnv({ HTTPS_PROXY: proxy, DENO_DIR: dir }, async () => {
      const viaProxy = await start();
      assert.equal(viaProxy.code, 1);
      assert.ok(requests.includes("CONNECT mod.invalid:443 HTTP/1.1"), `${requests} ${viaProxy.stderr}`);
      await withEnv({ DENO_CERT: join(dir, "missing-ca.pem") }, async () => {
        const withCert = await start();
        assert.equal(withCert.code, 1);
        assert.match(withCert.stderr, /Failed opening CA file/);
      });
    });
  } finally {
    listener.close();
    await serving.catch(() => {});
    await Deno.remove(dir, { recursive: true });
  }
});
