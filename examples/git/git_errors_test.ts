// test-permissions: --allow-run --allow-read={repo},{tmp} --allow-write={tmp} --allow-env={child-env}
// What the model reads when git fails, over real stdio against the server
// started with exactly the flags it prints: git quotes files it reads deep
// inside `.git` (a bad `packed-refs` or `info/grafts` line), so git's own
// words never reach a reply. Failures the server knows are said in its words,
// naming only what the caller sent; anything else is "git failed (ref …)",
// with git's text on the server's stderr, escaped.
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertRefused, serveUnderPrintedFlags, textOf } from "../served.ts";
import { SCRIPT } from "./_e2e.ts";
import { hostileTree } from "./_hostile.ts";

const perms: Deno.PermissionOptions = { run: true, read: "inherit", write: "inherit", env: "inherit" };

/** Runs plain git (no hardening) and returns what it wrote to stderr. */
async function plainStderr(cwd: string, ...args: string[]): Promise<string> {
  const env = { PATH: "/usr/bin:/bin", GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" };
  const out = await new Deno.Command("/usr/bin/git", { args, cwd, env, clearEnv: true, stdin: "null" }).output();
  return new TextDecoder().decode(out.stderr);
}

Deno.test({
  name:
    "git's own words never reach a reply: a packed-refs or grafts file hard-linked to an outside file leaks no line of it, an unknown failure is 'git failed (ref …)' with git's text on one stderr line",
  permissions: perms,
  async fn() {
    const t = await hostileTree();
    // Lines git cannot parse and quotes (packed-refs: its last line, when shorter than a ref line).
    const canary = t.canary.slice(0, 24);
    await Deno.writeTextFile(t.secret, `${canary}\n`.repeat(4));
    // Links inside `.git` are refused; a hard link looks like any file (and is refused too, unless allowed).
    const packed = await t.f.repo("packed", { "README.md": "# packed\n" });
    await Deno.link(t.secret, join(packed, ".git", "packed-refs"));
    const grafts = await t.f.repo("grafts", { "README.md": "# grafts\n" });
    await t.f.git(grafts, "config", "advice.graftFileDeprecated", "false");
    await Deno.link(t.secret, join(grafts, ".git", "info", "grafts"));
    // A damaged object: git says so in several lines, which stderr must keep on one.
    const damaged = await t.f.repo("damaged", { "README.md": "# damaged\n" });
    const blob = (await t.f.git(damaged, "rev-parse", "HEAD:README.md")).trim();
    const object = join(damaged, ".git", "objects", blob.slice(0, 2), blob.slice(2));
    await Deno.chmod(object, 0o600);
    await Deno.writeTextFile(object, "damaged\n");
    assert.match(await plainStderr(packed, "log"), new RegExp(`unexpected line in .*packed-refs: ${canary}`));
    assert.match(await plainStderr(grafts, "blame", "--", "nope"), new RegExp(`bad graft data: ${canary}`));
    assert.match(await plainStderr(damaged, "show", "HEAD"), /\n.*\n/, "git says it in one line: this proves nothing");
    const repos = ["packed", "grafts", "damaged"].map((name) => ({ name, path: name, writable: true }));
    // Hard links in the git data are refused unless allowed: allowed here, git's words are the last line of defence.
    const served = await serveUnderPrintedFlags(SCRIPT, await t.config({ repos, allow_hard_links: true }));
    const unknown = /^Cannot run git [a-z-]+ in repo "(?:packed|damaged)": git failed \(ref ([0-9a-z-]+)\)$/;
    try {
      const calls: [string, Record<string, unknown>, RegExp][] = [
        ["git_status", { repo: "packed" }, unknown],
        ["git_log", { repo: "packed" }, unknown],
        ["git_log", { repo: "packed", ref: "HEAD" }, unknown],
        ["git_show", { repo: "packed", rev: "HEAD" }, unknown],
        ["git_diff", { repo: "packed", from: "main" }, unknown],
        ["git_grep", { repo: "packed", pattern: "#", ref: "HEAD" }, unknown],
        ["git_blame", { repo: "packed", path: "README.md", ref: "HEAD" }, unknown],
        ["git_commit", { repo: "packed", message: "m", paths: ["README.md"] }, unknown],
        ["git_show", { repo: "damaged", rev: "HEAD" }, unknown],
        // git quotes the grafts lines, then fails for a reason the server knows: its words, the caller's path.
        [
          "git_blame",
          { repo: "grafts", path: "nope" },
          /^Cannot run git blame in repo "grafts": path "nope" is not a committed file at that revision$/,
        ],
      ];
      const refs: string[] = [];
      for (const [name, args, expected] of calls) {
        const result = await served.call(name, args);
        const text = textOf(result);
        const shown = `${name} ${JSON.stringify(args)}: ${text}`;
        assert.ok(!text.includes(canary), shown);
        assertRefused(result, expected, shown);
        const ref = text.match(unknown)?.[1];
        if (ref !== undefined) refs.push(ref);
      }
      assert.equal(new Set(refs).size, refs.length, "each failure has its own ref");
      // Each ref names one stderr line holding git's words, line breaks escaped.
      for (const ref of refs) await served.server.waitForStderr(`git: ref ${ref}:`);
      const logged = served.server.stderr().split("\n").filter((line) => line.startsWith("git: ref "));
      assert.equal(logged.length, refs.length, logged.join("\n"));
      assert.ok(logged.some((line) => line.includes(`packed-refs: ${canary}`)), logged.join("\n"));
      assert.ok(logged.some((line) => /\\nfatal: /.test(line)), logged.join("\n"));
    } finally {
      await served.server.close();
      await t.f.end();
    }
  },
});

Deno.test({
  name:
    "a git failure the server knows is said in its own words, naming only what the caller sent: a missing path, a bad pattern, nothing to commit, no commits yet, a held index lock",
  permissions: perms,
  async fn() {
    const t = await hostileTree();
    const app = await t.f.repo("app", { "README.md": "# app\n", "src/a.txt": "a\n" });
    await Deno.writeTextFile(join(app, ".gitignore"), "ignored.txt\n");
    await Deno.writeTextFile(join(app, "ignored.txt"), "x\n");
    const empty = join(t.f.base, "empty");
    await Deno.mkdir(empty);
    await t.f.git(empty, "init", "-q", "-b", "main");
    await Deno.writeTextFile(join(empty, "a.txt"), "a\n");
    const locked = await t.f.repo("locked", { "README.md": "# locked\n" });
    await Deno.writeTextFile(join(locked, "README.md"), "# changed\n");
    await Deno.writeTextFile(join(locked, ".git", "index.lock"), "");
    const repos = ["app", "empty", "locked"].map((name) => ({ name, path: name, writable: true }));
    const served = await serveUnderPrintedFlags(SCRIPT, await t.config({ repos }));
    try {
      const said: [string, Record<string, unknown>, string][] = [
        [
          "git_blame",
          { repo: "app", path: "nope.txt" },
          'Cannot run git blame in repo "app": path "nope.txt" is not a committed file at that revision',
        ],
        [
          "git_blame",
          { repo: "app", path: "src", ref: "HEAD" },
          'Cannot run git blame in repo "app": path "src" is not a committed file at that revision',
        ],
        [
          "git_show",
          { repo: "app", rev: "HEAD", path: "src/nope.txt" },
          'Cannot run git show in repo "app": path "src/nope.txt" does not exist at that revision',
        ],
        [
          "git_grep",
          { repo: "app", pattern: "a{1" },
          'Cannot run git grep in repo "app": pattern "a{1" is not a valid extended regular expression',
        ],
        [
          "git_commit",
          { repo: "app", message: "m", paths: ["nope.txt"] },
          'Cannot run git add in repo "app": path "nope.txt" matches no file',
        ],
        [
          "git_commit",
          { repo: "app", message: "m", paths: ["ignored.txt"] },
          'Cannot run git add in repo "app": a path is ignored by the repository\'s ignore rules',
        ],
        [
          "git_commit",
          { repo: "app", message: "m", paths: ["README.md"] },
          'Cannot run git commit in repo "app": the paths hold no change to commit',
        ],
        ["git_log", { repo: "empty" }, 'Cannot run git log in repo "empty": the repository has no commits yet'],
        [
          "git_blame",
          { repo: "empty", path: "a.txt" },
          'Cannot run git blame in repo "empty": the repository has no commits yet',
        ],
        [
          "git_commit",
          { repo: "locked", message: "m", paths: ["README.md"] },
          'Cannot run git add in repo "locked": the repository\'s index lock (index.lock in its git directory) is ' +
          "taken: another git runs there, or one that was stopped left it behind; if none runs, the operator may " +
          "remove that file",
        ],
      ];
      for (const [name, args, expected] of said) {
        const result = await served.call(name, args);
        assert.equal(result.isError, true, `${name} ${JSON.stringify(args)}`);
        assert.equal(textOf(result), expected, `${name} ${JSON.stringify(args)}`);
      }
      assert.ok(!served.server.stderr().includes("git: ref "), "a known failure is logged as an unknown one");
    } finally {
      await served.server.close();
      await t.f.end();
    }
  },
});
