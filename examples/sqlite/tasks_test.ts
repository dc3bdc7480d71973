// test-permissions: --allow-run --allow-read={repo} --allow-env={child-env}
// The deno.json tasks of this example: `sqlite` runs the sample with exactly
// the flags the server prints for it, and `compile:sqlite` builds from them.
// Also: sample/shop.db is what sample/shop.sql builds.
import assert from "node:assert/strict";
import { join, resolve } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { childEnv, printedPermissions, spawnServer } from "@forge/toolkit/testing";
import { REPO, SAMPLE_SQL, SCRIPT } from "./_e2e.ts";

const SAMPLE = join(REPO, "examples", "sqlite", "sample", "config.json");
const SAMPLE_DB = join(REPO, "examples", "sqlite", "sample", "shop.db");
const perms: Deno.PermissionOptions = { run: [Deno.execPath()], read: [REPO], env: "inherit" };

async function task(name: "sqlite" | "compile:sqlite"): Promise<string[]> {
  const json = JSON.parse(await Deno.readTextFile(join(REPO, "deno.json")));
  const line: string | undefined = json.tasks?.[name];
  assert.ok(line, `deno.json has no task ${name}`);
  const words = line.split(/\s+/);
  assert.deepEqual(words.slice(0, 2), ["deno", "run"], line);
  return words.slice(2);
}

/** Permission flags with their paths resolved from the checkout, sorted, for comparison. */
function normalised(flags: readonly string[]): string[] {
  return flags.filter((f) => /^--(allow|deny)-/.test(f)).map((flag) => {
    const [name, list] = flag.split("=");
    if (list === undefined || name === "--allow-env") return flag;
    return `${name}=${list.split(",").map((p) => resolve(REPO, p)).sort().join(",")}`;
  }).sort();
}

Deno.test({
  name: "the sqlite task grants exactly what --print-permissions prints for the sample config",
  permissions: perms,
  async fn() {
    const args = await task("sqlite");
    const printed = await printedPermissions({ script: SCRIPT, config: SAMPLE, cwd: REPO });
    assert.deepEqual(normalised(args), normalised(printed));
    assert.ok(args.includes("examples/sqlite/main.ts") && args.at(-1) === "examples/sqlite/sample/config.json");
  },
});

Deno.test({
  name: "the sqlite task starts the sample server read-only, which passes its own least-privilege check and serves",
  permissions: perms,
  async fn() {
    const server = await spawnServer({ args: await task("sqlite"), cwd: REPO });
    assert.deepEqual((await server.client.listTools()).tools.map((t) => t.name), [
      "list_tables",
      "describe_table",
      "run_query",
    ]);
    const top = await server.client.callTool({
      name: "run_query",
      arguments: {
        sql: "SELECT customer, total_cents FROM order_totals ORDER BY total_cents DESC LIMIT ?",
        params: [1],
      },
    });
    assert.deepEqual((top.structuredContent as { rows: unknown[] }).rows, [{
      customer: "Edsger Dijkstra",
      total_cents: 4500,
    }]);
    assert.equal((await server.close()).code, 0);
  },
});

Deno.test({
  name: "compile:sqlite --dry-run builds deno compile from the printed flags, embeds the config and names dist/sqlite",
  permissions: perms,
  async fn() {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", ...await task("compile:sqlite"), "--dry-run"],
      cwd: REPO,
      clearEnv: true,
      env: childEnv(),
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    const command = new TextDecoder().decode(out.stdout).trim().split(" ");
    assert.deepEqual(command.slice(0, 3), ["deno", "compile", "--no-prompt"]);
    const printed = await printedPermissions({ script: SCRIPT, config: SAMPLE, cwd: REPO });
    assert.deepEqual(normalised(command), normalised(printed));
    assert.equal(command[command.indexOf("--include") + 1], SAMPLE);
    assert.equal(command[command.indexOf("--output") + 1], "dist/sqlite");
    assert.deepEqual(command.slice(-3), ["examples/sqlite/main.ts", "-config", SAMPLE]);
  },
});

Deno.test({
  name: "sample/shop.db holds exactly what sample/shop.sql builds",
  permissions: { read: [REPO] },
  async fn() {
    const built = new DatabaseSync(":memory:");
    built.exec(await Deno.readTextFile(SAMPLE_SQL));
    const sample = new DatabaseSync(SAMPLE_DB, { readOnly: true });
    const dump = (db: DatabaseSync) => {
      const schema = db.prepare("SELECT type, name, sql FROM sqlite_schema ORDER BY name").all();
      const tables = schema.filter((row) => row.type === "table").map((row) => String(row.name));
      return JSON.stringify([schema, ...tables.map((t) => db.prepare(`SELECT * FROM "${t}" ORDER BY rowid`).all())]);
    };
    assert.equal(dump(sample), dump(built));
    sample.close();
    built.close();
    assert.throws(() => new DatabaseSync(SAMPLE_DB), Deno.errors.NotCapable, "the test cannot write the sample");
  },
});
