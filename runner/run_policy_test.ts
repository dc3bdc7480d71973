// test-permissions: --allow-run --allow-read={repo},{tmp} --allow-write={tmp} --allow-env=TMPDIR,{child-env}
import assert from "node:assert/strict";
import { runDeno, type RunDenoResult, spawnServer } from "@forge/toolkit/testing";
import { SERVER_IN_TMP } from "../internal/testdata/server_in_tmp.ts";

const fixture = new URL("./testdata/policy_server.ts", import.meta.url).pathname;
const perms = SERVER_IN_TMP;

function deno(args: string[]): Promise<RunDenoResult> {
  return runDeno({ args });
}

Deno.test({
  name: "run({ policy }) prints its least-privilege flags with --print-permissions and exits 0",
  permissions: perms,
  async fn() {
    const root = await Deno.realPath(await Deno.makeTempDir());
    const out = await deno([`--allow-read=${root}`, fixture, `--root=${root}`, "--print-permissions"]);
    assert.equal(out.code, 0, out.stderr);
    assert.equal(out.stdout, `--allow-read=${root} --allow-env=FORGE_TENANT_CONFIG\n`);
    await Deno.remove(root);
  },
});

Deno.test({
  name:
    "run({ policy }) takes --print-permissions after -- as an operand: it starts, and refuses -A, printing no flags",
  permissions: perms,
  async fn() {
    const root = await Deno.realPath(await Deno.makeTempDir());
    const out = await deno(["-A", fixture, `--root=${root}`, "--", "--print-permissions"]);
    assert.equal(out.code, 2, out.stderr);
    assert.equal(out.stdout, "");
    assert.match(out.stderr, /refusing to serve/);
    await Deno.remove(root);
  },
});

Deno.test({
  name:
    "run({ policy }) refuses to serve when a file grant is a folder (an audit file set to a folder), even under exactly the flags it derives: those would allow all below it",
  permissions: perms,
  async fn() {
    const root = await Deno.realPath(await Deno.makeTempDir());
    const folder = await Deno.realPath(await Deno.makeTempDir());
    const flags = [`--allow-read=${folder},${root}`, `--allow-write=${folder}`, "--allow-env=FORGE_TENANT_CONFIG"];
    const out = await deno([...flags, fixture, `--root=${root}`, `--write-file=${folder}`]);
    assert.equal(out.code, 2, out.stderr);
    assert.equal(out.stdout, "");
    assert.equal(
      out.stderr.trim(),
      `policy: refusing to serve: its policy grants ${JSON.stringify(folder)} as a file (writeFiles), but it is a ` +
        "folder: Deno would allow everything below it; name a file",
    );
    // A file there is served.
    const file = `${folder}/audit.jsonl`;
    const printed = await deno([
      `--allow-read=${root}`,
      fixture,
      `--root=${root}`,
      `--write-file=${file}`,
      "--print-permissions",
    ]);
    assert.equal(printed.code, 0, printed.stderr);
    assert.equal(
      printed.stdout,
      `--allow-read=${[file, root].sort().join(",")} --allow-write=${file} --allow-env=FORGE_TENANT_CONFIG\n`,
    );
    await Deno.remove(root);
    await Deno.remove(folder);
  },
});

Deno.test({
  name: "run({ policy }) refuses to serve with -A: exit 2 and one stderr line with the flags to use",
  permissions: perms,
  async fn() {
    const root = await Deno.realPath(await Deno.makeTempDir());
    const out = await deno(["-A", fixture, `--root=${root}`]);
    assert.equal(out.code, 2);
    assert.equal(out.stdout, "", "nothing on stdout");
    assert.match(out.stderr, /^policy: refusing to serve: the process holds more permissions than its policy needs/);
    assert.match(out.stderr, /run with: .*--allow-read=/);
    await Deno.remove(root);
  },
});

Deno.test({
  name:
    "run({ policy }) serves when started with exactly its flags, and warns once on stderr of each root that does not exist",
  permissions: perms,
  async fn() {
    const root = await Deno.realPath(await Deno.makeTempDir());
    const roots = [`--root=${root}`, `--root=${root}/notes`];
    const printed = await deno([`--allow-read=${root}`, fixture, ...roots, "--print-permissions"]);
    const flags = printed.stdout.trim().split(" ");
    const server = await spawnServer({ args: [...flags, fixture, ...roots] });
    assert.deepEqual((await server.client.callTool({ name: "hi", arguments: {} })).content, [{
      type: "text",
      text: "hi",
    }]);
    assert.equal((await server.close()).code, 0);
    // The missing root is a warning, not a refusal: the server served. The root that exists is not named.
    const warnings = server.stderr().split("\n").filter((line) => line.includes("warning"));
    assert.deepEqual(warnings, [
      `policy: warning: the folder "${root}/notes" does not exist; calls that use it are refused until it is created`,
    ]);
    await Deno.remove(root);
  },
});

Deno.test({
  name: "run({ policy }) serves with excess permissions only under --allow-excess-permissions, with a loud warning",
  permissions: perms,
  async fn() {
    const root = await Deno.realPath(await Deno.makeTempDir());
    const server = await spawnServer({
      args: [
        "--allow-read",
        "--allow-env=FORGE_TENANT_CONFIG",
        fixture,
        `--root=${root}`,
        "--allow-excess-permissions",
      ],
    });
    assert.equal((await server.client.callTool({ name: "hi", arguments: {} })).isError, undefined);
    await server.close();
    assert.match(server.stderr(), /WARNING: --allow-excess-permissions is set: SERVING WITH EXCESS PERMISSIONS/);
    await Deno.remove(root);
  },
});

Deno.test({
  name:
    "a server without a policy needs no permission: --print-permissions prints an empty line (the README's twenty-line server, run from a temp folder with this checkout's config as the README says) and -A is refused",
  permissions: perms,
  async fn() {
    const hello = new URL("../examples/hello-tool/main.ts", import.meta.url).pathname;
    // The README's snippet imports jsr:@forge/toolkit: the checkout's deno.json, which names the package, serves it.
    const readme = await Deno.readTextFile(new URL("../README.md", import.meta.url));
    const snippet = /## A server in twenty lines\n\n```ts\n([\s\S]*?)```/.exec(readme)?.[1] ?? "";
    assert.ok(snippet.includes('from "jsr:@forge/toolkit"'), "the README's snippet imports from JSR");
    assert.ok(readme.includes("`deno run --config <checkout>/deno.json hello.ts`"), "the README says how to run it");
    const dir = await Deno.makeTempDir();
    await Deno.writeTextFile(`${dir}/hello.ts`, snippet);
    const config = new URL("../deno.json", import.meta.url).pathname;
    const printed = await deno(["--config", config, `${dir}/hello.ts`, "--print-permissions"]);
    await Deno.remove(dir, { recursive: true });
    assert.equal(printed.code, 0, printed.stderr);
    assert.equal(printed.stdout, "\n");
    const refused = await deno(["-A", hello]);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /^hello: refusing to serve/);
  },
});
