// test-permissions: --allow-run --allow-read={repo},{tmp} --allow-write={tmp}
// The race tests of _race.ts at gate size: 2,000 calls per tool against a
// process swapping folders for outside links, with the descriptor anchor.
import { raceTests } from "./_race.ts";

raceTests(2_000, { read: "inherit", write: "inherit", run: [Deno.execPath(), "ln"], env: false });
