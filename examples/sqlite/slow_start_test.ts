// test-permissions: --allow-run --allow-read={repo},{tmp} --allow-write={tmp} --allow-env={child-env}
// A call whose database process is slow to start, through the server as a
// real subprocess over real stdio. Nothing in the server is changed or told
// anything: it runs from a copy of this example's sources in a temp folder,
// where database_process.ts — the script each database process runs — is a
// FIFO. The server reads it once as it loads (main.ts imports it), fed by the
// test; every database process started after that waits in its open for a
// writer that never comes, as one reading its script from a stalled disk
// would. No sleep and no timer of the test's: the verdict is the reply.
// Only the slow-start error is shown here: the other (a job left less than
// query_timeout_ms once its start is let go) needs one start released while
// the spare's waits too, and two readers of one FIFO would share its bytes;
// domain/database_processes_test.ts holds each start back for that one.
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { spawnServer } from "@forge/toolkit/testing";
import { textOf } from "../served.ts";
import { REPO, reusedTree } from "./_e2e.ts";
import { TOOL_TIMEOUT_MS } from "./domain/config.ts";

const perms: Deno.PermissionOptions = {
  run: [Deno.execPath(), "sh"],
  read: "inherit",
  write: "inherit",
  env: "inherit",
};
const HERE = dirname(fileURLToPath(import.meta.url));

/**
 * Copies this example's sources (no tests) under `to`: the server, its domain and its tools, with a deno.json that
 * maps the toolkit's names to the checkout (Deno looks for it beside the script a process runs).
 */
async function copySources(to: string): Promise<void> {
  const fileUrl = (path: string) => pathToFileURL(join(REPO, path)).href;
  const config = JSON.parse(await Deno.readTextFile(join(REPO, "deno.json"))) as { imports: Record<string, string> };
  const imports = Object.fromEntries(
    Object.entries(config.imports).map(([name, path]) => [name, path.startsWith("./") ? fileUrl(path) : path]),
  );
  await Deno.mkdir(to, { recursive: true });
  await Deno.writeTextFile(join(to, "deno.json"), JSON.stringify({ imports, lock: false }));
  for (const folder of ["", "domain", "tools"]) {
    await Deno.mkdir(join(to, folder), { recursive: true });
    for await (const entry of Deno.readDir(join(HERE, folder))) {
      if (!entry.isFile || !entry.name.endsWith(".ts") || entry.name.endsWith("_test.ts")) continue;
      await Deno.copyFile(join(HERE, folder, entry.name), join(to, folder, entry.name));
    }
  }
}

Deno.test({
  name: "a call whose database process is slow to start gets the example's own error before the tool's deadline, " +
    "not the toolkit's -32001",
  permissions: perms,
  async fn() {
    const shared = await reusedTree();
    // Flags printed for the example itself: they name the config, the database and deno, not the sources.
    const flags = await shared.reset({ query_timeout_ms: 9_000 });
    const copy = join(shared.tree.base, "server");
    await copySources(copy);
    const script = join(copy, "database_process.ts");
    const source = await Deno.readFile(script);
    await Deno.remove(script);
    const mkfifo = await new Deno.Command("sh", { args: ["-c", 'mkfifo "$1"', "sh", script] }).output();
    assert.ok(mkfifo.success, "mkfifo");
    // The server's own read: opening the FIFO to write waits for it, and nothing else reads it yet (the server
    // starts no database process before its modules are loaded). Every later open, a database process's, stalls.
    const fed = Deno.writeFile(script, source);
    const server = await spawnServer({
      args: [...flags, join(copy, "main.ts"), "-config", shared.tree.config],
      cwd: REPO,
    }).catch(async (err) => {
      // A server that ended before it read the FIFO leaves the test's open waiting: this read ends it.
      (await Deno.open(script, { read: true })).close();
      throw err;
    });
    await fed;
    try {
      // The only wait is for the reply: the tool's own deadline is TOOL_TIMEOUT_MS, the call's job ends 500 ms before.
      const result = await server.client.callTool({ name: "run_query", arguments: { sql: "SELECT 1 AS one" } });
      assert.equal(result.isError, true, JSON.stringify(result));
      const took = new RegExp(
        "^Cannot run query: its database process took (\\d+) ms to start, leaving no time before the call's " +
          "deadline; try again shortly \\(a process is kept ready once one has started\\)$",
      ).exec(textOf(result));
      assert.ok(took, textOf(result));
      assert.ok(Number(took[1]) < TOOL_TIMEOUT_MS, `answered within the tool's ${TOOL_TIMEOUT_MS} ms`);
    } finally {
      // The processes still waiting on the FIFO are killed as the server closes.
      assert.equal((await server.close()).code, 0, server.stderr());
    }
  },
});
