// test-permissions: --allow-run --allow-read={repo},{tmp} --allow-write={tmp}
// `deno task dev` on a copy of this project (the test edits a tool): the
// server restarts, the client's session goes on, and a request sent during
// the restart is answered by the new code. Every wait is for an event (a
// reply, a line on stderr); a server that cannot start fails the test at
// once, with the launcher's stderr.
import assert from "node:assert/strict";
import { join } from "node:path";
import { configVariables } from "@forge/toolkit/configreload";
import { copyProject } from "./_copy_project.ts";

Deno.test("deno task dev restarts the server on a change; the session goes on, and requests sent during a restart or a broken edit are answered", async () => {
  const dir = await copyProject();
  // A fresh folder for every variable the config uses: a new ${VAR} needs no edit here.
  const env: Record<string, string> = { NO_COLOR: "1" };
  for (const name of configVariables(await Deno.readFile(join(dir, "config/config.example.json")))) {
    env[name] = join(dir, name.toLowerCase());
    await Deno.mkdir(env[name]);
  }
  const child = new Deno.Command(Deno.execPath(), {
    args: ["task", "--quiet", "dev"],
    cwd: dir,
    env,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  const send = (message: unknown) => writer.write(new TextEncoder().encode(`${JSON.stringify(message)}\n`));
  const messages: Record<string, unknown>[] = [];
  let stderr = "";
  let exited = false;
  // Woken by every line on stdout, every chunk on stderr and the launcher's exit.
  let wake = () => {};
  const woken = () => new Promise<void>((resolve) => (wake = resolve));
  const reading = (async () => {
    let buffer = "";
    for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
      buffer += chunk;
      const lines = buffer.split("\n");
      buffer = lines.pop()!;
      messages.push(...lines.map((line) => JSON.parse(line)));
      wake();
    }
  })();
  const errors = (async () => {
    for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) {
      stderr += chunk;
      wake();
    }
  })();
  void child.status.then(() => {
    exited = true;
    wake();
  });
  /** While true, a server that is down is what the test waits through (a broken edit), not a failure. */
  let downExpected = false;
  const until = async <T>(what: string, found: () => T | undefined): Promise<T> => {
    // A backstop only: every wait ends on an event well before it.
    const backstop = setTimeout(() => wake(), 60_000);
    const started = Date.now();
    try {
      for (;;) {
        const value = found();
        if (value !== undefined) return value;
        const down = !downExpected && /dev: (not started|the server exited)/.test(stderr);
        if (down || exited || Date.now() - started >= 60_000) {
          throw new Error(
            `${what}: ${down ? "the server is down" : exited ? "dev exited" : "nothing"}; stderr: ${stderr}`,
          );
        }
        await woken();
      }
    } finally {
      clearTimeout(backstop);
    }
  };
  const reply = (id: number) =>
    until(`reply ${id}`, () => {
      const found = messages.find((m) => m.id === id);
      return found && (found.result as { tools: { name: string; description: string }[] });
    });
  const logged = (pattern: RegExp, from = 0) =>
    until(`${pattern}`, () => pattern.test(stderr.slice(from)) || undefined);

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
  const before = (await reply(2)).tools;
  assert.doesNotMatch(before.find((t) => t.name === "read_note")!.description, /edited/);

  const tool = join(dir, "tools/read_note.ts");
  await Deno.writeTextFile(tool, (await Deno.readTextFile(tool)).replace('description: "', 'description: "(edited) '));
  // Sent once the restart has begun, before the new server is up.
  await logged(/dev: tools\/read_note\.ts changed; restarting the server/);
  await send({ jsonrpc: "2.0", id: 3, method: "tools/list" });
  const after = await reply(3);
  assert.match(after.tools.find((t) => t.name === "read_note")!.description, /^\(edited\) /);
  assert.ok(messages.some((m) => m.method === "notifications/tools/list_changed"), "the client is told to list again");
  assert.equal(
    messages.filter((m) => "id" in m && typeof m.id !== "number").length,
    0,
    "the replayed reply is dropped",
  );

  // A broken edit keeps the server down; a request sent meanwhile waits for the fix.
  const edited = await Deno.readTextFile(tool);
  downExpected = true;
  const mark = stderr.length;
  await Deno.writeTextFile(tool, `${edited}\nexport const broken = ;\n`);
  await logged(/dev: not started/, mark);
  await send({ jsonrpc: "2.0", id: 4, method: "tools/list" });
  await Deno.writeTextFile(tool, edited);
  assert.equal((await reply(4)).tools.length, before.length);
  downExpected = false;

  await writer.close();
  assert.equal((await child.status).code, 0, stderr);
  await reading;
  await errors;
  await Deno.remove(dir, { recursive: true });
});
