// test-permissions: --allow-run --allow-read={repo},{tmp} --allow-write={tmp} --allow-env={child-env}
// End to end: the server as a real subprocess with exactly the flags it
// prints, driven by the official MCP SDK client.
import assert from "node:assert/strict";
import { join } from "node:path";
import { printedPermissions } from "@forge/toolkit/permissions";
import { childEnv, probe, spawnServer } from "@forge/toolkit/testing";

const main = new URL("./main.ts", import.meta.url).pathname;
const config = new URL("./config/config.example.json", import.meta.url).pathname;

async function fixture() {
  const notes = await Deno.realPath(await Deno.makeTempDir());
  await Deno.writeTextFile(join(notes, "todo.md"), "buy milk");
  const env = { NOTES_DIR: notes };
  const flags = await printedPermissions({ script: main, config, env });
  return { notes, env, flags };
}

Deno.test("--health prints ok and needs no permission", async () => {
  const out = await new Deno.Command(Deno.execPath(), { args: ["run", "--quiet", main, "--health"], stdout: "piped" })
    .output();
  assert.equal(new TextDecoder().decode(out.stdout), "ok\n");
});

Deno.test("--print-permissions names the notes directory, the config file (not its directory) and the variables", async () => {
  const { notes, flags } = await fixture();
  const [read, write, env] = flags;
  assert.deepEqual(read.slice("--allow-read=".length).split(",").sort(), [notes, config].sort());
  assert.equal(write, `--allow-write=${notes}`);
  assert.equal(env, "--allow-env=FORGE_TENANT_CONFIG,NOTES_DIR");
  assert.equal(flags.length, 3);
  await Deno.remove(notes, { recursive: true });
});

Deno.test("the server works over real stdio with exactly its flags, and a probe writes nothing", async () => {
  const { notes, env, flags } = await fixture();
  const server = await spawnServer({ args: [...flags, main, "-config", config], env });
  const read = await server.client.callTool({ name: "read_note", arguments: { name: "todo" } });
  assert.deepEqual(read.content, [{ type: "text", text: "buy milk" }]);
  assert.deepEqual((await probe(server.client, "write_note", { name: "plan", content: "x" })).patterns, [
    "write:note/plan",
  ]);
  await assert.rejects(() => Deno.stat(join(notes, "plan.md")), Deno.errors.NotFound);
  await server.client.callTool({ name: "write_note", arguments: { name: "plan", content: "ship it" } });
  assert.equal(await Deno.readTextFile(join(notes, "plan.md")), "ship it");
  assert.equal((await server.close()).code, 0);
  assert.match(server.stderr(), /"tool":"write_note".*"outcome":"probe"/, "the audit trail saw the probe");
  assert.ok(!server.stderr().includes("ship it"), "the audit never holds argument values");
  await Deno.remove(notes, { recursive: true });
});

Deno.test("the server refuses to serve with more permissions than it needs", async () => {
  const { notes, env } = await fixture();
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", "-A", main, "-config", config],
    env,
    stdin: "null",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 2);
  assert.match(new TextDecoder().decode(out.stderr), /refusing to serve/);
  await Deno.remove(notes, { recursive: true });
});

Deno.test("with NOTES_DIR unset the config is refused (fail closed), naming the field and the variable", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", `--allow-read=${config}`, "--allow-env", main, "-config", config],
    clearEnv: true,
    env: childEnv(),
    stdin: "null",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 1);
  assert.match(new TextDecoder().decode(out.stderr), /notes_dir.*\$\{NOTES_DIR\}/);
});
