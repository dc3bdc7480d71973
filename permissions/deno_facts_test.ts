// test-permissions: --allow-read={tmp} --allow-write={tmp} --allow-run --allow-net=127.0.0.1
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

// The facts about Deno 2.9.6's permissions that the two-layer design and
// docs/security.md rely on, each checked in a real process under real flags.
// If an upgrade of Deno changes one, this file says which.
const probe = fileURLToPath(new URL("./testdata/deno_probe.ts", import.meta.url));
const perms = { run: [Deno.execPath()], net: ["127.0.0.1"] };

async function deno(flags: string[], ...args: string[]): Promise<{ code: number; out: unknown; err: string }> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", "--no-prompt", "--no-config", ...flags, probe, ...args],
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  const text = new TextDecoder().decode(output.stdout).trim();
  return { code: output.code, out: text ? JSON.parse(text) : undefined, err: new TextDecoder().decode(output.stderr) };
}

async function withServer(fn: (port: number) => Promise<void>): Promise<void> {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => new Response("up"));
  try {
    await fn(server.addr.port);
  } finally {
    await server.shutdown();
  }
}

Deno.test({
  name: "query() of a name without a path says granted only for an unscoped grant",
  permissions: perms,
  async fn() {
    const ask = JSON.stringify([{ name: "read" }, { name: "read", path: "/tmp" }, { name: "read", path: "/" }]);
    assert.deepEqual((await deno(["--allow-read=/tmp"], "query", ask)).out, ["prompt", "granted", "prompt"]);
    assert.deepEqual((await deno(["--allow-read"], "query", ask)).out, ["granted", "granted", "granted"]);
    assert.deepEqual((await deno(["-A"], "query", ask)).out, ["granted", "granted", "granted"]);
    assert.deepEqual((await deno([], "query", ask)).out, ["prompt", "prompt", "prompt"]);
  },
});

Deno.test({
  name: "query() of a net host without a port needs a grant for every port",
  permissions: perms,
  async fn() {
    const ask = JSON.stringify([{ name: "net", host: "127.0.0.1" }, { name: "net", host: "127.0.0.1:80" }]);
    assert.deepEqual((await deno(["--allow-net=127.0.0.1:80"], "query", ask)).out, ["prompt", "granted"]);
    assert.deepEqual((await deno(["--allow-net=127.0.0.1"], "query", ask)).out, ["granted", "granted"]);
  },
});

Deno.test({
  name: "--allow-net takes *.suffix (matching the apex too) and IPv4 CIDR, but no IPv6 CIDR",
  permissions: perms,
  async fn() {
    const ask = JSON.stringify([
      { name: "net", host: "a.b.example.com" },
      { name: "net", host: "example.com" },
      { name: "net", host: "badexample.com" },
      { name: "net", host: "10.9.8.7:443" },
    ]);
    assert.deepEqual((await deno(["--allow-net=*.example.com,10.0.0.0/8"], "query", ask)).out, [
      "granted",
      "granted",
      "prompt",
      "granted",
    ]);
    const v6 = await deno(["--deny-net=[fc00::]/7"], "query", "[]");
    assert.notEqual(v6.code, 0);
    assert.match(v6.err, /invalid host/);
  },
});

Deno.test({
  name: "--allow-net checks the name given, not the address it resolves to",
  permissions: perms,
  fn: () =>
    withServer(async (port) => {
      assert.deepEqual((await deno([`--allow-net=localhost:${port}`], "connect", "localhost", `${port}`)).out, {
        ok: "127.0.0.1",
      });
      const byAddress = await deno([`--allow-net=localhost:${port}`], "connect", "127.0.0.1", `${port}`);
      assert.equal((byAddress.out as { error: string }).error, "NotCapable");
    }),
});

Deno.test({
  name: "--deny-net with a CIDR is checked on the resolved address, for connect and fetch",
  permissions: perms,
  fn: () =>
    withServer(async (port) => {
      const flags = [`--allow-net=localhost:${port}`, "--deny-net=127.0.0.0/8"];
      const connect = (await deno(flags, "connect", "localhost", `${port}`)).out as { error: string; message: string };
      assert.equal(connect.error, "NotCapable");
      assert.match(connect.message, new RegExp(`127\\.0\\.0\\.1:${port}`));
      const fetched = (await deno(flags, "fetch", `http://localhost:${port}/`)).out as { error: string };
      assert.ok(fetched.error, "fetch went through");
    }),
});

Deno.test({
  name: "node:dns lookup() needs --allow-net for the name on all ports",
  permissions: perms,
  async fn() {
    assert.deepEqual((await deno(["--allow-net=localhost"], "lookup", "localhost")).out, { ok: "127.0.0.1" });
    assert.ok(((await deno(["--allow-net=localhost:443"], "lookup", "localhost")).out as { error: string }).error);
  },
});

Deno.test({
  name: "Deno.resolveDns() needs --allow-net for the name server, not for the name",
  permissions: perms,
  async fn() {
    const denied = (await deno(["--allow-net=localhost"], "resolveDns", "localhost", "127.0.0.1", "5353")).out as {
      error: string;
      message: string;
    };
    assert.equal(denied.error, "NotCapable");
    assert.match(denied.message, /127\.0\.0\.1:5353/);
  },
});

const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "facts_" }));
globalThis.addEventListener("unload", () => Deno.removeSync(dir, { recursive: true }));

Deno.test({
  name: "Deno.symlink() needs unscoped read and write, so scoped servers cannot plant links",
  permissions: { ...perms, read: [dir] },
  async fn() {
    const link = join(dir, "link");
    const scoped = await deno([`--allow-read=${dir}`, `--allow-write=${dir}`], "symlink", "/etc/hostname", link);
    assert.equal((scoped.out as { error: string }).error, "NotCapable");
    await assert.rejects(Deno.lstat(link), Deno.errors.NotFound);
    const unscoped = await deno(["--allow-read", "--allow-write"], "symlink", "/etc/hostname", link);
    assert.deepEqual(unscoped.out, {});
    assert.ok((await Deno.lstat(link)).isSymlink);
  },
});

Deno.test({
  name:
    "realPath() under a scoped --allow-read drops `link/..` from its argument before resolving it; realpath(3) and -A do not",
  async fn() {
    const base = await Deno.realPath(await Deno.makeTempDir());
    try {
      // base/in/lnk → base/out/sub; base/in/x and base/out/x both exist.
      for (const dir of ["in/x", "out/sub", "out/x"]) await Deno.mkdir(join(base, dir), { recursive: true });
      // Deno.symlink needs unscoped grants; ln does not.
      const ln = await new Deno.Command("ln", { args: ["-s", join(base, "out", "sub"), join(base, "in", "lnk")] })
        .output();
      assert.ok(ln.success);
      const path = `${base}/in/lnk/../x`;
      const system = new TextDecoder().decode(
        (await new Deno.Command("realpath", { args: [path], stdout: "piped" }).output()).stdout,
      ).trim();
      assert.equal(system, join(base, "out", "x"), "the system follows the link first");
      assert.deepEqual((await deno(["-A"], "realPath", path)).out, { ok: join(base, "out", "x") });
      for (const flags of [[`--allow-read=${base}`], ["--allow-read"]]) {
        assert.deepEqual((await deno(flags, "realPath", path)).out, { ok: join(base, "in", "x") }, flags.join(" "));
      }
    } finally {
      await Deno.remove(base, { recursive: true });
    }
  },
});
