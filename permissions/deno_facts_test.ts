// test-permissions: --allow-read={tmp} --allow-write={tmp} --allow-run --allow-net=127.0.0.1
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { withRecordingProxy } from "../testing/recording_proxy.ts";

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

Deno.test({
  name:
    "a --allow-read of a symbolic link reaches below its target, while query() of the target and its files says prompt",
  async fn() {
    const base = await Deno.realPath(await Deno.makeTempDir());
    try {
      // base/lnk → base/target, which holds secret.txt: an extra grant of the link is one the start check cannot see.
      await Deno.mkdir(join(base, "target"));
      await Deno.writeTextFile(join(base, "target", "secret.txt"), "s");
      const ln = await new Deno.Command("ln", { args: ["-s", join(base, "target"), join(base, "lnk")] }).output();
      assert.ok(ln.success);
      const asked = JSON.stringify([join(base, "target"), join(base, "target", "secret.txt")]);
      const { out } = await deno(
        [`--allow-read=${join(base, "lnk")}`],
        "queryThenRead",
        asked,
        `${base}/lnk/secret.txt`,
      );
      assert.deepEqual(out, { states: ["prompt", "prompt"], read: { ok: "s" } });
    } finally {
      await Deno.remove(base, { recursive: true });
    }
  },
});

Deno.test({
  name: "--inspect opens a debugger port that no permission query shows: the process holds no net or sys grant",
  permissions: perms,
  async fn() {
    const ask = JSON.stringify([{ name: "net" }, { name: "net", host: "127.0.0.1" }, { name: "sys" }]);
    const output = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--no-prompt", "--no-config", "--inspect=127.0.0.1:0", probe, "query", ask],
      stdout: "piped",
      stderr: "piped",
      env: { NO_COLOR: "1" },
    }).output();
    const err = new TextDecoder().decode(output.stderr);
    assert.match(err, /^Debugger listening on ws:\/\/127\.0\.0\.1:\d+\//, err);
    assert.deepEqual(JSON.parse(new TextDecoder().decode(output.stdout)), ["prompt", "prompt", "prompt"]);
  },
});

/** The probe in a child whose whole environment is `env` (no proxy variable of this process's own). */
async function denoWithEnv(env: Record<string, string>, flags: string[], ...args: string[]): Promise<unknown> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", "--no-prompt", "--no-config", ...flags, probe, ...args],
    stdout: "piped",
    stderr: "piped",
    clearEnv: true,
    env: { NO_COLOR: "1", ...env },
  }).output();
  return JSON.parse(new TextDecoder().decode(output.stdout));
}

Deno.test({
  name:
    "fetch sends a request to the proxy of HTTP_PROXY, http_proxy, ALL_PROXY or HTTPS_PROXY, and --allow-net checks the URL's host, not the proxy's address",
  permissions: perms,
  fn: () =>
    withServer((port) =>
      withRecordingProxy(async ({ port: proxyPort, lines }) => {
        const proxy = `http://127.0.0.1:${proxyPort}`;
        // The proxy's address is not granted: only the URL's name is.
        const flags = [`--allow-net=localhost:${port}`];
        const url = `http://localhost:${port}/`;
        for (const name of ["HTTP_PROXY", "http_proxy", "ALL_PROXY"]) {
          assert.deepEqual(await denoWithEnv({ [name]: proxy }, flags, "fetch", url), { ok: "proxied" }, name);
        }
        assert.deepEqual(lines, Array(3).fill(`GET ${url} HTTP/1.1`), "the proxy was sent each request");
        const tls = await denoWithEnv({ HTTPS_PROXY: proxy }, flags, "fetch", `https://localhost:${port}/`);
        assert.ok((tls as { error?: string }).error, "the recorder is no tunnel");
        assert.equal(lines[3], `CONNECT localhost:${port} HTTP/1.1`);
      })
    ),
});

Deno.test({
  name:
    "--deny-net is checked on an environment proxy's address, and on the addresses the URL's name has in the server (the proxy is sent the name)",
  permissions: perms,
  fn: () =>
    withServer((port) =>
      withRecordingProxy(async ({ port: proxyPort, lines }) => {
        const env = { HTTP_PROXY: `http://127.0.0.1:${proxyPort}` };
        const url = `http://localhost:${port}/`;
        const refused = async (denied: number) => {
          const flags = [`--allow-net=localhost:${port}`, `--deny-net=127.0.0.1:${denied}`];
          const out = await denoWithEnv(env, flags, "fetch", url) as { cause?: string };
          assert.match(out.cause ?? "", new RegExp(`Requires net access to "127\\.0\\.0\\.1:${denied}"`));
        };
        await refused(proxyPort);
        await refused(port);
        assert.deepEqual(lines, [], "the proxy was not reached");
      })
    ),
});

Deno.test({
  name:
    "NO_PROXY=* (or no_proxy=*) makes fetch connect directly to a URL whose host is a name, whatever proxy variables are set",
  permissions: perms,
  fn: () =>
    withServer((port) =>
      withRecordingProxy(async ({ port: proxyPort, lines }) => {
        const proxy = `http://127.0.0.1:${proxyPort}`;
        const flags = [`--allow-net=localhost:${port}`];
        for (const noProxy of [{ NO_PROXY: "*" }, { no_proxy: "*" }] as Record<string, string>[]) {
          const env = { HTTP_PROXY: proxy, http_proxy: proxy, ALL_PROXY: proxy, ...noProxy };
          assert.deepEqual(await denoWithEnv(env, flags, "fetch", `http://localhost:${port}/`), { ok: "up" });
        }
        assert.deepEqual(lines, [], "the proxy was not reached");
      })
    ),
});

Deno.test({
  name:
    "createHttpClient()'s tcp transport sends an https: URL in plain text, as a proxy request, so it cannot stand in for a direct connection",
  permissions: perms,
  fn: () =>
    withRecordingProxy(async ({ port, lines }) => {
      const url = `https://localhost:${port}/secret`;
      const out = await denoWithEnv(
        {},
        [`--allow-net=localhost:${port},127.0.0.1:${port}`],
        "fetchOverTcp",
        url,
        "127.0.0.1",
        `${port}`,
      );
      // No TLS handshake: the request line arrives readable, the URL's scheme and host in it.
      assert.deepEqual(lines, [`GET ${url} HTTP/1.1`]);
      assert.deepEqual(out, { ok: "proxied" }, "and a plain-text answer is taken as the https: response");
    }),
});

Deno.test({
  name:
    "NO_PROXY=* does not cover a URL whose host is an IP literal (the proxy gets it); NO_PROXY=*,0.0.0.0/0,::/0 does, set at launch or by Deno.env.set before the first fetch, not after it",
  permissions: perms,
  fn: () =>
    withServer((port) =>
      withRecordingProxy(async ({ port: proxyPort, lines }) => {
        const proxy = `http://127.0.0.1:${proxyPort}`;
        const url = `http://127.0.0.1:${port}/`;
        const flags = [`--allow-net=127.0.0.1:${port}`, "--allow-env=NO_PROXY"];
        assert.deepEqual(await denoWithEnv({ HTTP_PROXY: proxy, NO_PROXY: "*" }, flags, "fetch", url), {
          ok: "proxied",
        });
        assert.deepEqual(lines, [`GET ${url} HTTP/1.1`], "the proxy got the IP-literal URL");
        const all = "*,0.0.0.0/0,::/0";
        assert.deepEqual(await denoWithEnv({ HTTP_PROXY: proxy, NO_PROXY: all }, flags, "fetch", url), { ok: "up" });
        assert.deepEqual(await denoWithEnv({ HTTP_PROXY: proxy }, flags, "setNoProxyThenFetch", url, all), {
          ok: "up",
        });
        assert.equal(lines.length, 1, "the proxy got nothing more");
        // Set after a first fetch, it changes nothing: fetch read the variables when it made its client.
        assert.deepEqual(await denoWithEnv({ HTTP_PROXY: proxy }, flags, "fetchSetNoProxyFetch", url, all), [
          { ok: "proxied" },
          { ok: "proxied" },
        ]);
      })
    ),
});
