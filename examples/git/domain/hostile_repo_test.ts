// test-permissions: --allow-read={tmp} --allow-write={tmp} --allow-run=/usr/bin/git,/usr/bin/kill
// Repositories whose own configuration names programs: every key below makes
// a plain git run a script that leaves a marker file. No tool may ever run one.
import assert from "node:assert/strict";
import { join } from "node:path";
import { type Fixture, fixture } from "./fixture.ts";
import type { Manager } from "./manager.ts";

const PROGRAMS = [
  "fsmonitor",
  "diff-external",
  "pager",
  "filter-clean",
  "filter-smudge",
  "filter-process",
  "textconv",
  "diff-command",
  "merge-driver",
  "ssh",
  "pack-objects-hook",
  "gpg",
  "editor",
  "credential",
  "askpass",
  "alternate-refs",
];
const HOOKS = [
  "pre-commit",
  "prepare-commit-msg",
  "commit-msg",
  "post-commit",
  "post-index-change",
  "reference-transaction",
  "pre-auto-gc",
  "post-checkout",
  "fsmonitor-watchman",
];

/** Writes one marker script per program and hook; returns the markers folder. */
async function scripts(f: Fixture): Promise<{ bin: string; hooks: string; markers: string }> {
  const [bin, hooks, markers] = ["bin", "hooks", "markers"].map((d) => join(f.base, d));
  for (const dir of [bin, hooks, markers]) await Deno.mkdir(dir, { recursive: true });
  const write = (path: string, name: string) =>
    Deno.writeTextFile(path, `#!/bin/sh\ntouch '${markers}/${name}'\ncat "$@" 2>/dev/null\n`, { mode: 0o755 });
  for (const name of PROGRAMS) await write(join(bin, name), name);
  for (const name of HOOKS) await write(join(hooks, name), `hook-${name}`);
  return { bin, hooks, markers };
}

/** Makes a repository whose config names every program (filters only when `filters`). */
async function hostile(f: Fixture, name: string, filters: boolean): Promise<string> {
  const { bin, hooks } = await scripts(f);
  const outside = join(f.base, "outside");
  await Deno.mkdir(outside, { recursive: true });
  const dir = await f.repo(name, {
    "a.txt": "one\n",
    "b.txt": "bee\n",
    ".gitattributes": "* filter=x diff=x merge=x\n",
  });
  // A commit with a signature header: showing it with log.showSignature would run gpg.program.
  const raw = await f.git(dir, "cat-file", "commit", "HEAD");
  const signed = raw.replace(
    /^(committer .*)$/m,
    "$1\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n AAAA\n -----END PGP SIGNATURE-----",
  );
  await Deno.writeTextFile(join(f.base, `${name}.commit`), signed);
  const hash = (await f.git(dir, "hash-object", "--no-filters", "-t", "commit", "-w", join(f.base, `${name}.commit`)))
    .trim();
  await f.git(dir, "update-ref", "refs/heads/main", hash);
  for (const hook of HOOKS) await Deno.copyFile(join(hooks, hook), join(dir, ".git", "hooks", hook));
  await Deno.chmod(join(dir, ".git", "hooks"), 0o755);
  for (const hook of HOOKS) await Deno.chmod(join(dir, ".git", "hooks", hook), 0o755);
  const settings: [string, string][] = [
    ["core.fsmonitor", join(bin, "fsmonitor")],
    ["core.hooksPath", hooks],
    ["diff.external", join(bin, "diff-external")],
    ["core.pager", join(bin, "pager")],
    ["diff.x.textconv", join(bin, "textconv")],
    ["diff.x.command", join(bin, "diff-command")],
    ["merge.x.driver", join(bin, "merge-driver")],
    ["core.sshCommand", join(bin, "ssh")],
    ["uploadpack.packObjectsHook", join(bin, "pack-objects-hook")],
    ["gpg.program", join(bin, "gpg")],
    ["log.showSignature", "true"],
    ["commit.gpgSign", "true"],
    ["core.editor", join(bin, "editor")],
    ["sequence.editor", join(bin, "editor")],
    ["credential.helper", join(bin, "credential")],
    ["core.askPass", join(bin, "askpass")],
    ["core.alternateRefsCommand", join(bin, "alternate-refs")],
    ["core.worktree", outside],
    ["gc.auto", "1"],
  ];
  if (filters) {
    settings.push(
      ["filter.x.clean", join(bin, "filter-clean")],
      ["filter.x.smudge", join(bin, "filter-smudge")],
      ["filter.x.process", join(bin, "filter-process")],
      ["filter.x.required", "true"],
    );
  }
  for (const [key, value] of settings) await f.git(dir, "config", key, value);
  // Same size, new mtime: git must hash the file again, through the clean filter if it ran one.
  await Deno.writeTextFile(join(dir, "a.txt"), "two\n");
  await Deno.writeTextFile(join(dir, "c.txt"), "new file\n");
  return dir;
}

async function markers(f: Fixture): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(join(f.base, "markers"))) names.push(entry.name);
  return names.sort();
}

/** Every read-only tool, every argument shape that reaches the work tree or a diff. */
async function readAll(mgr: Manager, repo: string): Promise<string[]> {
  const outputs = [
    await mgr.status(repo),
    await mgr.log(repo, {}),
    await mgr.log(repo, { ref: "main", path: "a.txt", maxCount: 5 }),
    await mgr.show(repo, "HEAD", undefined),
    await mgr.show(repo, "HEAD", "a.txt"),
    await mgr.diff(repo),
    await mgr.diff(repo, "HEAD"),
    await mgr.diff(repo, "HEAD", "HEAD", "a.txt"),
    await mgr.grep(repo, "o"),
    await mgr.grep(repo, "o", "HEAD", "a.txt"),
    await mgr.blame(repo, "a.txt"),
    await mgr.blame(repo, "a.txt", "HEAD"),
  ];
  return outputs.map((o) => o.text);
}

Deno.test("no tool runs a program a repository's config names: fsmonitor, hooks, pager, external diff, textconv, filters, ssh, gpg, editor", async () => {
  const f = await fixture();
  try {
    const dir = await hostile(f, "hostile", true);
    const mgr = f.manager({ hostile: dir, whostile: dir });
    const texts = await readAll(mgr, "hostile");
    assert.match(texts[0], /^ M a\.txt$/m, "status sees the work tree given, not core.worktree");
    assert.match(texts[5], /^\+two$/m, "diff shows the stored content, not a textconv of it");
    await assert.rejects(mgr.commit("whostile", "x", ["a.txt"]), /defines filter drivers \(x\)/);
    assert.deepEqual(await markers(f), []);
    // The control: plain git in the same repository runs them.
    await f.git(dir, "diff", "HEAD").catch(() => "");
    assert.notDeepEqual(await markers(f), [], "the hostile config did not work: this test proves nothing");
  } finally {
    await f.end();
  }
});

Deno.test("git_commit in a hostile repository without filters runs no hook, signer or editor, and commits", async () => {
  const f = await fixture();
  try {
    const dir = await hostile(f, "whostile", false);
    const mgr = f.manager({ whostile: dir });
    const outcome = await mgr.commit("whostile", "change a, add c", ["a.txt", "c.txt"]);
    assert.match(outcome.commit, /^[0-9a-f]{40}$/);
    assert.deepEqual(outcome.paths, ["a.txt", "c.txt"]);
    const shown = await f.git(dir, "-c", "log.showSignature=false", "show", "--stat", "--format=%an %s", "HEAD");
    assert.match(shown, /^forge-git change a, add c$/m);
    assert.match(shown, /c\.txt/);
    await readAll(mgr, "whostile");
    assert.deepEqual(await markers(f), []);
  } finally {
    await f.end();
  }
});
