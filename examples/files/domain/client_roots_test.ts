// test-permissions: --allow-read={tmp} --allow-write={tmp} --allow-run=ln
import assert from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { definePolicy, type PolicyError } from "@forge/toolkit/validate";
import { ClientRoots, MAX_CLIENT_ROOTS } from "./client_roots.ts";
import { Workspace } from "./workspace.ts";

async function tree() {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "client-roots-" }));
  for (const dir of ["root/a", "root/b", "outside"]) await Deno.mkdir(join(base, dir), { recursive: true });
  await Deno.writeTextFile(join(base, "root", "a", "x.txt"), "x");
  await Deno.writeTextFile(join(base, "root", "b", "y.txt"), "y");
  // `ln`: Deno.symlink needs unscoped read and write.
  await new Deno.Command("ln", { args: ["-s", join(base, "outside"), join(base, "root", "link")] }).output();
  const ws = await Workspace.open(definePolicy({ readRoots: [join(base, "root")], baseDir: base }));
  return { base, ws, configured: [join(base, "root")] };
}

Deno.test("ClientRoots.of() keeps file:// URIs as paths and nothing else", () => {
  const roots = ClientRoots.of([
    "file:///srv/a",
    "https://example.com/x",
    "file://otherhost/b",
    "not a url",
    "file:///c%20d",
  ]);
  assert.deepEqual(roots.paths, ["/srv/a", "/c d"]);
  assert.equal(roots.uris.length, 5);
  assert.equal(ClientRoots.of(Array(MAX_CLIENT_ROOTS + 5).fill("file:///a")).uris.length, MAX_CLIENT_ROOTS);
});

Deno.test("narrow() admits paths inside a client root and refuses the rest of the configured root, naming the narrowing", async () => {
  const { base, ws, configured } = await tree();
  try {
    const roots = ClientRoots.of([pathToFileURL(join(base, "root", "a")).href]);
    const x = join(base, "root", "a", "x.txt");
    assert.equal(await roots.narrow(ws, x, "read", configured), x);
    await assert.rejects(roots.narrow(ws, join(base, "root", "b", "y.txt"), "read", configured), (err: PolicyError) => {
      assert.equal(err.code, "outside-roots");
      assert.match(err.message, /outside the roots the client declared \("file:\/\/.*\/root\/a"\)$/);
      return true;
    });
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("narrow() never widens: a client root outside the config, or a link out of it, admits nothing", async () => {
  const { base, ws, configured } = await tree();
  try {
    const x = join(base, "root", "a", "x.txt");
    for (const uri of [join(base, "outside"), join(base, "root", "link")]) {
      const roots = ClientRoots.of([pathToFileURL(uri).href]);
      await assert.rejects(
        roots.narrow(ws, x, "read", configured),
        /none of them lies inside this server's configured folders/,
      );
    }
    // A client root that contains the configured root leaves it whole, no more.
    const wide = ClientRoots.of([pathToFileURL(base).href]);
    assert.equal(await wide.narrow(ws, x, "read", configured), x);
    await assert.rejects(wide.narrow(ws, join(base, "outside"), "read", configured), /leaves the allowed folders/);
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});
