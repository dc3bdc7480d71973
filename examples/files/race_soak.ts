// test-permissions: --allow-read={tmp},{repo} --allow-write={tmp} --allow-run --allow-env=FORGE_RACE_CALLS,FORGE_RACE_MODE,FORGE_RACE_TARGET
// The race tests of _race.ts at soak size: FORGE_RACE_CALLS calls per tool
// (default 30,000). `deno task race` runs 30,000, `deno task race:soak`
// 300,000; the gate runs 1,000 (race_test.ts). FORGE_RACE_MODE (anchor, path)
// and FORGE_RACE_TARGET (folder, root) run the one mixed race of that case
// instead (mixedRaceTests: the tools in turn), e.g.
// FORGE_RACE_MODE=path FORGE_RACE_TARGET=root deno task race.
import { mixedRaceTests, raceTests } from "./_race.ts";

const calls = Number(Deno.env.get("FORGE_RACE_CALLS") ?? 30_000);
const permissions: Deno.PermissionOptions = {
  read: "inherit",
  write: "inherit",
  run: [Deno.execPath(), "ln"],
  env: false,
};
const mode = Deno.env.get("FORGE_RACE_MODE");
const target = Deno.env.get("FORGE_RACE_TARGET");
if (mode === undefined && target === undefined) {
  raceTests(calls, permissions);
} else {
  if (mode !== undefined && mode !== "anchor" && mode !== "path") {
    throw new Error(`Cannot run the race: FORGE_RACE_MODE is ${JSON.stringify(mode)}, not anchor or path`);
  }
  if (target !== undefined && target !== "folder" && target !== "root") {
    throw new Error(`Cannot run the race: FORGE_RACE_TARGET is ${JSON.stringify(target)}, not folder or root`);
  }
  mixedRaceTests(calls, permissions, [{ mode: mode ?? "anchor", target: target ?? "folder" }]);
}
