// test-permissions: --allow-run --allow-read={repo},{tmp} --allow-write={tmp} --allow-env={child-env}
// End to end: the server as a real subprocess with exactly the flags it
// prints, driven by the official MCP SDK client.
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { configVariables } from "@forge/toolkit/configreload";
import { printedPermissions } from "@forge/toolkit/permissions";
import { childEnv, probe, spawnServer } from "@forge/toolkit/testing";

const main = fileURLToPath(new URL("./main.ts", import.meta.url));
const config = fileURLToPath(new URL("./config/config.example.json", import.meta.url));

/**
 * A fresh folder for every variable the config uses, so a new `${VAR}` in the
 * config needs no edit here, and the flags the server prints for them.
 */
async function fixture() {
  const dir = await Deno.realPath(await Deno.makeTempDir());
  const env: Record<string, string> = {};
  for (const name of configVariables(await Deno.readFile(config))) {
    env[name] = join(dir, name.toLowerCase());
    await Deno.mkdir(env[name]);
  }
  const notes = env.NOTES_DIR;
  await Deno.writeTextFile(join(notes, "todo.md"), "buy milk");
  const flags = await printedPermissions({ script: main, config, env });
  return { dir, notes, env, flags, remove: () => Deno.remove(dir, { recursive: true }) };
}

/** The paths or names one flag grants. */
function granted(flags: string[], flag: string): string[] {
  return flags.find((f) => f.startsWith(`${flag}=`))?.slice(flag.length + 1).split(",") ?? [];
}

Deno.test("--health prints ok and needs no permission", async () => {
  const out = await new Deno.Command(Deno.execPath(), { args: ["run", "--quiet", main, "--health"], stdout: "piped" })
    .output();
  assert.equal(new TextDecoder().decode(out.stdout), "ok\n");
});

Deno.test("--print-permissions grants the config file (not its folder), the notes and the config's variables, by value", async () => {
  const t = await fixture();
  const [read, write] = [granted(t.flags, "--allow-read"), granted(t.flags, "--allow-write")];
  assert.ok(read.includes(config), read.join(","));
  assert.ok(read.includes(t.notes) && write.includes(t.notes), "the notes are readable and writable");
  assert.ok(!t.flags.some((flag) => flag.includes("${")), `values, not \${NAME}: ${t.flags.join(" ")}`);
  assert.deepEqual(granted(t.flags, "--allow-env").sort(), ["FORGE_TENANT_CONFIG", ...Object.keys(t.env)].sort());
  // Least privilege: no grant holds another, nor the config's folder or one of its parents.
  for (const path of [...read, ...write]) {
    for (const other of [...read, ...write, config]) {
      assert.ok(other === path || !other.startsWith(`${path}/`), `${path} holds ${other}`);
    }
    assert.notEqual(path, dirname(config));
  }
  await t.remove();
});

Deno.test("the server works over real stdio with exactly its flags, and a probe writes nothing", async () => {
  const { notes, env, flags, remove } = await fixture();
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
  await remove();
});

Deno.test("the server refuses to serve with more permissions than it needs", async () => {
  const { env, remove } = await fixture();
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", "-A", main, "-config", config],
    env,
    stdin: "null",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 2);
  assert.match(new TextDecoder().decode(out.stderr), /refusing to serve/);
  await remove();
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
