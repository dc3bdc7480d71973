// test-permissions: --allow-read={tmp},{repo} --allow-write={tmp} --allow-run --allow-env=FORGE_RACE_CALLS
// The files tools against a racing local process: a separate process swaps
// race/d (in the read root and in the writable root) for a link to an outside
// folder and back, as fast as it can, while each tool is called
// FORGE_RACE_CALLS times (default 30,000) through the domain API. No outside
// byte, name or size may come back, no file may appear outside, and no
// temporary file may stay behind. It runs behind its own tasks (`deno task
// race`, 30,000 calls per tool; `deno task race:soak`, 300,000), not in the
// gate: the window is narrowed, not closed, and a rare hit under load would
// make the gate fail by chance (docs/security.md gives the measured rates).
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { PolicyError } from "@forge/toolkit/validate";
import type { Config } from "./domain/config.ts";
import { Manager } from "./domain/manager.ts";

const CALLS = Number(Deno.env.get("FORGE_RACE_CALLS") ?? 30_000);
const SWAPPER = fileURLToPath(new URL("./_swapper.ts", import.meta.url));
const perms: Deno.PermissionOptions = { read: "inherit", write: "inherit", run: [Deno.execPath()], env: false };

interface Arena {
  mgr: Manager;
  outside: string;
  outsideBefore: string[];
  canary: string;
  tally: { calls: number; refused: number; errors: number; hits: number; swaps: number };
  /** Stops the swapper, checks the outside folder and the roots, removes everything. */
  finish(): Promise<void>;
}

async function arena(): Promise<Arena> {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "files-race-" }));
  const [data, ws, outside] = ["data", "ws", "outside"].map((d) => join(base, d));
  for (const dir of [join(data, "race", "d"), join(ws, "race", "d"), outside]) {
    await Deno.mkdir(dir, { recursive: true });
  }
  const canary = `CANARY-${crypto.randomUUID()}-${"x".repeat(40)}`;
  await Deno.writeTextFile(join(data, "race", "d", "f.txt"), "inside\n");
  await Deno.writeTextFile(join(ws, "race", "d", "f.txt"), "inside\n");
  await Deno.writeTextFile(join(outside, "f.txt"), canary);
  await Deno.writeTextFile(join(outside, "outside-only.txt"), canary);
  const config: Config = { roots: [data], writable_roots: [ws], deny: [], max_bytes: 4096, allow_hard_links: false };
  const mgr = new Manager(() => Promise.resolve(config), undefined);
  const outsideBefore = names(outside);
  const stop = join(base, "stop");
  const folders = [join(data, "race", "d"), join(ws, "race", "d")];
  const swapper = new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", "--allow-read", "--allow-write", SWAPPER, stop, outside, ...folders],
    stdin: "null",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const lines = swapper.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let said = "";
  while (!said.includes("ready\n")) said += (await lines.read()).value ?? "";
  const tally = { calls: 0, refused: 0, errors: 0, hits: 0, swaps: 0 };
  return {
    mgr,
    outside,
    outsideBefore,
    canary,
    tally,
    async finish() {
      await Deno.writeTextFile(stop, "");
      for (let chunk = await lines.read(); !chunk.done; chunk = await lines.read()) said += chunk.value;
      await swapper.status;
      tally.swaps = Number(said.replace("ready\n", "").trim());
      const strays = walk(base).filter((path) => path.includes(".forge-write-"));
      console.log(
        `${CALLS} calls: ${tally.refused} refused under the race, ${tally.errors} other errors, ` +
          `${tally.hits} outside, ${strays.length} temporary files left, ${tally.swaps} swaps`,
      );
      const outsideAfter = names(outside);
      await Deno.remove(base, { recursive: true });
      assert.deepEqual(strays, [], "temporary files stayed behind");
      assert.deepEqual(outsideAfter, outsideBefore, "a file appeared outside the roots");
      assert.equal(tally.errors, 0, "a call failed with something other than a refusal (an Internal error)");
      assert.ok(tally.swaps > 100, `the swapper swapped only ${tally.swaps} times`);
    },
  };
}

function names(dir: string): string[] {
  return [...Deno.readDirSync(dir)].map((e) => e.name).sort();
}

function walk(dir: string): string[] {
  const out: string[] = [];
  for (const entry of Deno.readDirSync(dir)) {
    const path = join(dir, entry.name);
    out.push(path);
    if (entry.isDirectory && !entry.isSymlink) out.push(...walk(path));
  }
  return out;
}

/** Runs `call` CALLS times; a PolicyError is a refusal (fine under a race), anything else is counted as an error. */
async function hammer(a: Arena, call: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < CALLS; i++) {
    a.tally.calls++;
    try {
      if (await call()) a.tally.hits++;
    } catch (err) {
      if (!(err instanceof PolicyError)) {
        if (a.tally.errors++ === 0) console.error(err);
        continue;
      }
      assert.ok(!err.message.includes(a.outside), err.message);
      a.tally.refused++;
    }
  }
}

Deno.test({
  name: "read_file under a racing folder swap never returns an outside byte",
  permissions: perms,
  async fn() {
    const a = await arena();
    try {
      await hammer(a, async () => (await a.mgr.read("race/d/f.txt")).includes("CANARY"));
    } finally {
      await a.finish();
    }
    assert.equal(a.tally.hits, 0, `${a.tally.hits} of ${CALLS} reads returned the outside file`);
    assert.ok(a.tally.refused < CALLS, "every read was refused: the test did not exercise the success path");
  },
});

Deno.test({
  name: "stat under a racing folder swap never describes an outside file",
  permissions: perms,
  async fn() {
    const a = await arena();
    try {
      let i = 0;
      await hammer(a, async () => {
        // Alternately a name that exists inside and outside (sizes differ) and one that exists only outside.
        if (i++ % 2 === 0) return (await a.mgr.stat("race/d/f.txt")).size === a.canary.length;
        await a.mgr.stat("race/d/outside-only.txt");
        return true;
      });
    } finally {
      await a.finish();
    }
    assert.equal(a.tally.hits, 0, `${a.tally.hits} of ${CALLS} stats described an outside file`);
  },
});

Deno.test({
  name: "list_dir under a racing folder swap never lists an outside name",
  permissions: perms,
  async fn() {
    const a = await arena();
    try {
      await hammer(a, async () => {
        const listing = await a.mgr.list("race/d");
        return listing.entries.some((e) => e.name === "outside-only.txt" || e.size === a.canary.length);
      });
    } finally {
      await a.finish();
    }
    assert.equal(a.tally.hits, 0, `${a.tally.hits} of ${CALLS} listings showed an outside name`);
  },
});

Deno.test({
  name: "search_files under a racing folder swap never finds an outside name",
  permissions: perms,
  async fn() {
    const a = await arena();
    try {
      await hammer(a, async () => {
        const found = await a.mgr.search("race", "*");
        return found.matches.some((m) => m.name === "outside-only.txt" || m.size === a.canary.length);
      });
    } finally {
      await a.finish();
    }
    assert.equal(a.tally.hits, 0, `${a.tally.hits} of ${CALLS} searches found an outside name`);
  },
});

Deno.test({
  name: "write_file under a racing folder swap never writes outside and leaves no temporary file",
  permissions: perms,
  async fn() {
    const a = await arena();
    try {
      await hammer(a, async () => {
        await a.mgr.write("race/d/w.txt", "raced");
        return false;
      });
    } finally {
      // finish() fails the test when a file appeared outside or a temporary file stayed.
      await a.finish();
    }
  },
});
