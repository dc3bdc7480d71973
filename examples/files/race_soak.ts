// test-permissions: --allow-read={tmp},{repo} --allow-write={tmp} --allow-run --allow-env=FORGE_RACE_CALLS
// The race tests of _race.ts at soak size: FORGE_RACE_CALLS calls per tool
// (default 30,000). `deno task race` runs 30,000, `deno task race:soak`
// 300,000; the gate runs 2,000 (race_test.ts).
import { raceTests } from "./_race.ts";

raceTests(Number(Deno.env.get("FORGE_RACE_CALLS") ?? 30_000), {
  read: "inherit",
  write: "inherit",
  run: [Deno.execPath(), "ln"],
  env: false,
});
