// test-permissions: --allow-run --allow-read={repo},{tmp} --allow-write={tmp} --allow-net=127.0.0.1 --allow-env={child-env},FORGE_ATTACK,FORGE_ATTACK_SEED
// Every tool attacked before it ships: the server started with exactly the
// flags it prints, then hostile arguments and protocol abuse in both protocol
// eras, judged by canaries the kit plants outside the notes folder. A finding
// fails this test and prints itself as a test to paste. FORGE_ATTACK=large
// runs the larger corpus; FORGE_ATTACK_SEED=<n> repeats a run.
import { join } from "node:path";
import { printedPermissions } from "@forge/toolkit/permissions";
import { assertNoFindings, attack, subprocessTarget } from "@forge/toolkit/testing";

const main = new URL("./main.ts", import.meta.url).pathname;
const config = new URL("./config/config.example.json", import.meta.url).pathname;

Deno.test("the server survives the attack kit under its printed flags", async () => {
  const notes = await Deno.realPath(await Deno.makeTempDir());
  await Deno.writeTextFile(join(notes, "todo.md"), "buy milk");
  const env = { NOTES_DIR: notes };
  const flags = await printedPermissions({ script: main, config, env });
  const report = await attack(subprocessTarget({ args: [...flags, main, "-config", config], env }), {
    valid: { read_note: { name: "todo" }, write_note: { name: "plan", content: "ship it" } },
  });
  assertNoFindings(report);
  await Deno.remove(notes, { recursive: true });
});
