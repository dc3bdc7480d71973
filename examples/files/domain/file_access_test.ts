// test-permissions: --allow-read={tmp} --allow-write={tmp} --allow-run=ln
import assert from "node:assert/strict";
import { join } from "node:path";
import { ConfigSchema } from "./config.ts";
import { anchorChange, anchorInUse, checkFileAccess } from "./file_access.ts";

const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "file_access_" }));
globalThis.addEventListener("unload", () => Deno.removeSync(dir, { recursive: true }));
const perms: Deno.PermissionOptions = { read: [dir], write: [dir], run: ["ln"] };
const configPath = join(dir, "files.json");
Deno.mkdirSync(join(dir, "data"));
Deno.mkdirSync(join(dir, "private"), { mode: 0o700 });
assert.ok(new Deno.Command("ln", { args: ["-s", "/proc/self/fd", join(dir, "private", "fd")] }).outputSync().success);
assert.ok(new Deno.Command("ln", { args: ["-s", "/proc/self", join(dir, "private", "self")] }).outputSync().success);

Deno.test({
  name: "checkFileAccess() accepts a working fd_anchor, relative to the config's folder, with nothing to say",
  permissions: perms,
  fn() {
    const config = ConfigSchema.parse({ roots: ["data"], fd_anchor: "private/fd" });
    assert.deepEqual(checkFileAccess(config, configPath), []);
  },
});

Deno.test({
  name:
    "checkFileAccess() says once that file access is not race-free without fd_anchor, what a swap can do to a read and to a write, and how to set it",
  permissions: perms,
  fn() {
    const notes = checkFileAccess(ConfigSchema.parse({ roots: ["data"] }), configPath);
    assert.equal(notes.length, 1);
    assert.match(notes[0], /^file access is not race-free: no fd_anchor is configured.*ln -s \/proc\/self\/fd/);
    // What docs/security.md's remaining windows say of the path mode: reads and writes alike.
    assert.match(notes[0], /a read then returns a file outside the roots, and a write puts its file outside/);
  },
});

Deno.test({
  name: "checkFileAccess() refuses to start without fd_anchor under require_fd_anchor, and with a wrong anchor",
  permissions: perms,
  fn() {
    const required = ConfigSchema.parse({ roots: ["data"], require_fd_anchor: true });
    assert.throws(() => checkFileAccess(required, configPath), /^Error: Cannot start: require_fd_anchor is set/);
    const wrong = ConfigSchema.parse({ roots: ["data"], fd_anchor: "private/self" });
    assert.throws(() => checkFileAccess(wrong, configPath), /points at "\/proc\/self", not \/proc\/self\/fd/);
    const missing = ConfigSchema.parse({ roots: ["data"], fd_anchor: "private/none" });
    assert.throws(() => checkFileAccess(missing, configPath), /Cannot use the descriptor anchor .*cannot be read/);
  },
});

Deno.test({
  name: "checkFileAccess() says when the anchor's folder could not be checked (the process may not stat it)",
  permissions: { read: [join(dir, "private", "fd"), join(dir, "data")] },
  fn() {
    const config = ConfigSchema.parse({ roots: [join(dir, "data")], fd_anchor: join(dir, "private", "fd") });
    const notes = checkFileAccess(config, undefined);
    assert.equal(notes.length, 1);
    assert.match(notes[0], /could not be checked/);
  },
});

Deno.test({
  name: "checkFileAccess() off Linux: a configured fd_anchor is not used, the start says so, require_fd_anchor refuses",
  permissions: perms,
  fn() {
    const config = ConfigSchema.parse({ roots: ["data"], fd_anchor: "private/fd" });
    assert.equal(anchorInUse(config, configPath, "darwin"), undefined);
    assert.equal(anchorInUse(config, configPath, "linux"), join(dir, "private", "fd"));
    const notes = checkFileAccess(config, configPath, "darwin");
    assert.match(
      notes[0],
      /^file access is not race-free: fd_anchor needs Linux's \/proc\/self\/fd, and this is darwin/,
    );
    const required = ConfigSchema.parse({ roots: ["data"], fd_anchor: "private/fd", require_fd_anchor: true });
    assert.throws(
      () => checkFileAccess(required, configPath, "darwin"),
      /require_fd_anchor is set and fd_anchor needs/,
    );
  },
});

Deno.test({
  name:
    "anchorChange() refuses a reload that drops, moves or adds fd_anchor or flips require_fd_anchor; a respelling passes",
  permissions: perms,
  fn() {
    const first = ConfigSchema.parse({ roots: ["data"], fd_anchor: "private/fd", require_fd_anchor: true });
    const change = (edit: Record<string, unknown>) => anchorChange(first, { ...first, ...edit }, configPath);
    assert.equal(change({ max_bytes: 10, roots: [] }), undefined);
    assert.equal(change({ fd_anchor: join(dir, "private", "fd") }), undefined, "the same anchor, absolute");
    assert.equal(change({ fd_anchor: "./private/../private/fd" }), undefined);
    const anchor = JSON.stringify(join(dir, "private", "fd"));
    assert.equal(
      change({ fd_anchor: undefined }),
      `it changes fd_anchor from ${anchor} to none, which needs a restart`,
    );
    assert.equal(
      change({ fd_anchor: "data" }),
      `it changes fd_anchor from ${anchor} to ${JSON.stringify(join(dir, "data"))}, which needs a restart`,
    );
    assert.equal(
      change({ require_fd_anchor: false }),
      "it changes require_fd_anchor from true to false, which needs a restart",
    );
    const none = ConfigSchema.parse({ roots: ["data"] });
    assert.equal(anchorChange(none, { ...none, require_fd_anchor: false }, configPath), undefined, "unset is false");
    assert.match(anchorChange(none, { ...none, fd_anchor: "private/fd" }, configPath)!, /from none to ".*fd"/);
  },
});
