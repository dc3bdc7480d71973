// test-permissions: --allow-read={tmp} --allow-write={tmp}
import assert from "node:assert/strict";
import { join } from "node:path";
import type { Config } from "./config.ts";
import { makeTree } from "./_fixture.ts";
import { Manager } from "./manager.ts";

const perms: Deno.PermissionOptions = { read: "inherit", write: "inherit" };

Deno.test({
  name: "Manager reads the current config on every call: a removed root is refused at the very next call",
  permissions: perms,
  async fn() {
    const tree = await makeTree();
    let config: Config = tree.config;
    const mgr = new Manager(() => Promise.resolve(config), undefined);
    assert.equal((await mgr.read(join(tree.more, "other.md"))).text, "in the second root\n");
    config = { ...tree.config, roots: [tree.data] };
    await assert.rejects(mgr.read(join(tree.more, "other.md")), /leaves the allowed folders/);
    config = tree.config;
    assert.equal((await mgr.read(join(tree.more, "other.md"))).text, "in the second root\n");
    await mgr.close();
    await tree.remove();
  },
});

Deno.test({
  name: "Manager applies a new max_bytes and new deny globs at the next call",
  permissions: perms,
  async fn() {
    const tree = await makeTree();
    let config: Config = tree.config;
    const mgr = new Manager(() => Promise.resolve(config), undefined);
    assert.equal((await mgr.read("hello.txt")).text, "hello\n");
    config = { ...tree.config, max_bytes: 2 };
    assert.deepEqual(await mgr.read("hello.txt"), { text: "he", marker: "[truncated: showed 2 of 6 bytes]" });
    await assert.rejects(mgr.write("existing.txt", "abc"), /exceeds the limit of 2 bytes/);
    config = { ...tree.config, deny: ["hello.*"] };
    await assert.rejects(mgr.read("hello.txt"), /the policy denies this path/);
    await tree.remove();
  },
});

Deno.test({
  name: "Manager resolves relative roots from the config file's folder and denies the config file itself",
  permissions: perms,
  async fn() {
    const tree = await makeTree();
    const configPath = join(tree.base, "files.json");
    await Deno.writeTextFile(configPath, "{}");
    // A root that contains the config: the model must still not read or replace it.
    const config: Config = { roots: ["."], writable_roots: ["."], deny: [], max_bytes: 1024, allow_hard_links: false };
    const mgr = new Manager(() => Promise.resolve(config), configPath);
    assert.equal((await mgr.read("data/hello.txt")).text, "hello\n");
    await assert.rejects(mgr.read("files.json"), /the policy denies this path/);
    await assert.rejects(mgr.write("files.json", '{"roots":["/"]}'), /the policy denies this path/);
    const listing = await mgr.list(".");
    assert.ok(!listing.entries.some((e) => e.name === "files.json"));
    assert.equal(await Deno.readTextFile(configPath), "{}");
    await tree.remove();
  },
});

Deno.test({
  name: "Manager with the defaults (no config file) allows nothing",
  permissions: perms,
  async fn() {
    const config: Config = { roots: [], writable_roots: [], deny: [], max_bytes: 1024, allow_hard_links: false };
    const mgr = new Manager(() => Promise.resolve(config), undefined);
    await assert.rejects(mgr.read("x.txt"), /no folder is open for reading/);
    await assert.rejects(mgr.writeTarget("x.txt", "x"), /this server has no writable folder/);
    await assert.rejects(mgr.list("."), /no folder is open/);
  },
});

Deno.test({
  name: "Manager picks up a root that is created after the first call",
  permissions: perms,
  async fn() {
    const tree = await makeTree();
    const later = join(tree.base, "later");
    const config: Config = { ...tree.config, roots: [tree.data, later] };
    const mgr = new Manager(() => Promise.resolve(config), undefined);
    await assert.rejects(mgr.stat(later), /does not exist/);
    await Deno.mkdir(later);
    await Deno.writeTextFile(join(later, "x.md"), "x");
    assert.equal((await mgr.read(join(later, "x.md"))).text, "x");
    await tree.remove();
  },
});

Deno.test({
  name:
    "Manager keeps its tools off the server's own files it is given (the tenant file looked for at start), inside a writable root (a red team wrote the tenant file, which the next start loaded)",
  permissions: perms,
  async fn() {
    const tree = await makeTree();
    await Deno.mkdir(join(tree.out, "tenant"));
    const tenantFile = join(tree.out, "tenant", "files.json");
    const mgr = new Manager(() => Promise.resolve(tree.config), undefined, { ownFiles: [tenantFile] });
    await assert.rejects(mgr.write("tenant/files.json", '{"roots":["/"]}'), /the policy denies this path/);
    await assert.rejects(Deno.stat(tenantFile), Deno.errors.NotFound);
    assert.equal((await mgr.write("tenant/notes.txt", "fine")).bytes, 4);
    await tree.remove();
  },
});

Deno.test({
  name:
    "Manager gives a call one config version: a reload landing while a call starts never pairs its max_bytes with the next version's roots",
  permissions: perms,
  async fn() {
    const tree = await makeTree();
    const out2 = join(tree.base, "out2");
    await Deno.mkdir(out2);
    // a may write out/ up to 1024 bytes, b may write out2/ up to 2 bytes: a 6-byte write to out2/ fits neither.
    const a: Config = tree.config;
    const b: Config = { ...tree.config, writable_roots: [out2], max_bytes: 2 };
    // The second call starts after each number of microtask turns: every interleaving of the two, none by a timer.
    for (let turns = 0; turns < 16; turns++) {
      const versions = [a, a, b];
      const mgr = new Manager(() => Promise.resolve(versions.length > 1 ? versions.shift()! : b), undefined);
      await mgr.stat(tree.data);
      const write = mgr.write(join(out2, "x.txt"), "abcdef");
      for (let i = 0; i < turns; i++) await Promise.resolve();
      const stat = mgr.stat(tree.data);
      await assert.rejects(write, /leaves the allowed folders|exceeds the limit/, `after ${turns} turns`);
      await stat;
      await assert.rejects(Deno.stat(join(out2, "x.txt")), Deno.errors.NotFound, `after ${turns} turns`);
    }
    await tree.remove();
  },
});
