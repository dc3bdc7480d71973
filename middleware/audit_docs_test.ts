// test-permissions: --allow-run --allow-read={repo},{tmp} --allow-write={tmp} --allow-env
// The shell commands docs/middleware.md gives operators, run as written on a real trail.
import assert from "node:assert/strict";
import { connectInMemory } from "@forge/toolkit/testing";
import { registerPatternTool, requireString, schema, Server, strProp, text, ToolError } from "@forge/toolkit";
import { auditDigest, auditTrail } from "./mod.ts";

const KEY = "0123456789abcdef0123456789abcdef-docs";
const docs = await Deno.readTextFile(new URL("../docs/middleware.md", import.meta.url));
const MOD = new URL("./mod.ts", import.meta.url).href;

/** Every line of the doc's sh blocks that starts with `start`, joined with its continuation lines. */
function commands(start: string): string[] {
  const blocks = [...docs.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]);
  const found: string[] = [];
  for (const block of blocks) {
    const lines = block.split("\n");
    for (let i = 0; i < lines.length; i++) {
      if (!lines[i].startsWith(start)) continue;
      let command = lines[i];
      // A quoted argument may go on over several lines (deno eval).
      while ((command.split("'").length - 1) % 2 === 1 && i + 1 < lines.length) command += "\n" + lines[++i];
      found.push(command.replace(/\s+#[^'"]*$/, ""));
    }
  }
  assert.ok(found.length > 0, `docs/middleware.md has no command starting with ${start}`);
  return found;
}

async function sh(command: string, cwd: string): Promise<string> {
  const out = await new Deno.Command("sh", {
    args: ["-c", command],
    cwd,
    env: { FORGE_AUDIT_KEY: KEY },
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 0, `${command}\n${new TextDecoder().decode(out.stderr)}`);
  return new TextDecoder().decode(out.stdout);
}

async function has(program: string): Promise<boolean> {
  return (await new Deno.Command("sh", { args: ["-c", `command -v ${program}`], stdout: "null" }).output()).success;
}

/**
 * A keyed trail of an ok write, a refused one, one that timed out and completed after (a late record), and a write
 * whose outcome never came (a prefix of a longer trail).
 */
async function trail(dir: string): Promise<string> {
  const lines: string[] = [];
  const s = new Server({ name: "files" });
  registerPatternTool(
    s,
    {
      name: "write_file",
      description: "Writes",
      inputSchema: schema({ path: strProp("p"), content: strProp("c") }, ["path", "content"]),
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
      timeoutMs: 1_000,
    },
    (args) => ({ patterns: [`write:${requireString(args, "path")}`] }),
    async (req) => {
      if (req.arguments.path === "refused.md") throw new ToolError("refused");
      // Ignores its deadline and writes all the same.
      if (req.arguments.path === "late.md") await new Promise((r) => req.signal.addEventListener("abort", r));
      return text("written");
    },
  );
  let wake: (() => void) | undefined;
  const audit = auditTrail({ server: "files", sink: (line) => void (lines.push(line), wake?.()), key: KEY });
  const session = await connectInMemory(s, { serve: { middleware: [audit] } });
  for (const path of ["notes/todo.md", "refused.md", "late.md", "later.md"]) {
    await session.client.callTool({ name: "write_file", arguments: { path, content: "x" } }).catch(() => {});
    // The late write's third record comes after its timeout was answered.
    if (path === "late.md") { while (lines.length < 7) await new Promise<void>((resolve) => (wake = resolve)); }
  }
  await session.close();
  await audit.close();
  const file = `${dir}/audit.jsonl`;
  await Deno.writeTextFile(file, lines.slice(0, -1).map((l) => l + "\n").join(""));
  return file;
}

Deno.test("the jq commands of docs/middleware.md find completed side effects, intents without outcome, refusals", async () => {
  const dir = await Deno.makeTempDir();
  await trail(dir);
  const [completed, unfinished, refusals] = commands("jq ");
  if (await has("jq")) {
    const ok = (await sh(completed, dir)).trim().split("\n").map((l) => JSON.parse(l));
    assert.deepEqual(ok.map((r) => [r.event, r.patterns]), [
      ["intent", ["write:notes/todo.md"]],
      ["intent", ["write:late.md"]],
    ]);
    const open = (await sh(unfinished, dir)).trim().split("\n").map((l) => JSON.parse(l));
    assert.deepEqual(open.map((r) => [r.event, r.patterns]), [["intent", ["write:later.md"]]]);
    assert.match(await sh(refusals, dir), /^\s+1 write_file\tisError\n\s+1 write_file\ttimeout\n$/);
  } else {
    // Without jq, the lines are still one JSON object each.
    const records = (await Deno.readTextFile(`${dir}/audit.jsonl`)).trim().split("\n").map((l) => JSON.parse(l));
    assert.equal(records.length, 8);
  }
  await Deno.remove(dir, { recursive: true });
});

Deno.test("the digest lines of docs/middleware.md (openssl, sha256sum, deno eval) give the trail's args_hmac", async () => {
  const dir = await Deno.makeTempDir();
  const file = await trail(dir);
  const recorded = JSON.parse((await Deno.readTextFile(file)).split("\n")[0]).args_hmac;
  const [hmacLine, plainLine] = commands("printf ");
  if (await has("openssl")) assert.equal((await sh(hmacLine, dir)).trim(), recorded);
  if (await has("sha256sum")) {
    assert.equal((await sh(plainLine, dir)).trim(), await auditDigest({ path: "notes/todo.md", content: "x" }));
  }
  // The same program as the doc's, importing this checkout instead of JSR.
  const [evalLine] = commands("deno eval ");
  const local = evalLine.replace("jsr:@forge/toolkit/middleware", MOD).replace(/^deno /, `'${Deno.execPath()}' `);
  assert.equal((await sh(local, dir)).trim(), recorded);
  await Deno.remove(dir, { recursive: true });
});
