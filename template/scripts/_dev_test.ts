// test-permissions: --allow-run --allow-read={repo},{tmp} --allow-write={tmp}
// `deno task dev` on a copy of this project (the test edits a tool): the
// server restarts, the client's session goes on, and a request sent during
// the restart is answered by the new code.
import assert from "node:assert/strict";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const project = new URL("..", import.meta.url).pathname;

/** Copies the project's sources; imports that pointed at relative paths keep pointing at the same files. */
async function copyProject(): Promise<string> {
  const dir = await Deno.realPath(await Deno.makeTempDir());
  for (const folder of ["config", "domain", "tools", "scripts"]) {
    await Deno.mkdir(join(dir, folder));
    for await (const entry of Deno.readDir(join(project, folder))) {
      if (entry.isFile) await Deno.copyFile(join(project, folder, entry.name), join(dir, folder, entry.name));
    }
  }
  await Deno.copyFile(join(project, "main.ts"), join(dir, "main.ts"));
  const config = JSON.parse(await Deno.readTextFile(join(project, "deno.json")));
  for (const [key, target] of Object.entries(config.imports as Record<string, string>)) {
    if (target.startsWith(".")) config.imports[key] = pathToFileURL(resolve(project, target)).href;
  }
  await Deno.writeTextFile(join(dir, "deno.json"), JSON.stringify(config));
  return dir;
}

Deno.test("deno task dev restarts the server on a change; the session goes on, and requests sent during a restart or a broken edit are answered", async () => {
  const dir = await copyProject();
  const notes = join(dir, "notes");
  await Deno.mkdir(notes);
  const child = new Deno.Command(Deno.execPath(), {
    args: ["task", "--quiet", "dev"],
    cwd: dir,
    env: { NOTES_DIR: notes, NO_COLOR: "1" },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  const send = (message: unknown) => writer.write(new TextEncoder().encode(`${JSON.stringify(message)}\n`));
  const messages: Record<string, unknown>[] = [];
  let stderr = "";
  const reading = (async () => {
    let buffer = "";
    for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
      buffer += chunk;
      const lines = buffer.split("\n");
      buffer = lines.pop()!;
      messages.push(...lines.map((line) => JSON.parse(line)));
    }
  })();
  const errors = (async () => {
    for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) stderr += chunk;
  })();
  const reply = async (id: number) => {
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      const found = messages.find((m) => m.id === id);
      if (found) return found.result as { tools: { name: string; description: string }[] };
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`no reply ${id}; stderr: ${stderr}`);
  };
  const clientInfo = { name: "dev-test", version: "0.0.0" };
  await send({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo },
  });
  await reply(1);
  await send({ jsonrpc: "2.0", method: "notifications/initialized" });
  await send({ jsonrpc: "2.0", id: 2, method: "tools/list" });
  assert.doesNotMatch((await reply(2)).tools[0].description, /edited/);

  const tool = join(dir, "tools/read_note.ts");
  await Deno.writeTextFile(tool, (await Deno.readTextFile(tool)).replace('description: "', 'description: "(edited) '));
  await new Promise((r) => setTimeout(r, 250)); // after the change, before the restart has finished
  await send({ jsonrpc: "2.0", id: 3, method: "tools/list" });
  const after = await reply(3);
  assert.match(after.tools.find((t) => t.name === "read_note")!.description, /^\(edited\) /);
  assert.ok(messages.some((m) => m.method === "notifications/tools/list_changed"), "the client is told to list again");
  assert.equal(
    messages.filter((m) => "id" in m && typeof m.id !== "number").length,
    0,
    "the replayed reply is dropped",
  );
  assert.match(stderr, /dev: tools\/read_note\.ts changed; restarting the server/);

  // A broken edit keeps the server down; a request sent meanwhile waits for the fix.
  const edited = await Deno.readTextFile(tool);
  await Deno.writeTextFile(tool, `${edited}\nexport const broken = ;\n`);
  for (const deadline = Date.now() + 60_000; !stderr.includes("dev: not started");) {
    assert.ok(Date.now() < deadline, `the broken edit was not reported; stderr: ${stderr}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  await send({ jsonrpc: "2.0", id: 4, method: "tools/list" });
  await Deno.writeTextFile(tool, edited);
  assert.equal((await reply(4)).tools.length, 2);

  await writer.close();
  assert.equal((await child.status).code, 0, stderr);
  await reading;
  await errors;
  await Deno.remove(dir, { recursive: true });
});
