import assert from "node:assert/strict";
import { buildArgv } from "@forge/toolkit/validate";
import { driverOverrides, globalArgs, parseDrivers, PINNED_CONFIG } from "./hardening.ts";

Deno.test("parseDrivers() finds filter, diff and merge driver names, and names git's -c cannot pin", () => {
  const out = [
    "filter.lfs.clean\ngit-lfs clean -- %f",
    "filter.lfs.process\ngit-lfs filter-process",
    "diff.external\nx",
    "diff.My.Driver.textconv\nx",
    "merge.ours.driver\ntrue",
    "filter.a=b.smudge\nx",
    "",
  ].join("\0");
  assert.deepEqual(parseDrivers(out), {
    filters: ["lfs"],
    diffs: ["My.Driver"],
    merges: ["ours"],
    unpinnable: ["a=b"],
  });
});

Deno.test("driverOverrides() empties every command of every driver", () => {
  const settings = driverOverrides({ filters: ["x"], diffs: ["y"], merges: ["z"], unpinnable: [] });
  assert.deepEqual(settings, [
    "filter.x.clean=",
    "filter.x.smudge=",
    "filter.x.process=",
    "filter.x.required=false",
    "diff.y.textconv=",
    "diff.y.command=",
    "diff.y.cachetextconv=false",
    "merge.z.driver=",
  ]);
});

Deno.test("globalArgs() names the git dir and work tree and pins every setting with -c", () => {
  const argv = buildArgv(globalArgs("/srv/app", ["user.name=x"]));
  assert.deepEqual(argv.slice(0, 5), [
    "--no-pager",
    "--literal-pathspecs",
    "--no-replace-objects",
    "--git-dir=/srv/app/.git",
    "--work-tree=/srv/app",
  ]);
  for (const setting of [...PINNED_CONFIG, "user.name=x"]) assert.ok(argv.includes(setting), setting);
  assert.equal(argv.filter((a) => a === "-c").length, PINNED_CONFIG.length + 1);
  assert.ok(PINNED_CONFIG.includes("core.hooksPath=/dev/null"));
});
