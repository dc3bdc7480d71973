// test-permissions: --allow-read={tmp},{repo} --allow-write={tmp} --allow-run=ln
import assert from "node:assert/strict";
import { join } from "node:path";
import { anchoredIn } from "./_anchored.ts";
import { PolicyError } from "./policy_error.ts";

const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "anchored_" }));
globalThis.addEventListener("unload", () => Deno.removeSync(dir, { recursive: true }));
const perms = { read: [dir, Deno.cwd()], write: [dir] };
const what = { action: "read", path: "caller/path" };

Deno.test({
  name: "anchoredIn() runs in the folder the kernel reports and returns to a readable starting folder",
  permissions: perms,
  fn() {
    const start = Deno.cwd();
    Deno.mkdirSync(join(dir, "a"));
    const seen = anchoredIn(join(dir, "a"), what, (anchor) => {
      anchor.still();
      return [anchor.cwd, Deno.cwd(), anchor.at("f")];
    });
    assert.deepEqual(seen, [join(dir, "a"), join(dir, "a"), "f"]);
    assert.equal(Deno.cwd(), start);
    assert.throws(() =>
      anchoredIn(join(dir, "a"), what, () => {
        throw new Error("boom");
      }), /boom/);
    assert.equal(Deno.cwd(), start);
  },
});

Deno.test({
  name: "anchoredIn() refuses a folder reached through a link, naming only the caller's path",
  permissions: { read: [dir, Deno.cwd()], write: [dir], run: ["ln"] },
  async fn() {
    Deno.mkdirSync(join(dir, "real"));
    // Deno.symlink needs unscoped permissions, so the link is made by a separate process.
    const ln = await new Deno.Command("ln", { args: ["-s", join(dir, "real"), join(dir, "link")] }).output()
      .catch(() => undefined);
    assert.equal(ln?.success, true);
    const err = (() => {
      try {
        return anchoredIn(join(dir, "link"), what, () => "used");
      } catch (e) {
        return e;
      }
    })();
    assert.ok(err instanceof PolicyError);
    assert.equal(err.code, "changed");
    assert.ok(!err.message.includes(dir), err.message);
    assert.match(err.message, /^Cannot read "caller\/path": it changed while it was being opened/);
  },
});

Deno.test({
  name: "anchoredIn() turns a missing or over-long folder into a refusal that says why",
  permissions: perms,
  fn() {
    assert.throws(() => anchoredIn(join(dir, "nope"), what, () => 0), (err: unknown) => {
      return err instanceof PolicyError && err.code === "not-found";
    });
    assert.throws(() => anchoredIn(join(dir, "x".repeat(300)), what, () => 0), (err: unknown) => {
      return err instanceof PolicyError && /longer than the file system allows/.test(err.message);
    });
  },
});

Deno.test({
  name: "anchoredIn() leaves the working directory alone when it could not come back, and checks the real path",
  permissions: { read: [dir], write: [dir] },
  fn() {
    const start = Deno.cwd();
    Deno.mkdirSync(join(dir, "b"));
    const seen = anchoredIn(join(dir, "b"), what, (anchor) => {
      anchor.still();
      return [anchor.cwd, Deno.cwd(), anchor.at("f"), anchor.at(".")];
    });
    assert.deepEqual(seen, [join(dir, "b"), start, join(dir, "b", "f"), join(dir, "b")]);
    assert.throws(() =>
      anchoredIn(join(dir, "b"), what, (anchor) => {
        Deno.renameSync(join(dir, "b"), join(dir, "b2"));
        anchor.still();
      }), (err: unknown) => err instanceof PolicyError && err.code === "not-found");
    assert.equal(Deno.cwd(), start);
  },
});
