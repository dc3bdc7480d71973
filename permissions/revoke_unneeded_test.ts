// test-permissions: --allow-run --allow-read={repo},{tmp} --allow-write={tmp} --allow-net=127.0.0.1 --allow-env={child-env}
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runDeno, spawnServer } from "../testing/mod.ts";
import type { PolicyInit } from "../validate/policy.ts";

// Each case starts a real server (run() with a policy) under real flags, some
// of them scoped grants no probe covers, and asks it what it may still do.
const fixture = fileURLToPath(new URL("./testdata/revoke_server.ts", import.meta.url));
const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "revoke_" }));
globalThis.addEventListener("unload", () => Deno.removeSync(base, { recursive: true }));
const [root, elsewhere, workspace] = ["root", "elsewhere", "workspace"].map((d) => join(base, d));
for (const dir of [root, elsewhere, workspace]) await Deno.mkdir(dir);
await Deno.writeTextFile(join(root, "a.txt"), "inside");
await Deno.writeTextFile(join(elsewhere, "secret.txt"), "outside");
const perms: Deno.PermissionOptions = {
  run: [Deno.execPath()],
  read: [base],
  write: [base],
  net: ["127.0.0.1"],
  env: "inherit",
};

async function serve(init: PolicyInit, flags: string[], extra: string[] = []) {
  const server = await spawnServer({ args: ["--no-prompt", ...flags, fixture, JSON.stringify(init), ...extra] });
  const attempt = async (kind: string, target: string) => {
    const result = await server.client.callTool({ name: "attempt", arguments: { kind, target } });
    return (result.content as { text: string }[])[0].text;
  };
  return { server, attempt };
}

Deno.test({
  name: "a read-only server started with extra write, net, env and run grants no probe sees serves with them revoked",
  permissions: perms,
  async fn() {
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = (listener.addr as Deno.NetAddr).port;
    const target = join(elsewhere, "w.txt");
    const { server, attempt } = await serve({ readRoots: [root] }, [
      `--allow-read=${root}`,
      `--allow-write=${elsewhere}`,
      `--allow-net=127.0.0.1:${port}`,
      "--allow-env=FORGE_REVOKE_UNPROBED",
      "--allow-run=/bin/ls",
    ]);
    try {
      assert.equal(await attempt("read", join(root, "a.txt")), "granted ok", "the kind the policy needs is kept");
      assert.equal(await attempt("write", target), "prompt NotCapable");
      await assert.rejects(Deno.stat(target), Deno.errors.NotFound, "no byte landed outside");
      assert.equal(await attempt("net", `127.0.0.1:${port}`), "prompt NotCapable");
      assert.equal(await attempt("env", "FORGE_REVOKE_UNPROBED"), "prompt NotCapable");
      assert.equal(await attempt("run", "/bin/ls"), "prompt NotCapable");
      assert.equal(await attempt("read", join(elsewhere, "secret.txt")), "prompt NotCapable");
    } finally {
      assert.equal((await server.close()).code, 0);
      listener.close();
    }
  },
});

Deno.test({
  name: "a server without a policy started with an extra --allow-write=<dir> serves and cannot write there",
  permissions: perms,
  async fn() {
    const { server, attempt } = await serve({}, [`--allow-write=${elsewhere}`]);
    const target = join(elsewhere, "hello.txt");
    assert.equal(await attempt("write", target), "prompt NotCapable");
    await assert.rejects(Deno.stat(target), Deno.errors.NotFound);
    assert.equal((await server.close()).code, 0);
  },
});

Deno.test({
  name: "under --allow-excess-permissions nothing is revoked, so the extra write grant still works",
  permissions: perms,
  async fn() {
    const { server, attempt } = await serve({ readRoots: [root] }, [
      `--allow-read=${root}`,
      `--allow-write=${elsewhere}`,
    ], ["--allow-excess-permissions"]);
    const target = join(elsewhere, "excess.txt");
    assert.equal(await attempt("write", target), "granted ok");
    assert.equal(await Deno.readTextFile(target), "written");
    assert.equal((await server.close()).code, 0);
    assert.match(server.stderr(), /WARNING: --allow-excess-permissions is set/);
  },
});

Deno.test({
  name: "a scoped grant of a kind the policy needs in part stays: an extra write path beside a writable root (pinned)",
  permissions: perms,
  async fn() {
    // Deno cannot list grants or revoke one it does not know, so this is the
    // documented limit of layer 2: the printed flags are the defence here.
    const { server, attempt } = await serve({ writeRoots: [workspace] }, [
      `--allow-read=${workspace}`,
      `--allow-write=${workspace},${elsewhere}`,
    ]);
    assert.equal(await attempt("write", join(workspace, "ok.txt")), "granted ok");
    assert.equal(await attempt("write", join(elsewhere, "partial.txt")), "granted ok");
    assert.equal(await attempt("net", "127.0.0.1:9"), "prompt NotCapable");
    assert.equal((await server.close()).code, 0);
  },
});

Deno.test({
  name: "grants the probes would see, of kinds a server's policy needs none of, are revoked rather than probed",
  permissions: perms,
  async fn() {
    // Before, each of these was a refusal (exit 2); now no probe of these kinds is asked, and each use fails.
    const target = join(elsewhere, "probed.txt");
    const { server, attempt } = await serve({}, [
      "--allow-read=/etc",
      `--allow-write=/tmp,${elsewhere}`,
      "--allow-net=169.254.169.254,127.0.0.1:8080",
      "--allow-env=HOME",
      "--allow-run=/bin/sh",
      "--allow-sys=hostname",
      `--allow-ffi=${elsewhere}`,
    ]);
    try {
      assert.equal(await attempt("read", "/etc/hostname"), "prompt NotCapable");
      assert.equal(await attempt("write", target), "prompt NotCapable");
      await assert.rejects(Deno.stat(target), Deno.errors.NotFound);
      assert.equal(await attempt("net", "127.0.0.1:8080"), "prompt NotCapable");
      assert.equal(await attempt("net", "169.254.169.254:80"), "prompt NotCapable");
      assert.equal(await attempt("env", "HOME"), "prompt NotCapable");
      assert.equal(await attempt("run", "/bin/sh"), "prompt NotCapable");
      assert.equal(await attempt("sys", "hostname"), "prompt NotCapable");
      assert.equal(await attempt("ffi", join(elsewhere, "lib.so")), "prompt NotCapable");
    } finally {
      assert.equal((await server.close()).code, 0);
    }
    assert.equal(server.stderr(), "", "served without a line");
  },
});

Deno.test({
  name: "an unscoped grant of a kind the policy needs none of is still refused before anything is revoked: exit 2",
  permissions: perms,
  async fn() {
    const out = await runDeno({
      args: [`--allow-read=${root}`, "--allow-write", fixture, JSON.stringify({ readRoots: [root] })],
    });
    assert.equal(out.code, 2);
    assert.match(out.stderr, /refusing to serve: .*unscoped --allow-write/);
  },
});

Deno.test({
  name: "what the probes see of a kind the policy needs is still refused before anything is revoked: exit 2",
  permissions: perms,
  async fn() {
    const policy = JSON.stringify({ readRoots: [root] });
    const out = await runDeno({ args: [`--allow-read=${root},/etc`, "--allow-write=/tmp", fixture, policy] });
    assert.equal(out.code, 2);
    assert.match(out.stderr, /refusing to serve: .*read "\/etc"/);
    assert.doesNotMatch(out.stderr, /write "\/tmp"/, "write, revoked whole, is not probed");
  },
});

Deno.test({
  name:
    "a server launched with its exact flags under a permission broker (DENO_PERMISSION_BROKER_PATH) refuses to serve: exit 2",
  permissions: perms,
  async fn() {
    // Under a broker Deno asks it about every operation; query and revoke still see only the flags. So the check
    // passed and the revoke took nothing away: an allow-everything broker let the server write outside its roots.
    const socket = join(base, "broker.sock");
    const broker = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--quiet",
        "--no-prompt",
        `--allow-read=${socket}`,
        `--allow-write=${socket}`,
        `--allow-net=unix:${socket}`,
        fileURLToPath(new URL("./testdata/permission_broker.ts", import.meta.url)),
        socket,
      ],
      stdin: "null",
      stdout: "piped",
      stderr: "null",
    }).spawn();
    try {
      const lines = broker.stdout.pipeThrough(new TextDecoderStream()).getReader();
      assert.equal((await lines.read()).value, "ready\n");
      lines.releaseLock();
      const out = await runDeno({
        args: [`--allow-read=${root}`, fixture, JSON.stringify({ readRoots: [root] })],
        env: { DENO_PERMISSION_BROKER_PATH: socket },
      });
      assert.equal(out.code, 2, out.stderr);
      assert.match(out.stderr, /refusing to serve: .*permission broker \(DENO_PERMISSION_BROKER_PATH\)/);
    } finally {
      broker.kill();
      await broker.status;
      await broker.stdout.cancel().catch(() => {});
    }
  },
});
