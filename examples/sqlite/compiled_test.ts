// test-permissions: --allow-run --allow-read={repo},{tmp} --allow-write={tmp} --allow-env={child-env}
// The compiled server, as far as it can be checked here: `deno compile` needs
// its runtime (denort) from dl.deno.land, which this machine cannot reach, so
// no binary is built. What is checked is the exact command `compile:sqlite`
// runs, and the code path a binary takes when it starts itself as a database
// process: main.ts, under exactly the flags that command bakes in, with the
// baked arguments first and the ones the server appends after them.
import assert from "node:assert/strict";
import { join } from "node:path";
import { compileServer } from "@forge/toolkit/permissions";
import { spawnRaw } from "@forge/toolkit/testing";
import { makeE2eTree, REPO, SCRIPT } from "./_e2e.ts";
import { databaseProcessCommand } from "./domain/database_processes.ts";

const perms: Deno.PermissionOptions = { run: [Deno.execPath()], read: "inherit", write: "inherit", env: "inherit" };
const TASK = "deno run --allow-run --allow-read --allow-env scripts/compile.ts examples/sqlite/main.ts " +
  "--config examples/sqlite/sample/config.json --output dist/sqlite";
const SAMPLE = join(REPO, "examples/sqlite/sample");

/** The words of a `deno compile` command: the flags it bakes (runtime and permission), and the arguments after the entry. */
function baked(command: readonly string[]): { flags: string[]; args: string[] } {
  const entry = command.indexOf(SCRIPT) === -1 ? command.indexOf("examples/sqlite/main.ts") : command.indexOf(SCRIPT);
  return {
    flags: command.filter((word) => /^--(allow|deny|v8)-/.test(word)),
    args: command.slice(entry + 1),
  };
}

/** The value of one `--allow-<kind>=` flag, split. */
function granted(flags: readonly string[], kind: string): string[] {
  return flags.find((flag) => flag.startsWith(`--allow-${kind}=`))?.slice(`--allow-${kind}=`.length).split(",") ?? [];
}

Deno.test({
  name: "compile:sqlite bakes the printed flags with --allow-run naming the output binary (absolute), not deno",
  permissions: perms,
  async fn() {
    const tasks = JSON.parse(await Deno.readTextFile(join(REPO, "deno.json"))).tasks;
    assert.equal(tasks["compile:sqlite"], TASK);
    const out = await new Deno.Command(Deno.execPath(), {
      args: [...TASK.split(" ").slice(1), "--dry-run"],
      cwd: REPO,
      env: { NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    assert.deepEqual(new TextDecoder().decode(out.stdout).trim().split(" "), [
      "deno",
      "compile",
      "--no-prompt",
      "--v8-flags=--max-semi-space-size=8,--no-lazy",
      `--allow-read=${SAMPLE}/config.json,${SAMPLE}/shop.db`,
      "--allow-env=FORGE_TENANT_CONFIG",
      `--allow-run=${join(await Deno.realPath(REPO), "dist/sqlite")}`,
      "--include",
      `${SAMPLE}/config.json`,
      "--output",
      "dist/sqlite",
      "examples/sqlite/main.ts",
      "-config",
      `${SAMPLE}/config.json`,
    ]);
  },
});

Deno.test({
  name: "a compiled reader's path: main.ts under the baked flags and arguments serves as a database process",
  permissions: perms,
  async fn() {
    const { command } = await compileServer({
      entry: "examples/sqlite/main.ts",
      config: `${SAMPLE}/config.json`,
      output: "dist/sqlite",
      dryRun: true,
    });
    const { flags, args } = baked(command);
    const { program, args: appended } = databaseProcessCommand({
      database: `${SAMPLE}/shop.db`,
      writable: false,
      maxMemoryMb: 256,
      standalone: true,
      execPath: granted(flags, "run")[0],
      serverFiles: { read: granted(flags, "read"), write: granted(flags, "write") },
    });
    assert.equal(program, join(await Deno.realPath(REPO), "dist/sqlite"), "the binary starts itself");
    assert.deepEqual(appended, [
      "--database-process",
      `${SAMPLE}/shop.db`,
      "--max-memory-mb=256",
      `--drop-read=${SAMPLE}/config.json`,
    ]);
    const child = await spawnRaw({ args: ["--no-prompt", ...flags, SCRIPT, ...args, ...appended], cwd: REPO });
    assert.deepEqual(await child.next(), { ready: true });
    await child.send(JSON.stringify({ kind: "list" }));
    const { ok } = await child.next() as { ok: { tables: { name: string }[] } };
    assert.deepEqual(ok.tables.map((table) => table.name), ["customers", "order_totals", "orders", "products"]);
    await child.send(JSON.stringify({ kind: "execute", sql: "DELETE FROM orders", params: [], limits: {} }));
    assert.ok("error" in await child.next());
    assert.equal((await child.status()).code, 0);
    assert.match(child.stderr(), /Cannot execute: this database process may not write/);
  },
});

Deno.test({
  name: "a compiled writer's path: main.ts under a writable config's baked flags writes the database",
  permissions: perms,
  async fn() {
    const tree = await makeE2eTree({ writable: true, audit_file: "../audit.jsonl" });
    const { command } = await compileServer({
      entry: SCRIPT,
      config: tree.config,
      output: join(tree.base, "bin/sqlite"),
      dryRun: true,
    });
    const { flags, args } = baked(command);
    const audit = join(tree.base, "audit.jsonl");
    assert.deepEqual(granted(flags, "write"), [audit, tree.db]);
    assert.deepEqual(granted(flags, "run"), [join(tree.base, "bin/sqlite")]);
    const { args: appended } = databaseProcessCommand({
      database: tree.db,
      writable: true,
      maxMemoryMb: 256,
      standalone: true,
      execPath: granted(flags, "run")[0],
      serverFiles: { read: granted(flags, "read"), write: granted(flags, "write") },
    });
    assert.deepEqual(appended, [
      "--database-process",
      tree.db,
      "--max-memory-mb=256",
      "--write",
      `--drop-read=${audit}`,
      `--drop-read=${tree.config}`,
      `--drop-write=${audit}`,
    ]);
    const child = await spawnRaw({ args: ["--no-prompt", ...flags, SCRIPT, ...args, ...appended], cwd: REPO });
    assert.deepEqual(await child.next(), { ready: true });
    const limits = { maxSqlLength: 10_000, allowRecursive: false };
    await child.send(JSON.stringify({ kind: "execute", sql: "DELETE FROM orders", params: [], limits }));
    assert.ok("ok" in await child.next());
    assert.equal((await child.status()).code, 0);
    assert.equal(tree.count("orders"), 0);
    await tree.remove();
  },
});
