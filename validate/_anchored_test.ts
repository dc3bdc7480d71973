// test-permissions: --allow-read={tmp} --allow-write={tmp} --allow-run=ln
import assert from "node:assert/strict";
import { join } from "node:path";
import { anchoredIn } from "./_anchored.ts";
import { PolicyError } from "./policy_error.ts";

const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "anchored_" }));
globalThis.addEventListener("unload", () => Deno.removeSync(dir, { recursive: true }));
const perms: Deno.PermissionOptions = { read: [dir], write: [dir], run: ["ln"] };
const what = { action: "read", path: "caller/path" };
const refusal = (code: string, message?: RegExp) => (err: unknown) =>
  err instanceof PolicyError && err.code === code && !err.message.includes(dir) && (message?.test(err.message) ?? true);

Deno.test({
  name: "anchoredIn() works on the folder's real path and never moves the working directory",
  permissions: perms,
  fn() {
    const start = Deno.cwd();
    Deno.mkdirSync(join(dir, "a"));
    const seen = anchoredIn(join(dir, "a"), what, (anchor) => {
      anchor.still();
      return [anchor.dir, Deno.cwd(), anchor.at("f"), anchor.at(".")];
    });
    assert.deepEqual(seen, [join(dir, "a"), start, join(dir, "a", "f"), join(dir, "a")]);
  },
});

Deno.test({
  name: "anchoredIn() refuses when the folder's path stops resolving to itself during the step",
  permissions: perms,
  fn() {
    Deno.mkdirSync(join(dir, "b"));
    assert.throws(() =>
      anchoredIn(join(dir, "b"), what, (anchor) => {
        Deno.renameSync(join(dir, "b"), join(dir, "b2"));
        anchor.still();
      }), refusal("not-found"));
  },
});

Deno.test({
  name: "anchoredIn() refuses a folder path that leads through a link, naming only the caller's path",
  permissions: perms,
  async fn() {
    Deno.mkdirSync(join(dir, "real"));
    // Deno.symlink needs unscoped permissions, so the link is made by a separate process.
    const ln = await new Deno.Command("ln", { args: ["-s", join(dir, "real"), join(dir, "link")] }).output();
    assert.equal(ln.success, true);
    assert.throws(
      () => anchoredIn(join(dir, "link"), what, () => "used"),
      refusal("changed", /^Cannot read "caller\/path": it changed while it was being opened/),
    );
  },
});

Deno.test({
  name: "anchoredIn() turns a missing or over-long folder into a refusal that says why",
  permissions: perms,
  fn() {
    assert.throws(() => anchoredIn(join(dir, "nope"), what, () => 0), refusal("not-found"));
    assert.throws(
      () => anchoredIn(join(dir, "x".repeat(300)), what, () => 0),
      refusal("invalid-input", /longer than the file system allows/),
    );
  },
});
