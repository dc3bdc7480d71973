// test-permissions: --allow-read={tmp} --allow-write={tmp} --allow-run=ln
import assert from "node:assert/strict";
import { basename, join } from "node:path";
import { walkHooks } from "./_descriptor_anchor.ts";
import { LimitError } from "./limits.ts";
import { PathJail } from "./path_jail.ts";
import { DEFAULT_DENY, definePolicy } from "./policy.ts";
import { PolicyError, type PolicyErrorCode } from "./policy_error.ts";

// Deno.symlink() needs unscoped --allow-read and --allow-write (Deno 2.9.6),
// so the links are made by `ln`, which needs only --allow-run=ln.
async function symlink(target: string, path: string): Promise<void> {
  const { success } = await new Deno.Command("ln", { args: ["-s", target, path] }).output();
  assert.ok(success, `ln -s ${target} ${path} failed`);
}

// One fixture for the whole file: real files and real symbolic links in a
// temp dir, and a canary outside the jail whose content must never surface.
const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "jail_" }));
const data = join(base, "data");
const other = join(base, "other");
const CANARY = `CANARY-${crypto.randomUUID()}`;
await Deno.mkdir(join(data, "sub"), { recursive: true });
await Deno.mkdir(join(data, "app"));
await Deno.mkdir(join(data, "repo", ".git"), { recursive: true });
await Deno.mkdir(join(base, "data2"));
await Deno.mkdir(other);
await Deno.writeTextFile(join(base, "canary.txt"), CANARY);
await Deno.writeTextFile(join(base, "data2", "secret.txt"), CANARY);
await Deno.writeTextFile(join(data, "notes.txt"), "hello");
await Deno.writeTextFile(join(data, "sub", "deep.txt"), "deep");
await Deno.writeTextFile(join(data, ".env"), CANARY);
await Deno.writeTextFile(join(data, "app", ".env.local"), CANARY);
await Deno.writeTextFile(join(data, "repo", ".git", "config"), CANARY);
await Deno.writeTextFile(join(data, "key.pem"), CANARY);
await Deno.writeTextFile(join(data, "big.txt"), "x".repeat(5000));
await Deno.writeTextFile(join(data, "utf8.txt"), "héé");
// A whole file whose last line is what a cut one ends with.
const FORGED = "the first part\n[truncated: showed 14 of 9000 bytes]";
await Deno.writeTextFile(join(data, "forged.txt"), FORGED);
await Deno.writeTextFile(join(other, "other.txt"), "other");
await symlink("../canary.txt", join(data, "link_out"));
await symlink("notes.txt", join(data, "link_in"));
await symlink("..", join(data, "dirlink_out"));
await symlink("/etc", join(data, "dirlink_etc"));
await symlink("../nowhere.txt", join(data, "dangling"));
await symlink("loop2", join(data, "loop1"));
await symlink("loop1", join(data, "loop2"));
await symlink("../..", join(data, "sub", "up"));
await symlink(".env", join(data, "link_to_env"));
await symlink("../other/other.txt", join(data, "link_other"));
await symlink(join(base, "canary.txt"), join(data, "abs_link_out"));
await symlink("../attack_created.txt", join(data, "dangling_out"));
await symlink("nowhere_in.txt", join(data, "dangling_in"));
await symlink("chain_b", join(data, "chain_a"));
await symlink("../nowhere_either.txt", join(data, "chain_b"));
await symlink("dirlink_out/nothing.txt", join(data, "via_dirlink"));
// Targets that look inside but pass through a link out whose own target does not exist: dangling, or a chain.
await symlink("dangling/nothing.txt", join(data, "through_dangling"));
await symlink("chain_a/nothing.txt", join(data, "through_chain"));
// A `..` after a link in a target goes up from the link's target, as the system reads it: `up_missing` leads to
// outdir/nowhere.txt, outside, where a lexical walk dropped `sub_out/..` and took it for data/nowhere.txt, inside.
await Deno.mkdir(join(base, "outdir", "sub"), { recursive: true });
await symlink("../outdir/sub", join(data, "sub_out"));
await symlink("sub_out/../nowhere.txt", join(data, "up_missing"));
// Two links each through the other's folder, behind a `..` that the system takes after dirlink_out: it finds no loop,
// only nothing beside base, outside. A lexical walk took the `..` before, and followed them without end but for the
// walk's budget; the walk now reads them as the system does.
await symlink("dirlink_out/../cross_b/x", join(data, "cross_a"));
await symlink("dirlink_out/../cross_a/x", join(data, "cross_b"));
// A dangling link inside whose target goes up 300 times after a folder: a real path taken before each `..` counts
// against the walk's budget.
await symlink(`${"sub/../".repeat(300)}nowhere.txt`, join(data, "many_up"));
// The descriptor anchor lives beside the roots, in a folder only this user writes.
const anchor = join(base, "anchor", "fd");
await Deno.mkdir(join(base, "anchor"), { mode: 0o700 });
await symlink("/proc/self/fd", anchor);
globalThis.addEventListener("unload", () => Deno.removeSync(base, { recursive: true }));

const policy = definePolicy({ readRoots: [data, other], writeRoots: [], limits: { maxReadBytes: 1000 } });
const writePolicy = definePolicy({ readRoots: [other], writeRoots: [data] });
const perms = { read: [base], write: [base] };

type Expect = { ok: string } | { code: PolicyErrorCode };

/** Asserts nothing the caller sees leaks the canary or a host path it did not give. */
function assertClean(input: unknown, seen: string): void {
  assert.ok(!seen.includes(CANARY), `canary leaked for ${String(input)}`);
  if (!String(input).includes(base)) assert.ok(!seen.includes(base), `host path leaked: ${seen}`);
  assert.ok(!seen.includes("/etc/hostname") || String(input).includes("/etc/hostname"));
}

async function attempt(run: () => Promise<string>, input: unknown, expect: Expect): Promise<void> {
  try {
    const out = await run();
    assertClean(input, out);
    assert.ok("ok" in expect, `expected a refusal (${JSON.stringify(expect)}), got ${JSON.stringify(out)}`);
    assert.equal(out, expect.ok);
  } catch (err) {
    if (err instanceof assert.AssertionError) throw err;
    assert.ok(err instanceof PolicyError, `expected PolicyError, got ${err}`);
    assertClean(input, err.message);
    assert.match(err.message, /^Cannot (read|write)/);
    assert.ok("code" in expect, `expected ${JSON.stringify(expect)}, got ${err.code}: ${err.message}`);
    assert.equal(err.code, expect.code, err.message);
  }
}

const readCases: [string, unknown, Expect][] = [
  ["a relative file", "notes.txt", { ok: "hello" }],
  ["a ./ path", "./notes.txt", { ok: "hello" }],
  ["a nested file", "sub/deep.txt", { ok: "deep" }],
  ["a .. that stays inside", "sub/../notes.txt", { ok: "hello" }],
  ["an absolute path inside", join(data, "notes.txt"), { ok: "hello" }],
  ["doubled slashes inside", `${data}//sub//deep.txt`, { ok: "deep" }],
  ["dot segments inside", `${data}/./sub/./deep.txt`, { ok: "deep" }],
  ["a file in the second root", join(other, "other.txt"), { ok: "other" }],
  ["a link that stays inside", "link_in", { ok: "hello" }],
  ["a link into another root", "link_other", { ok: "other" }],
  ["a .. escape", "../canary.txt", { code: "outside-roots" }],
  ["a deep .. escape", "../../../../../../etc/passwd", { code: "outside-roots" }],
  ["a .. escape after a folder", "sub/../../canary.txt", { code: "outside-roots" }],
  ["an absolute path outside", join(base, "canary.txt"), { code: "outside-roots" }],
  ["a sibling that shares the prefix", join(base, "data2", "secret.txt"), { code: "outside-roots" }],
  ["a relative sibling with the prefix", "../data2/secret.txt", { code: "outside-roots" }],
  ["an absolute .. into the sibling", `${data}/../data2/secret.txt`, { code: "outside-roots" }],
  ["/etc/passwd", "/etc/passwd", { code: "outside-roots" }],
  ["the file-system root", "/", { code: "outside-roots" }],
  ["a link to a file outside", "link_out", { code: "symlink-escape" }],
  ["an absolute link to a file outside", "abs_link_out", { code: "symlink-escape" }],
  ["a file through a parent link outside", "dirlink_out/canary.txt", { code: "symlink-escape" }],
  ["the prefix sibling through a parent link", "dirlink_out/data2/secret.txt", { code: "symlink-escape" }],
  ["/etc through a parent link", "dirlink_etc/hostname", { code: "symlink-escape" }],
  ["a link two levels up", "sub/up/canary.txt", { code: "symlink-escape" }],
  ["a missing file through a parent link outside", "dirlink_out/nothing.txt", { code: "symlink-escape" }],
  ["a link loop", "loop1", { code: "symlink-escape" }],
  ["a .env file", ".env", { code: "denied-by-glob" }],
  ["a .env.local file", "app/.env.local", { code: "denied-by-glob" }],
  ["a file in .git", "repo/.git/config", { code: "denied-by-glob" }],
  ["the .git folder", "repo/.git", { code: "denied-by-glob" }],
  ["a .pem key", "key.pem", { code: "denied-by-glob" }],
  // Credential files a red team read through the defaults of before (each a real default now).
  ["AWS credentials", ".aws/credentials", { code: "denied-by-glob" }],
  ["an npm token", "proj/.npmrc", { code: "denied-by-glob" }],
  ["a direnv file", "proj/.envrc", { code: "denied-by-glob" }],
  ["a netrc", ".netrc", { code: "denied-by-glob" }],
  ["git's stored credentials", ".git-credentials", { code: "denied-by-glob" }],
  ["an editor's backup of .env", ".env~", { code: "denied-by-glob" }],
  ["a private key outside .ssh", "backup/id_ed25519", { code: "denied-by-glob" }],
  ["a Kubernetes config, in capitals", "home/.KUBE/config", { code: "denied-by-glob" }],
  ["Terraform state", "infra/terraform.tfstate", { code: "denied-by-glob" }],
  // A second red team's: other stores, backups, histories.
  ["git's other credential store", "home/.config/git/credentials", { code: "denied-by-glob" }],
  ["GitHub CLI's token", "home/.config/gh/hosts.yml", { code: "denied-by-glob" }],
  ["a cargo token", "home/.cargo/credentials.toml", { code: "denied-by-glob" }],
  ["a backup of .npmrc", "proj/.npmrc.bak", { code: "denied-by-glob" }],
  ["a PuTTY key", "keys/server.ppk", { code: "denied-by-glob" }],
  ["a shell history", "home/.bash_history", { code: "denied-by-glob" }],
  ["a deny glob in other case", ".ENV", { code: "denied-by-glob" }],
  ["a path more than maxPathDepth (256) levels below its root", `${"a/".repeat(256)}x`, { code: "invalid-input" }],
  ["a link whose target is denied", "link_to_env", { code: "denied-by-glob" }],
  ["an empty path", "", { code: "invalid-input" }],
  ["a NUL byte", "notes.txt\0.png", { code: "invalid-input" }],
  ["a newline", "notes\n.txt", { code: "invalid-input" }],
  ["an over-long path", "a/".repeat(3000), { code: "invalid-input" }],
  ["a number", 42, { code: "invalid-input" }],
  ["a missing file", "missing.txt", { code: "not-found" }],
  ["a missing folder", "missing/x.txt", { code: "not-found" }],
  ["a file used as a folder", "notes.txt/child", { code: "not-found" }],
  // A link out is refused the same whether its target exists: "not found" would say it does not.
  ["a dangling link that points outside", "dangling", { code: "symlink-escape" }],
  ["a chain of links whose last points outside, to nothing", "chain_a", { code: "symlink-escape" }],
  ["a link to a missing file through a folder link outside", "via_dirlink", { code: "symlink-escape" }],
  ["a dangling link that points inside", "dangling_in", { code: "not-found" }],
  ["a folder", "sub", { code: "not-a-file" }],
  ["percent-encoded dots (no URL decoding)", "%2e%2e/canary.txt", { code: "not-found" }],
  ["a backslash escape (a file name on POSIX)", "..\\canary.txt", { code: "not-found" }],
  ["a tilde (no home expansion, refused)", "~/.ssh/id_rsa", { code: "invalid-input" }],
  ["a tilde that climbs out", "~/../../../../../../tmp/x/canary", { code: "invalid-input" }],
  ["a fullwidth look-alike", "ｎotes.txt", { code: "not-found" }],
];

const modes: [string, { descriptorAnchor?: string }][] = [["", {}], [" (descriptor walk)", {
  descriptorAnchor: anchor,
}]];

for (const [label, input, expect] of readCases) {
  const verdict = "ok" in expect ? "reads" : `refuses (${expect.code})`;
  for (const [mode, options] of modes) {
    Deno.test({
      name: `readTextFile() ${verdict}${mode}: ${label}`,
      permissions: perms,
      fn: () => attempt(() => new PathJail(policy, options).readTextFile(input as string), input, expect),
    });
  }
}

const writeCases: [string, string, Expect][] = [
  ["a new file", "new.txt", { ok: "written" }],
  ["a new file in a subfolder", "sub/new.txt", { ok: "written" }],
  ["an existing file", "notes_copy.txt", { ok: "written" }],
  ["a .. escape", "../new.txt", { code: "outside-roots" }],
  ["a read-only root", join(other, "x.txt"), { code: "outside-roots" }],
  ["a new file through a parent link outside", "dirlink_out/new.txt", { code: "symlink-escape" }],
  ["an existing link to a file outside", "link_out", { code: "symlink-escape" }],
  ["a dangling link that points outside", "dangling_out", { code: "symlink-escape" }],
  ["a chain of links whose last points outside, to nothing", "chain_a", { code: "symlink-escape" }],
  ["a dangling link that points inside", "dangling_in", { code: "symlink-escape" }],
  ["a new file two levels up through a link", "sub/up/evil.txt", { code: "symlink-escape" }],
  ["a missing folder", "nodir/new.txt", { code: "not-found" }],
  ["a file used as a folder", "notes.txt/child", { code: "not-found" }],
  // As a read answers it: "not found" would say the link's outside target is a file.
  ["a new file below a link to a file outside", "link_out/child", { code: "symlink-escape" }],
  ["a .env file", ".env", { code: "denied-by-glob" }],
  ["a folder", "sub", { code: "not-a-file" }],
];

for (const [label, input, expect] of writeCases) {
  const verdict = "ok" in expect ? "writes" : `refuses (${expect.code})`;
  for (const [mode, options] of modes) {
    Deno.test({
      name: `writeFile() ${verdict}${mode}: ${label}`,
      permissions: perms,
      fn: () =>
        attempt(
          async () => {
            await new PathJail(writePolicy, options).writeFile(input, "written");
            return await Deno.readTextFile(await new PathJail(writePolicy).resolveWrite(input));
          },
          input,
          expect,
        ),
    });
  }
}

Deno.test({
  name: "writeFile() through refused links leaves the outside untouched",
  permissions: perms,
  async fn() {
    const jail = new PathJail(writePolicy);
    await assert.rejects(jail.writeFile("link_out", "pwned"), PolicyError);
    await assert.rejects(jail.writeFile("dangling_out", "pwned"), PolicyError);
    assert.equal(await Deno.readTextFile(join(base, "canary.txt")), CANARY);
    await assert.rejects(Deno.stat(join(base, "attack_created.txt")), Deno.errors.NotFound);
  },
});

for (const [mode, options] of modes) {
  Deno.test({
    name: `writeFile()${mode} refuses to write in place to a file with two hard links, and replaces it atomically`,
    permissions: perms,
    async fn() {
      const name = `linked${mode === "" ? "" : "_walk"}.txt`;
      await Deno.writeTextFile(join(data, name), "shared");
      const outsideName = join(base, `outside_${name}`);
      await Deno.link(join(data, name), outsideName);
      const jail = new PathJail(writePolicy, options);
      const err = await jail.writeFile(name, "pwned").catch((e) => e);
      assert.ok(err instanceof PolicyError && /2 hard links/.test(err.message), String(err));
      await jail.writeFile(name, "mine", { atomic: true });
      assert.equal(await Deno.readTextFile(outsideName), "shared");
      assert.equal(await Deno.readTextFile(join(data, name)), "mine");
      await new PathJail(writePolicy, { ...options, allowHardLinks: true }).writeFile(name, "x", { append: true });
    },
  });
}

for (const [mode, options] of modes) {
  Deno.test({
    name:
      `writeFile()${mode} refuses to replace a read-only file, in place or atomically (red-team finding: a rename replaced it)`,
    permissions: perms,
    async fn() {
      const name = `readonly${mode === "" ? "" : "_walk"}.txt`;
      await Deno.writeTextFile(join(data, name), "kept");
      await Deno.chmod(join(data, name), 0o444);
      const jail = new PathJail(writePolicy, options);
      for (const write of [{}, { atomic: true }, { append: true }]) {
        const err = await jail.writeFile(name, "pwned", write).catch((e) => e);
        assert.ok(
          err instanceof PolicyError && err.code === "no-permission" &&
            err.message === `Cannot write "${name}": the file is read-only (mode 444)`,
          `${JSON.stringify(write)}: ${err}`,
        );
      }
      assert.equal(await Deno.readTextFile(join(data, name)), "kept");
      // A folder no one may write gets no new file and no replacement (a second red team, as root, created one).
      const folder = join(data, `locked${mode === "" ? "" : "_walk"}`);
      await Deno.mkdir(folder);
      await Deno.writeTextFile(join(folder, "in.txt"), "in");
      await Deno.chmod(folder, 0o555);
      try {
        for (const [file, write] of [["new.txt", {}], ["in.txt", { atomic: true }]] as const) {
          const err = await jail.writeFile(`${basename(folder)}/${file}`, "x", write).catch((e) => e);
          assert.ok(
            err instanceof PolicyError && err.message.endsWith("its folder is read-only (mode 555)"),
            `${file}: ${err}`,
          );
        }
        await jail.writeFile(`${basename(folder)}/in.txt`, "in place", {});
        assert.equal(
          await Deno.readTextFile(join(folder, "in.txt")),
          "in place",
          "a writable file in it is written in place",
        );
      } finally {
        await Deno.chmod(folder, 0o755);
      }
      await Deno.chmod(join(data, name), 0o644);
      await jail.writeFile(name, "mine", { atomic: true });
      assert.equal(await Deno.readTextFile(join(data, name)), "mine");
    },
  });
}

Deno.test({
  name:
    "the default deny globs match the absolute path too: a root inside .aws, or beside gcloud/ in .config, reads none of their files and lists neither (a red team read them)",
  permissions: perms,
  async fn() {
    const home = join(base, "home-abs");
    await Deno.mkdir(join(home, ".aws"), { recursive: true });
    await Deno.mkdir(join(home, ".config", "gcloud"), { recursive: true });
    await Deno.writeTextFile(join(home, ".aws", "credentials"), "aws_secret_access_key=S\n");
    await Deno.writeTextFile(join(home, ".aws", "notes.txt"), "n\n");
    await Deno.writeTextFile(join(home, ".config", "gcloud", "credentials.db"), "S\n");
    await Deno.writeTextFile(join(home, ".config", "app.toml"), "a\n");
    const inside = new PathJail(definePolicy({ readRoots: [join(home, ".aws")] }));
    await assert.rejects(
      inside.readTextFile("credentials"),
      (err: unknown) => (err as PolicyError).code === "denied-by-glob",
    );
    await assert.rejects(inside.listDir("."), (err: unknown) => (err as PolicyError).code === "denied-by-glob");
    const beside = new PathJail(definePolicy({ readRoots: [join(home, ".config")] }));
    await assert.rejects(
      beside.readTextFile("gcloud/credentials.db"),
      (err: unknown) => (err as PolicyError).code === "denied-by-glob",
    );
    assert.equal(await beside.readTextFile("app.toml"), "a\n", "the rest of the folder is served");
    // A glob of the caller's own stays relative to the roots.
    const own = new PathJail(definePolicy({ readRoots: [join(home, ".config")], deny: ["**/home-abs/**"] }));
    assert.equal(await own.readTextFile("app.toml"), "a\n");
  },
});

Deno.test({
  name: "writeFile() with createNew refuses an existing file",
  permissions: perms,
  async fn() {
    const jail = new PathJail(writePolicy);
    await jail.writeFile("once.txt", "1", { createNew: true });
    const err = await jail.writeFile("once.txt", "2", { createNew: true }).catch((e) => e);
    assert.ok(err instanceof PolicyError);
    assert.equal(err.message, 'Cannot write "once.txt": the file already exists');
    assert.equal(await Deno.readTextFile(join(data, "once.txt")), "1");
  },
});

Deno.test({
  name: "writeFile() appends when asked",
  permissions: perms,
  async fn() {
    const jail = new PathJail(writePolicy);
    await jail.writeFile("log.txt", "a");
    await jail.writeFile("log.txt", "b", { append: true });
    assert.equal(await Deno.readTextFile(join(data, "log.txt")), "ab");
  },
});

Deno.test({
  name: "readFile() refuses a file over maxBytes with a LimitError",
  permissions: perms,
  async fn() {
    const err = await new PathJail(policy).readFile("big.txt").catch((e) => e);
    assert.ok(err instanceof LimitError);
    assert.equal(err.message, 'Cannot read "big.txt": it exceeds the limit of 1000 bytes, ask for less');
  },
});

Deno.test({
  name: "readTextFile() marks a truncation and never splits a character",
  permissions: perms,
  async fn() {
    const jail = new PathJail(policy);
    assert.equal(
      await jail.readTextFile("big.txt", { maxBytes: 3, truncate: true }),
      "xxx\n[truncated: showed 3 of 5000 bytes]",
    );
    assert.equal(
      await jail.readTextFile("utf8.txt", { maxBytes: 2, truncate: true }),
      "h\n[truncated: showed 1 of 5 bytes]",
    );
  },
});

Deno.test({
  name: "readTextCut() gives a cut file's marker apart from its text, and a whole file none, whatever it ends with",
  permissions: perms,
  async fn() {
    const jail = new PathJail(policy);
    assert.deepEqual(await jail.readTextCut("big.txt", { maxBytes: 3, truncate: true }), {
      text: "xxx",
      marker: "[truncated: showed 3 of 5000 bytes]",
    });
    assert.deepEqual(await jail.readTextCut("utf8.txt", { maxBytes: 2, truncate: true }), {
      text: "h",
      marker: "[truncated: showed 1 of 5 bytes]",
    });
    // readTextFile() of this file cannot be told from a cut one; readTextCut() says it is whole.
    assert.deepEqual(await jail.readTextCut("forged.txt", { maxBytes: 1000, truncate: true }), { text: FORGED });
    assert.equal(await jail.readTextFile("forged.txt", { maxBytes: 1000, truncate: true }), FORGED);
  },
});

Deno.test({
  name: "readFile() honours an aborted signal",
  permissions: perms,
  async fn() {
    const controller = new AbortController();
    controller.abort();
    await assert.rejects(new PathJail(policy).readFile("notes.txt", { signal: controller.signal }));
  },
});

Deno.test({
  name: "resolveRead() returns the real path inside the root",
  permissions: perms,
  async fn() {
    assert.equal(await new PathJail(policy).resolveRead("link_in"), join(data, "notes.txt"));
  },
});

Deno.test({
  name: "a jail without roots refuses everything",
  permissions: perms,
  async fn() {
    const err = await new PathJail(definePolicy({})).readTextFile("notes.txt").catch((e) => e);
    assert.ok(err instanceof PolicyError);
    assert.equal(err.message, 'Cannot read "notes.txt": no folder is open for reading');
  },
});

// A root that does not exist is the server's configuration at fault: the refusal says so, not "no such file",
// which would send the model after its path. Under permissions scoped to the missing root, as a server runs, the
// walk to the nearest existing folder sees nothing, so the answer must not depend on it.
for (const [scope, permissions] of [["", perms], [" under permissions of that root alone", undefined]] as const) {
  for (const [mode, options] of modes) {
    Deno.test({
      name: `a jail whose root does not exist says so for every call${scope}${mode}, naming no host path`,
      permissions: permissions ?? { read: [join(base, "absent")], write: [join(base, "absent")] },
      async fn() {
        const missing = join(base, "absent");
        const jail = new PathJail(definePolicy({ writeRoots: [missing] }), options);
        const calls: [string, () => Promise<unknown>][] = [
          ['Cannot write "a.md": the folder this server writes in does not exist', () => jail.writeFile("a.md", "x")],
          [
            'Cannot write "sub/a.md": the folder this server writes in does not exist',
            () => jail.writeFile("sub/a.md", "x"),
          ],
          ['Cannot read "a.md": the folder this server reads from does not exist', () => jail.readTextFile("a.md")],
          ['Cannot list ".": the folder this server reads from does not exist', () => jail.listDir(".")],
          ['Cannot stat "a.md": the folder this server reads from does not exist', () => jail.stat("a.md")],
        ];
        for (const [message, call] of calls) {
          const err = await call().catch((e) => e);
          assert.ok(err instanceof PolicyError, String(err));
          assert.equal(err.code, "not-found");
          assert.equal(err.message, message);
        }
      },
    });
  }
}

Deno.test({
  name: "layer 2 stops a jail whose policy is wider than the process's permissions",
  permissions: { read: [data] },
  async fn() {
    const tooWide = new PathJail(definePolicy({ readRoots: [base] }));
    const err = await tooWide.readTextFile(join(base, "canary.txt")).catch((e) => e);
    assert.ok(err instanceof Error && !err.message.includes(CANARY));
    assert.ok(err.cause instanceof Deno.errors.NotCapable || err instanceof PolicyError, String(err));
  },
});

// Layer 1 on its own: what Deno alone would allow, the jail refuses.
Deno.test({
  name: "layer 1 refuses a symlink escape that Deno's --allow-read=<root> allows",
  permissions: { read: [data] },
  async fn() {
    // Deno checks the link's location, not its target: this read succeeds.
    assert.equal(await Deno.readTextFile(join(data, "link_out")), CANARY);
    const err = await new PathJail(definePolicy({ readRoots: [data] })).readTextFile("link_out").catch((e) => e);
    assert.ok(err instanceof PolicyError);
    assert.equal(err.code, "symlink-escape");
  },
});

Deno.test({
  name: "layer 1 refuses a denied file that Deno's --allow-read=<root> allows",
  permissions: { read: [data] },
  async fn() {
    assert.equal(await Deno.readTextFile(join(data, ".env")), CANARY);
    await assert.rejects(new PathJail(definePolicy({ readRoots: [data] })).readTextFile(".env"), PolicyError);
  },
});

Deno.test({
  name: "FsFile.stat() checks the opened file's real path (the jail's re-check relies on it as a bonus only)",
  permissions: { read: [data] },
  async fn() {
    const file = await Deno.open(join(data, "link_out"));
    try {
      await assert.rejects(file.stat(), Deno.errors.NotCapable);
    } finally {
      file.close();
    }
  },
});

for (const [mode, options] of modes) {
  Deno.test({
    name: `listDir()${mode} leaves out names no path can name and counts them in unlisted`,
    permissions: perms,
    async fn() {
      const folder = `odd_names${mode === "" ? "" : "_walk"}`;
      await Deno.mkdir(join(data, folder));
      for (const name of ["ok.txt", "new\nline.txt", "tab\there.txt", "del\x7f.txt"]) {
        await Deno.writeTextFile(join(data, folder, name), "x");
      }
      const listing = await new PathJail(policy, options).listDir(folder);
      assert.deepEqual(listing.entries.map((e) => e.name), ["ok.txt"]);
      assert.equal(listing.unlisted, 3);
      assert.equal(listing.truncated, false);
    },
  });
}

Deno.test({
  name:
    "a link out is answered in the same words whether its target exists or not, for read, stat and write: no oracle for what exists outside",
  permissions: perms,
  async fn() {
    const said = async (run: () => Promise<unknown>) => {
      try {
        await run();
        return "no refusal";
      } catch (err) {
        return err instanceof PolicyError ? `${err.code}: ${err.message}` : String(err);
      }
    };
    for (const [, options] of modes) {
      const jail = new PathJail(policy, options);
      const writer = new PathJail(writePolicy, options);
      // link_out leads to a file that exists, dangling to one that does not; both outside.
      // Below a link out too: link_out/x and dangling/x; and through one (via_dirlink and through_dangling).
      for (
        const [existing, missing] of [
          ["link_out", "dangling"],
          ["link_out", "chain_a"],
          ["link_out/x", "dangling/x"],
          ["link_out/x", "chain_a/x"],
          // One link further: a target that looks inside, through a link out (a red team's oracle after 289da1e).
          ["via_dirlink", "through_dangling"],
          ["via_dirlink", "through_chain"],
          ["via_dirlink/x", "through_dangling/x"],
          // A `..` after a link out in a dangling link's target (a red team's oracle: "not found" here).
          ["link_out", "up_missing"],
          ["link_out/x", "up_missing/x"],
        ]
      ) {
        for (
          const [action, run] of [
            ["read", (p: string) => jail.readTextFile(p)],
            ["stat", (p: string) => jail.stat(p)],
            ["write", (p: string) => writer.writeFile(p, new TextEncoder().encode("x"))],
          ] as [string, (p: string) => Promise<unknown>][]
        ) {
          const a = (await said(() => run(existing))).replace(existing.split("/")[0], "<link>");
          const b = (await said(() => run(missing))).replace(missing.split("/")[0], "<link>");
          assert.equal(b, a, `${action}: ${existing} and ${missing}`);
          assert.match(a, /^symlink-escape: /, action);
        }
      }
    }
    assert.ok(!(await Deno.lstat(join(base, "attack_created.txt")).then(() => true, () => false)));
  },
});

Deno.test({
  name: "links through each other's folders end the walk at its budget: refused, not followed for ever",
  permissions: perms,
  async fn() {
    for (const [, options] of modes) {
      const jail = new PathJail(policy, options);
      for (const path of ["cross_a", "cross_a/y", "cross_b/x/y"]) {
        await assert.rejects(
          jail.readTextFile(path),
          (err: Error) =>
            err instanceof PolicyError &&
            /^Cannot read "[^"]+": (it passes through too many symbolic links|no such file or folder|it is or passes through a symbolic link that leads outside the allowed folders)$/
              .test(err.message),
          path,
        );
      }
      for (const path of ["many_up", "many_up/x"]) {
        await assert.rejects(
          jail.readTextFile(path),
          (err: Error) => err instanceof PolicyError && /too many symbolic links$/.test(err.message),
          path,
        );
      }
    }
  },
});

Deno.test({
  name:
    "a missing path 300 levels deep (maxPathDepth 1000) is not found: only links count against the link walk's budget",
  permissions: perms,
  async fn() {
    const deep = definePolicy({ readRoots: [data], writeRoots: [], limits: { maxPathDepth: 1000 } });
    for (const [, options] of modes) {
      const jail = new PathJail(deep, options);
      await assert.rejects(
        jail.readTextFile(`${"a/".repeat(300)}x`),
        (err: Error) => err instanceof PolicyError && err.code === "not-found",
      );
    }
  },
});

Deno.test({
  name: "listDir() words its refusals as a listing: a missing folder, a path out, a link out",
  permissions: perms,
  async fn() {
    for (const [, options] of modes) {
      const jail = new PathJail(policy, options);
      for (
        const [path, reason] of [
          ["missing", /^Cannot list "missing": no such file or folder$/],
          ["../data2", /^Cannot list "\.\.\/data2": the path leaves the allowed folders$/],
          ["dirlink_out", /^Cannot list "dirlink_out": it is or passes through a symbolic link that leads outside/],
        ] as [string, RegExp][]
      ) {
        await assert.rejects(
          jail.listDir(path),
          (err: unknown) => err instanceof PolicyError && reason.test(err.message),
        );
      }
    }
  },
});

Deno.test({
  name:
    "a path deeper than maxPathDepth below its root is refused as given and as resolved through a link, for every call, and one at the limit is served",
  permissions: { ...perms, run: ["ln"] },
  async fn() {
    const deepest = join(data, ...Array(8).fill("d"));
    await Deno.mkdir(deepest, { recursive: true });
    await Deno.writeTextFile(join(deepest, "x.txt"), "deep");
    await symlink(join(data, "d", "d", "d", "d", "d", "d", "d"), join(data, "shortcut"));
    const shallow = definePolicy({ readRoots: [data], writeRoots: [data], limits: { maxPathDepth: 8 } });
    const deep = /^Cannot (read|list|stat|write) "[^"]+": it lies more than 8 levels below its root folder$/;
    for (const [, options] of modes) {
      const jail = new PathJail(shallow, options);
      // At the limit: 8 names below the root.
      assert.deepEqual((await jail.listDir("d/d/d/d/d/d/d/d")).entries.map((e) => e.name), ["x.txt"]);
      for (
        const run of [
          () => jail.readTextFile("d/d/d/d/d/d/d/d/x.txt"),
          () => jail.readTextFile("shortcut/d/x.txt"),
          () => jail.listDir("d/d/d/d/d/d/d/d/d"),
          () => jail.stat("shortcut/d/x.txt"),
          () => jail.writeFile("shortcut/d/new.txt", "x"),
        ]
      ) {
        await assert.rejects(run(), (err: unknown) => err instanceof PolicyError && deep.test(err.message));
      }
    }
    assert.ok(!(await Deno.lstat(join(deepest, "new.txt")).then(() => true, () => false)));
  },
});

Deno.test({
  name:
    "listDir() past timeMs stops between entries and is refused, or throws the signal's reason when the signal fired meanwhile",
  permissions: perms,
  async fn() {
    for (const [, options] of modes) {
      const jail = new PathJail(policy, options);
      await assert.rejects(
        jail.listDir("sub", { timeMs: 0 }),
        (err: unknown) =>
          err instanceof PolicyError && err.code === "too-large" &&
          /^Cannot list "sub": listing it took longer than 0 ms; list or search a folder inside it$/.test(err.message),
      );
      // A deadline comes due while the listing holds the thread: its timer was armed before the listing started.
      const deadline = new AbortController();
      const reason = new DOMException("Tool call timed out after 10000 ms", "TimeoutError");
      setTimeout(() => deadline.abort(reason), 0);
      await assert.rejects(
        jail.listDir("sub", { timeMs: 0, signal: deadline.signal }),
        (err: unknown) => err === reason,
      );
      await assert.rejects(jail.listDir("sub", { signal: deadline.signal }), (err: unknown) => err === reason);
      assert.ok((await jail.listDir("sub", { timeMs: 60_000 })).entries.some((e) => e.name === "deep.txt"));
    }
  },
});

Deno.test("every default deny glob starts with **/: PathJail matches them against the absolute path alone, which covers the path from its root", () => {
  for (const glob of DEFAULT_DENY) assert.ok(glob.startsWith("**/"), glob);
});

Deno.test({
  name:
    "a path in a denied folder is denied like the folder, for read, stat, write (existing or new), list and the listing above, root-relative and absolute (a red team read secrets/api.txt under **/secret*)",
  permissions: perms,
  async fn() {
    const tree = join(base, "denied-folders");
    const [root, ws] = [join(tree, "data"), join(tree, "ws")];
    for (const dir of ["secrets", "deep/private2/inner", "deep/private", "conf/.env"]) {
      await Deno.mkdir(join(root, dir), { recursive: true });
    }
    await Deno.mkdir(join(ws, "secrets"), { recursive: true });
    await Deno.writeTextFile(join(root, "secrets", "api.txt"), CANARY);
    await Deno.writeTextFile(join(root, "deep", "private2", "inner", "x.txt"), CANARY);
    await Deno.writeTextFile(join(root, "deep", "private", "y.txt"), CANARY);
    await Deno.writeTextFile(join(root, "deep", "public.txt"), "public");
    await Deno.writeTextFile(join(root, "conf", ".env", "inner.txt"), CANARY);
    await Deno.writeTextFile(join(ws, "secrets", "token.txt"), "kept");
    const folders = definePolicy({
      readRoots: [root],
      writeRoots: [ws],
      deny: ["**/secret*", "**/private2", "deep/private"],
    });
    const denied = (err: unknown) =>
      err instanceof PolicyError && err.code === "denied-by-glob" && /the policy denies this path$/.test(err.message);
    for (const [mode, options] of modes) {
      const jail = new PathJail(folders, options);
      for (
        const path of [
          "secrets/api.txt",
          join(root, "secrets", "api.txt"),
          "SECRETS/../secrets/api.txt",
          "deep/private2/inner/x.txt",
          "deep/private/y.txt",
          "conf/.env/inner.txt",
        ]
      ) {
        await assert.rejects(jail.readTextFile(path), denied, `read${mode}: ${path}`);
        await assert.rejects(jail.stat(path), denied, `stat${mode}: ${path}`);
      }
      for (const path of ["secrets", "deep/private2/inner", "deep/private", "conf/.env"]) {
        await assert.rejects(jail.listDir(path), denied, `list${mode}: ${path}`);
      }
      for (const path of [join(ws, "secrets", "token.txt"), join(ws, "secrets", "new.txt")]) {
        for (const write of [{}, { atomic: true }]) {
          await assert.rejects(jail.writeFile(path, "pwned", write), denied, `write${mode}: ${path}`);
        }
      }
      assert.deepEqual((await jail.listDir("deep")).entries.map((e) => e.name), ["public.txt"]);
      assert.equal(await jail.readTextFile("deep/public.txt"), "public");
    }
    assert.equal(await Deno.readTextFile(join(ws, "secrets", "token.txt")), "kept");
    assert.ok(!(await Deno.lstat(join(ws, "secrets", "new.txt")).then(() => true, () => false)));
  },
});

for (const [mode, options] of modes) {
  Deno.test({
    name:
      `writeFile()${mode} with dryRun refuses what the write would refuse and writes nothing, creating no temporary file`,
    permissions: perms,
    async fn() {
      const folder = join(data, `dry${mode === "" ? "" : "_walk"}`);
      await Deno.mkdir(join(folder, "locked"), { recursive: true });
      await Deno.writeTextFile(join(folder, "ro.txt"), "ro");
      await Deno.writeTextFile(join(folder, "rw.txt"), "rw");
      await Deno.chmod(join(folder, "ro.txt"), 0o444);
      await Deno.chmod(join(folder, "locked"), 0o555);
      const jail = new PathJail(writePolicy, options);
      const rel = (name: string) => `${basename(folder)}/${name}`;
      try {
        for (const write of [{ dryRun: true }, { dryRun: true, atomic: true }]) {
          await assert.rejects(jail.writeFile(rel("ro.txt"), "x", write), /the file is read-only \(mode 444\)$/);
          await assert.rejects(jail.writeFile(rel("locked/new.txt"), "x", write), /its folder is read-only/);
          await assert.rejects(jail.writeFile(rel("rw.txt"), "x", { ...write, createNew: true }), /already exists/);
          await jail.writeFile(rel("rw.txt"), "x", write);
          await jail.writeFile(rel("new.txt"), "x", write);
        }
        await assert.rejects(jail.writeFile(rel("locked/new.txt"), "x", { dryRun: true, atomic: true }), PolicyError);
      } finally {
        await Deno.chmod(join(folder, "locked"), 0o755);
      }
      assert.equal(await Deno.readTextFile(join(folder, "rw.txt")), "rw");
      const names = [...Deno.readDirSync(folder)].map((e) => e.name).sort();
      assert.deepEqual(names, ["locked", "ro.txt", "rw.txt"]);
      assert.ok(![...Deno.readDirSync(data)].some((e) => e.name.startsWith(".forge-write-")), "no temporary file");
    },
  });
}

Deno.test({
  name:
    "with nested roots the deny globs refuse the same paths whichever root is listed first: read, stat, list, and a link from the outer root (a red team read secrets/api.txt with the inner root first)",
  permissions: { ...perms, run: ["ln"] },
  async fn() {
    const tree = join(base, "nested-roots");
    const [outer, inner] = [join(tree, "data"), join(tree, "data", "secrets")];
    await Deno.mkdir(inner, { recursive: true });
    await Deno.mkdir(join(outer, "ok"));
    await Deno.writeTextFile(join(inner, "api.txt"), CANARY);
    await Deno.writeTextFile(join(outer, "ok", "a.txt"), "a");
    await symlink("secrets", join(outer, "lnk"));
    const denied = (err: unknown) => err instanceof PolicyError && err.code === "denied-by-glob";
    for (const readRoots of [[inner, outer], [outer, inner]]) {
      const nested = definePolicy({ readRoots, writeRoots: [], deny: ["**/secret*"] });
      for (const [mode, options] of modes) {
        const jail = new PathJail(nested, options);
        const order = `${readRoots[0] === inner ? "inner" : "outer"} root first${mode}`;
        for (const path of [join(inner, "api.txt"), join(outer, "lnk", "api.txt"), inner]) {
          await assert.rejects(jail.readTextFile(path), denied, `read, ${order}: ${path}`);
          await assert.rejects(jail.stat(path), denied, `stat, ${order}: ${path}`);
        }
        await assert.rejects(jail.listDir(inner), denied, `list, ${order}`);
        const names = (await jail.listDir(outer)).entries.map((e) => e.name);
        assert.deepEqual(names, ["ok"], `list the outer root, ${order}`);
        assert.equal(await jail.readTextFile(join(outer, "ok", "a.txt")), "a", order);
      }
    }
  },
});

Deno.test({
  name:
    "the policy's own files (readFiles, writeFiles) inside a root are never served: read, write, stat, list, through a link, with and without the descriptor anchor",
  permissions: { ...perms, run: ["ln"] },
  async fn() {
    const tree = join(base, "own-files");
    const [root, aside] = [join(tree, "root"), join(tree, "aside")];
    await Deno.mkdir(join(root, "cfg"), { recursive: true });
    await Deno.mkdir(aside);
    await Deno.writeTextFile(join(root, "cfg", "server.json"), CANARY);
    await Deno.writeTextFile(join(aside, "server.json"), "not the server's: same name, another root");
    await Deno.writeTextFile(join(root, "cfg", "kept.txt"), "kept");
    await symlink("cfg/server.json", join(root, "to_config"));
    const own = definePolicy({
      readRoots: [root, aside],
      writeRoots: [root],
      // The audit file does not exist yet: it is refused by the path it will have.
      readFiles: [join(root, "cfg", "server.json")],
      writeFiles: [join(root, "audit.jsonl")],
    });
    const denied = (err: unknown) =>
      err instanceof PolicyError && err.code === "denied-by-glob" && !err.message.includes(CANARY);
    for (const [mode, options] of modes) {
      const jail = new PathJail(own, options);
      for (const path of ["cfg/server.json", join(root, "cfg", "server.json"), "to_config", "cfg/../cfg/server.json"]) {
        await assert.rejects(jail.readTextFile(path), denied, `read${mode}: ${path}`);
        await assert.rejects(jail.stat(path), denied, `stat${mode}: ${path}`);
        await assert.rejects(jail.writeFile(path, "{}"), denied, `write${mode}: ${path}`);
      }
      await assert.rejects(jail.writeFile("audit.jsonl", "forged"), denied, `write the audit file${mode}`);
      const names = (await jail.listDir("cfg")).entries.map((e) => e.name);
      assert.deepEqual(names, ["kept.txt"], `list${mode}`);
      assert.equal(await jail.readTextFile(join(aside, "server.json")), "not the server's: same name, another root");
    }
    assert.equal(await Deno.readTextFile(join(root, "cfg", "server.json")), CANARY, "the config was never written");
    await assert.rejects(Deno.stat(join(root, "audit.jsonl")), Deno.errors.NotFound);
  },
});

Deno.test({
  name:
    "the policy's own files stay refused after a link on their way is swapped, when made later under a linked folder, and by a hard link where hard links are served (a red team read and rewrote them)",
  permissions: { ...perms, run: ["ln"] },
  async fn() {
    const tree = join(base, "own-files-moving");
    const root = join(tree, "root");
    await Deno.mkdir(join(root, "v1"), { recursive: true });
    await Deno.mkdir(join(root, "v2"));
    await Deno.mkdir(join(root, "logs-real"));
    await Deno.writeTextFile(join(root, "v1", "server.json"), CANARY);
    await Deno.writeTextFile(join(root, "v2", "server.json"), CANARY);
    // A redeploy's layout: cfg/server.json -> ../current/server.json, current -> v1, later v2.
    await Deno.mkdir(join(root, "cfg"));
    await symlink("v1", join(root, "current"));
    await symlink("../current/server.json", join(root, "cfg", "server.json"));
    await symlink("logs-real", join(root, "logs"));
    const own = definePolicy({
      readRoots: [root],
      writeRoots: [root],
      readFiles: [join(root, "cfg", "server.json")],
      // Under a folder that does not exist yet, below a linked folder.
      writeFiles: [join(root, "logs", "sub", "audit.jsonl")],
    });
    const denied = (err: unknown) => err instanceof PolicyError && err.code === "denied-by-glob";
    for (const [mode, options] of modes) {
      const jail = new PathJail(own, { ...options, allowHardLinks: true });
      await assert.rejects(jail.readTextFile("v1/server.json"), denied, `v1 before the swap${mode}`);
      assert.equal((await jail.listDir("v2")).entries.length, 1, `v2 is not the config yet${mode}`);
      await Deno.remove(join(root, "current"));
      await symlink("v2", join(root, "current"));
      await assert.rejects(jail.readTextFile("v2/server.json"), denied, `v2 after the swap${mode}`);
      await assert.rejects(jail.writeFile("v2/server.json", "{}"), denied, `write v2 after the swap${mode}`);
      await Deno.remove(join(root, "current"));
      await symlink("v1", join(root, "current"));
      await Deno.mkdir(join(root, "logs-real", "sub"), { recursive: true });
      await Deno.writeTextFile(join(root, "logs-real", "sub", "audit.jsonl"), "{}\n");
      for (const path of ["logs-real/sub/audit.jsonl", "logs/sub/audit.jsonl"]) {
        await assert.rejects(jail.readTextFile(path), denied, `${path}${mode}`);
        await assert.rejects(jail.writeFile(path, "forged\n"), denied, `write ${path}${mode}`);
      }
      assert.deepEqual((await jail.listDir("logs-real/sub")).entries, [], `list${mode}`);
      const hard = join(root, `hard${mode === "" ? "" : "-walk"}.json`);
      const made = await new Deno.Command("ln", { args: [join(root, "v1", "server.json"), hard] }).output();
      assert.ok(made.success);
      await assert.rejects(jail.readTextFile(hard), denied, `a hard link to it${mode}`);
      await Deno.remove(join(root, "logs-real", "sub"), { recursive: true });
    }
    assert.equal(await Deno.readTextFile(join(root, "v2", "server.json")), CANARY);
  },
});

// Made here: a test's permissions are fixed when it is declared.
const plantTree = join(base, "own-files-planted");
const plantRoot = join(plantTree, "ws");
await Deno.mkdir(join(plantRoot, "tenant-real"), { recursive: true });
await Deno.mkdir(join(plantRoot, "tenant", "next"), { recursive: true });
await Deno.mkdir(join(plantTree, "etc"));
await symlink("../ws/tenant-real", join(plantTree, "etc", "acme"));
await symlink("next/files.json", join(plantRoot, "tenant", "files.json"));

Deno.test({
  name:
    "an own file not made yet is refused where it will be: through a tenant folder linked into a writable root this process may not resolve (by name, fail closed), and at a dangling link's target (a red team planted the next start's config)",
  // As least privilege grants them: the root, and the tenant file alone, never the folder holding it.
  permissions: {
    read: [plantRoot, join(plantTree, "etc", "acme", "files.json"), join(base, "anchor")],
    write: [plantRoot, join(base, "anchor")],
  },
  async fn() {
    const planted = definePolicy({
      readRoots: [plantRoot],
      writeRoots: [plantRoot],
      readFiles: [join(plantTree, "etc", "acme", "files.json"), join(plantRoot, "tenant", "files.json")],
    });
    const denied = (err: unknown) => err instanceof PolicyError && err.code === "denied-by-glob";
    for (const [mode, options] of modes) {
      const jail = new PathJail(planted, options);
      for (const path of ["tenant-real/files.json", "tenant/next/files.json", "tenant/files.json"]) {
        await assert.rejects(jail.writeFile(path, '{"roots":["/"]}'), denied, `${path}${mode}`);
      }
      await jail.writeFile("tenant/next/other.json", "{}");
    }
    await assert.rejects(Deno.stat(join(plantRoot, "tenant-real", "files.json")), Deno.errors.NotFound);
    await assert.rejects(Deno.stat(join(plantRoot, "tenant", "next", "files.json")), Deno.errors.NotFound);
  },
});

Deno.test({
  name:
    "a root swapped for a link (or a folder) after the jail is built is refused alike by reads, writes, stats and listings, both walk modes: each root's real path is taken at construction (a root swapped between the first read and the first write let the write land outside)",
  permissions: { ...perms, run: ["ln"] },
  async fn() {
    const tree = join(base, "root-swap");
    const [parent, outside] = [join(tree, "parent"), join(tree, "outside")];
    const root = join(parent, "w");
    await Deno.mkdir(root, { recursive: true });
    await Deno.mkdir(outside);
    await Deno.writeTextFile(join(root, "a.txt"), "inside");
    await Deno.writeTextFile(join(outside, "a.txt"), CANARY);
    // Whoever can write the root's parent (not the root) puts a link to a folder of its choice at the root's path.
    const swap = async () => {
      await Deno.rename(root, join(parent, "w-orig"));
      await symlink("../outside", root);
    };
    const restore = async () => {
      await Deno.remove(root);
      await Deno.rename(join(parent, "w-orig"), root);
    };
    const swapped = (action: string, path: string) => (err: unknown) =>
      err instanceof PolicyError && err.code === "changed" &&
      err.message === `Cannot ${action} "${path}": its root folder was replaced since the server started` &&
      !err.message.includes(base);
    const jailPolicy = definePolicy({ readRoots: [], writeRoots: [root] });
    for (const [mode, options] of modes) {
      // The first read resolves the roots for reading; the swap comes before the first write.
      const jail = new PathJail(jailPolicy, options);
      assert.equal(await jail.readTextFile("a.txt"), "inside", `read before the swap${mode}`);
      await swap();
      await assert.rejects(jail.writeFile("b.txt", "written"), swapped("write", "b.txt"), `write${mode}`);
      await assert.rejects(jail.writeFile("a.txt", "written"), swapped("write", "a.txt"), `overwrite${mode}`);
      await assert.rejects(jail.readTextFile("a.txt"), swapped("read", "a.txt"), `read${mode}`);
      await assert.rejects(jail.stat("a.txt"), swapped("stat", "a.txt"), `stat${mode}`);
      await assert.rejects(jail.listDir("."), swapped("list", "."), `list${mode}`);
      await restore();
      // A jail built before the swap and first used after it: the same (it was served from outside).
      const fresh = new PathJail(jailPolicy, options);
      await swap();
      await assert.rejects(fresh.readTextFile("a.txt"), swapped("read", "a.txt"), `first use after the swap${mode}`);
      await assert.rejects(fresh.writeFile("c.txt", "written"), swapped("write", "c.txt"), `first write${mode}`);
      await restore();
      // Put back, the root is the same folder at the same real path: served again.
      await fresh.writeFile("d.txt", "written");
      assert.equal(await fresh.readTextFile("d.txt"), "written", `after the restore${mode}`);
      assert.equal(await jail.readTextFile("a.txt"), "inside", `the first jail after the restore${mode}`);
      await Deno.remove(join(root, "d.txt"));
      // A folder of the swapper's own put in the root's place resolves to the same real path: refused by identity.
      await Deno.rename(root, join(parent, "w-orig"));
      await Deno.mkdir(root);
      await assert.rejects(fresh.writeFile("e.txt", "written"), swapped("write", "e.txt"), `a new folder${mode}`);
      await assert.rejects(fresh.readTextFile("e.txt"), swapped("read", "e.txt"), `read a new folder${mode}`);
      await Deno.remove(root);
      await Deno.rename(join(parent, "w-orig"), root);
    }
    assert.deepEqual([...Deno.readDirSync(outside)].map((e) => e.name), ["a.txt"], "nothing was written outside");
    assert.equal(await Deno.readTextFile(join(outside, "a.txt")), CANARY);
  },
});

Deno.test({
  name:
    "a root missing when the jail is built and created later as a link out (or below a folder created as one) is refused alike by reads, writes, stats and listings, both walk modes; created as a folder it is served (it was taken where the link led)",
  permissions: { ...perms, run: ["ln"] },
  async fn() {
    const tree = join(base, "root-late");
    const outside = join(tree, "outside");
    await Deno.mkdir(join(outside, "w"), { recursive: true });
    await Deno.writeTextFile(join(outside, "a.txt"), CANARY);
    // The caller's absolute path is shortened in the message (quote()): its start and the reason are compared.
    const late = (action: string, path: string) => (err: unknown) =>
      err instanceof PolicyError && err.code === "changed" &&
      err.message.startsWith(`Cannot ${action} "${path.slice(0, 20)}`) &&
      err.message.endsWith(": its root folder was replaced since the server started");
    for (const [n, [mode, options]] of modes.entries()) {
      const parent = join(tree, `parent${n}`);
      await Deno.mkdir(parent);
      const [linked, deep, plain] = [join(parent, "w"), join(parent, "gone", "w"), join(parent, "new", "w")];
      const jail = new PathJail(definePolicy({ readRoots: [], writeRoots: [plain, linked, deep] }), options);
      // Whoever can write the roots' parent creates one root as a link, and the missing folder above another as one.
      await symlink("../outside", linked);
      await symlink("../outside", join(parent, "gone"));
      for (const root of [linked, deep]) {
        const [file, fresh] = [join(root, "a.txt"), join(root, "b.txt")];
        await assert.rejects(jail.readTextFile(file), late("read", file), `read${mode}`);
        await assert.rejects(jail.stat(file), late("stat", file), `stat${mode}`);
        await assert.rejects(jail.listDir(root), late("list", root), `list${mode}`);
        await assert.rejects(jail.writeFile(fresh, "written"), late("write", fresh), `write${mode}`);
      }
      // The same calls under a root (and the folder above it) created as folders are served.
      await Deno.mkdir(plain, { recursive: true });
      await jail.writeFile("b.txt", "written");
      assert.equal(await jail.readTextFile(join(plain, "b.txt")), "written", `a root created as a folder${mode}`);
      assert.deepEqual((await jail.listDir(".")).entries.map((e) => e.name), ["b.txt"]);
    }
    assert.deepEqual([...Deno.readDirSync(outside)].map((e) => e.name).sort(), ["a.txt", "w"], "nothing written out");
    assert.deepEqual([...Deno.readDirSync(join(outside, "w"))], [], "nothing written below the outside folder");
  },
});

Deno.test({
  name:
    "a write whose folder is renamed away (with its root) after the step began is refused as changed, naming only the caller's path, and leaves nothing behind, both walk modes (path mode surfaced Deno's bare NotFound with the root's host path)",
  permissions: perms,
  async fn() {
    const tree = join(base, "vanish");
    const [root, gone] = [join(tree, "w"), join(tree, "w-gone")];
    await Deno.mkdir(root, { recursive: true });
    // What lies in the tree, the root and where it went, whichever exists.
    const files = () => [...Deno.readDirSync(tree)].flatMap((folder) => [...Deno.readDirSync(join(tree, folder.name))]);
    const calls: [string, (jail: PathJail) => Promise<void>][] = [
      ["an atomic write of a new file", (jail) => jail.writeFile("x.txt", "mine", { atomic: true })],
      ["a createNew write", (jail) => jail.writeFile("x.txt", "mine", { atomic: true, createNew: true })],
      ["an in-place write of a new file", (jail) => jail.writeFile("x.txt", "mine")],
      ["a dry run", (jail) => jail.writeFile("x.txt", "mine", { atomic: true, dryRun: true })],
    ];
    for (const [mode, options] of modes) {
      for (const [label, call] of calls) {
        // The descriptor walk looks at the folder through the descriptor it holds, wherever it went: a dry run there
        // answers for that folder, and the writes are refused when they create their file in the root.
        if (options.descriptorAnchor !== undefined && label === "a dry run") continue;
        const jail = new PathJail(definePolicy({ readRoots: [], writeRoots: [root] }), options);
        // Another process renames the root away just as the write looks at its folder's mode: the step found the
        // folder a moment before.
        walkHooks.beforeFolderMode = () => {
          walkHooks.beforeFolderMode = undefined;
          Deno.renameSync(root, gone);
        };
        let err: unknown;
        try {
          err = await call(jail).then(() => undefined, (e) => e);
        } finally {
          walkHooks.beforeFolderMode = undefined;
        }
        assert.ok(
          err instanceof PolicyError && err.code === "changed" &&
            err.message === 'Cannot write "x.txt": it changed while it was being opened; try again',
          `${label}${mode}: ${err}`,
        );
        assert.deepEqual(files(), [], `${label}${mode}: a file was left behind`);
        if (Deno.lstatSync(tree) && [...Deno.readDirSync(tree)].some((e) => e.name === "w-gone")) {
          Deno.renameSync(gone, root);
        }
      }
    }
  },
});

Deno.test({
  name:
    "a root missing when the jail is built fails only the calls under it, as not-found, both walk modes: the others are served (every call failed as an internal error naming the missing root's host path)",
  permissions: perms,
  async fn() {
    const tree = join(base, "one-missing");
    const [present, missing] = [join(tree, "present"), join(tree, "missing")];
    await Deno.mkdir(present, { recursive: true });
    await Deno.writeTextFile(join(present, "a.txt"), "here");
    for (const [mode, options] of modes) {
      const jail = new PathJail(definePolicy({ readRoots: [], writeRoots: [present, missing] }), options);
      assert.equal(await jail.readTextFile("a.txt"), "here", `read${mode}`);
      assert.equal((await jail.stat("a.txt")).size, 4, `stat${mode}`);
      assert.deepEqual((await jail.listDir(".")).entries.map((e) => e.name), ["a.txt"], `list${mode}`);
      await jail.writeFile("b.txt", "written", { atomic: true });
      assert.equal(await Deno.readTextFile(join(present, "b.txt")), "written", `write${mode}`);
      const under = join(missing, "c.txt");
      await assert.rejects(
        jail.readTextFile(under),
        (err: unknown) =>
          err instanceof PolicyError && err.code === "not-found" &&
          err.message.endsWith(": the folder this server reads from does not exist"),
        `under the missing root${mode}`,
      );
      await Deno.remove(join(present, "b.txt"));
    }
  },
});

Deno.test({
  name:
    "a root created after the jail was built and removed between the jail's two looks at it is refused as not-found in the caller's words, for reads and writes, both walk modes (a plain Error naming the root's host path escaped)",
  permissions: perms,
  async fn() {
    const tree = join(base, "pin-vanish");
    const root = join(tree, "late");
    await Deno.mkdir(tree);
    const calls: [string, string, (jail: PathJail) => Promise<unknown>][] = [
      ["read", "reads from", (jail) => jail.readTextFile("a.txt")],
      ["write", "writes in", (jail) => jail.writeFile("a.txt", "mine", { atomic: true })],
    ];
    for (const [mode, options] of modes) {
      for (const [action, where, call] of calls) {
        const jail = new PathJail(definePolicy({ readRoots: [], writeRoots: [root] }), options);
        await Deno.mkdir(root);
        await Deno.writeTextFile(join(root, "a.txt"), "theirs");
        // The call's first look found the root; it goes just before the jail takes its real path.
        walkHooks.beforeRootPinned = () => {
          walkHooks.beforeRootPinned = undefined;
          Deno.removeSync(root, { recursive: true });
        };
        let err: unknown;
        try {
          err = await call(jail).then(() => undefined, (e) => e);
        } finally {
          walkHooks.beforeRootPinned = undefined;
        }
        assert.ok(
          err instanceof PolicyError && err.code === "not-found" &&
            err.message === `Cannot ${action} "a.txt": the folder this server ${where} does not exist`,
          `${action}${mode}: ${err}`,
        );
        assert.ok(!String(err).includes(base) && !String(err.cause ?? "").includes(base), `${action}${mode}`);
        assert.deepEqual([...Deno.readDirSync(tree)], [], `${action}${mode}: something was left behind`);
      }
    }
  },
});
