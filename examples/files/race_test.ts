// test-permissions: --allow-run --allow-read={repo},{tmp} --allow-write={tmp}
// The race tests of _race.ts at gate size: 1,000 calls per tool against a
// process swapping folders for outside links, with the descriptor anchor.
// The swapper burns a core while it runs, so the size is the gate's CPU: a jail
// that checks a path and then opens it returned outside data hundreds of times
// per 30,000 calls (docs/security.md), several per 1,000; rarer losses are what
// `deno task race` (30,000) and `race:soak` (300,000) are for. Then 400 mixed
// calls each with each root swapped (anchor mode), and in path mode (no
// anchor) with race/d and with each root swapped.
import { mixedRaceTests, raceTests } from "./_race.ts";

const permissions: Deno.PermissionOptions = {
  read: "inherit",
  write: "inherit",
  run: [Deno.execPath(), "ln"],
  env: false,
};
raceTests(1_000, permissions);
mixedRaceTests(400, permissions, [
  { mode: "anchor", target: "root" },
  { mode: "path", target: "folder" },
  { mode: "path", target: "root" },
]);
