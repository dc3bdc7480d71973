import assert from "node:assert/strict";
import { buildArgv } from "@forge/toolkit/validate";
import { discoveryArgs, driverOverrides, globalArgs, parseDrivers, PINNED_CONFIG } from "./hardening.ts";

Deno.test("parseDrivers() finds filter, diff and merge driver names, names git's -c cannot pin, and blame's files", () => {
  const out = [
    "filter.lfs.clean\ngit-lfs clean -- %f",
    "filter.lfs.process\ngit-lfs filter-process",
    "diff.external\nx",
    "diff.My.Driver.textconv\nx",
    "merge.ours.driver\ntrue",
    "filter.a=b.smudge\nx",
    "filter.\uFFFD.clean\nx",
    "blame.ignorerevsfile\n/etc/passwd",
    "blame.ignorerevsfile\n",
    "",
  ].join("\0");
  assert.deepEqual(parseDrivers(out), {
    filters: ["lfs"],
    diffs: ["My.Driver"],
    merges: ["ours"],
    unpinnable: ["a=b", "\uFFFD"],
    ignoreRevsFiles: ["/etc/passwd", ""],
  });
});

Deno.test("driverOverrides() empties every command of every driver", () => {
  const settings = driverOverrides({
    filters: ["x"],
    diffs: ["y"],
    merges: ["z"],
    unpinnable: [],
    ignoreRevsFiles: [],
  });
  assert.deepEqual(settings, [
    "filter.x.clean=",
    "filter.x.smudge=",
    "filter.x.process=",
    "filter.x.required=false",
    "diff.y.textconv=",
    "diff.y.command=",
    "diff.y.cachetextconv=false",
    "diff.y.binary=auto",
    "diff.y.algorithm=myers",
    "merge.z.driver=",
  ]);
});

Deno.test("globalArgs() names the checked git dir and the work tree, pins every setting with -c, and keeps pathspecs literal unless asked", () => {
  const argv = buildArgv(globalArgs("/srv/app", "/srv/app/.git-real", ["user.name=x"]));
  assert.deepEqual(argv.slice(0, 5), [
    "--no-pager",
    "--literal-pathspecs",
    "--no-replace-objects",
    "--git-dir=/srv/app/.git-real",
    "--work-tree=/srv/app",
  ]);
  for (const setting of [...PINNED_CONFIG, "user.name=x"]) assert.ok(argv.includes(setting), setting);
  assert.equal(argv.filter((a) => a === "-c").length, PINNED_CONFIG.length + 1);
  assert.ok(PINNED_CONFIG.includes("core.hooksPath=/dev/null"));
  // Magic only when asked, for a run whose every operand carries its own `:(literal)`.
  const magic = buildArgv(globalArgs("/srv/app", "/srv/app/.git-real", [], true));
  assert.ok(!magic.includes("--literal-pathspecs") && magic.includes("--no-replace-objects"), magic.join(" "));
});

Deno.test("discoveryArgs() names no git dir or work tree, so git's ownership check runs, and pins every setting", () => {
  const argv = buildArgv(discoveryArgs());
  assert.ok(!argv.some((a) => a.startsWith("--git-dir") || a.startsWith("--work-tree")), argv.join(" "));
  assert.ok(!argv.some((a) => a.startsWith("safe.directory")), "a repository's owner is never trusted here");
  for (const setting of PINNED_CONFIG) assert.ok(argv.includes(setting), setting);
});
