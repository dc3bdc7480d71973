// test-permissions: --allow-run --allow-read={repo},{tmp} --allow-write={tmp} --allow-net=127.0.0.1 --allow-env={child-env},FORGE_ATTACK,FORGE_ATTACK_SEED
// Every tool attacked before it ships: the server started with exactly the
// flags it prints, then hostile arguments and protocol abuse in both protocol
// eras, judged by canaries the kit plants outside the notes folder. A finding
// fails this test and prints itself as a test to paste. FORGE_ATTACK=large
// runs the larger corpus; FORGE_ATTACK_SEED=<n> repeats a run.
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { configVariables } from "@forge/toolkit/configreload";
import { printedPermissions } from "@forge/toolkit/permissions";
import { assertNoFindings, attack, subprocessTarget } from "@forge/toolkit/testing";

const main = fileURLToPath(new URL("./main.ts", import.meta.url));
const config = fileURLToPath(new URL("./config/config.example.json", import.meta.url));

Deno.test("the server survives the attack kit under its printed flags", async () => {
  // A fresh folder for every variable the config uses, so a new `${VAR}` needs no edit here.
  const dir = await Deno.realPath(await Deno.makeTempDir());
  const env: Record<string, string> = {};
  for (const name of configVariables(await Deno.readFile(config))) {
    env[name] = join(dir, name.toLowerCase());
    await Deno.mkdir(env[name]);
  }
  await Deno.writeTextFile(join(env.NOTES_DIR, "todo.md"), "buy milk");
  const flags = await printedPermissions({ script: main, config, env });
  const report = await attack(subprocessTarget({ args: [...flags, main, "-config", config], env }), {
    watch: [dir],
    valid: { read_note: { name: "todo" }, write_note: { name: "plan", content: "ship it" } },
  });
  assertNoFindings(report);
  await Deno.remove(dir, { recursive: true });
});
