// The files tools against a racing local process: a separate process swaps
// race/d (in the read root and in the writable root) for a link to an outside
// folder and back, as fast as it can, while each tool is called `calls` times
// through the domain API with the descriptor anchor configured. No outside
// byte, name or size may come back, no file may appear outside, no temporary
// file may stay behind, and the process holds no descriptor of the arena
// afterwards. mixedRaceTests() swaps the roots themselves (as whoever can write
// their parent can), and runs without the anchor (path mode), where
// docs/security.md promises less: there, only that no message names a host
// path, no call fails otherwise than as a refusal, and no descriptor stays open.
// race_test.ts runs it in the gate (1,000 calls per tool, 400 per mixed case);
// race_soak.ts behind `deno task race` (30,000) and `deno task race:soak`
// (300,000), FORGE_RACE_MODE and FORGE_RACE_TARGET choosing a mixed case.
import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { PolicyError } from "@forge/toolkit/validate";
import type { Config } from "./domain/config.ts";
import { Manager } from "./domain/manager.ts";

const SWAPPER = fileURLToPath(new URL("./_swapper.ts", import.meta.url));

/** With the descriptor anchor or in path mode; swapping `race/d` in each root, or each root itself. */
export interface RaceCase {
  mode: "anchor" | "path";
  target: "folder" | "root";
}

const ANCHOR_FOLDER: RaceCase = { mode: "anchor", target: "folder" };

interface Arena {
  mgr: Manager;
  outside: string;
  canary: string;
  /** The arena's temporary folder: no message may name it, or anything under it. */
  base: string;
  tally: { calls: number; refused: number; errors: number; hits: number; swaps: number };
  /** Stops the swapper, checks the outside folder, the roots and the descriptors, removes everything. */
  finish(): Promise<void>;
}

async function arena(calls: number, label: string, race: RaceCase): Promise<Arena> {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "files-race-" }));
  const [data, ws, outside, anchorDir] = ["data", "ws", "outside", "anchor"].map((d) => join(base, d));
  for (const dir of [join(data, "race", "d"), join(ws, "race", "d"), outside]) {
    await Deno.mkdir(dir, { recursive: true });
  }
  await Deno.mkdir(anchorDir, { mode: 0o700 });
  const anchor = join(anchorDir, "fd");
  // Deno.symlink needs unscoped read and write: the operator's one `ln -s`.
  const ln = await new Deno.Command("ln", { args: ["-s", "/proc/self/fd", anchor] }).output();
  assert.ok(ln.success, "ln -s /proc/self/fd failed");
  const canary = `CANARY-${crypto.randomUUID()}-${"x".repeat(40)}`;
  await Deno.writeTextFile(join(data, "race", "d", "f.txt"), "inside\n");
  await Deno.writeTextFile(join(ws, "race", "d", "f.txt"), "inside\n");
  // Where a swapped race/d leads, and where race/d leads through a swapped root.
  await Deno.mkdir(join(outside, "race", "d"), { recursive: true });
  for (const dir of [outside, join(outside, "race", "d")]) {
    await Deno.writeTextFile(join(dir, "f.txt"), canary);
    await Deno.writeTextFile(join(dir, "outside-only.txt"), canary);
  }
  const config: Config = {
    roots: [data],
    writable_roots: [ws],
    deny: [],
    max_bytes: 4096,
    allow_hard_links: false,
    ...(race.mode === "anchor" ? { fd_anchor: anchor, require_fd_anchor: true } : {}),
  };
  const mgr = new Manager(() => Promise.resolve(config), undefined);
  // The jail takes each root's real path when it is built: built here, before the swapper starts, as a server is at
  // its start (a root swapped then is the operator's folder, docs/security.md).
  assert.equal((await mgr.stat("race/d/f.txt")).size, "inside\n".length);
  const outsideBefore = walk(outside);
  const descriptorsBefore = held(anchor, base);
  const stop = join(base, "stop");
  const folders = race.target === "root" ? [data, ws] : [join(data, "race", "d"), join(ws, "race", "d")];
  const swapper = new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", "--allow-read", "--allow-write", "--allow-ffi", SWAPPER, stop, outside, ...folders],
    stdin: "null",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const lines = swapper.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let said = "";
  while (!said.includes("\n")) said += (await lines.read()).value ?? "";
  const how = said.slice(0, said.indexOf("\n")).replace("ready ", "");
  said = said.slice(said.indexOf("\n") + 1);
  const tally = { calls: 0, refused: 0, errors: 0, hits: 0, swaps: 0 };
  return {
    mgr,
    outside,
    canary,
    base,
    tally,
    async finish() {
      await Deno.writeTextFile(stop, "");
      for (let chunk = await lines.read(); !chunk.done; chunk = await lines.read()) said += chunk.value;
      await swapper.status;
      tally.swaps = Number(said.trim());
      const strays = walk(base).filter((path) => path.includes(".forge-write-"));
      const outsideAfter = walk(outside);
      const descriptorsAfter = held(anchor, base);
      console.log(
        `${label} (${race.mode} mode, swapping each ${race.target}): ${calls} calls, ${tally.hits} outside, ${tally.refused} refused under the race, ` +
          `${tally.errors} other errors, ${outsideAfter.length - outsideBefore.length} files created outside, ` +
          `${strays.length} temporary files left, ${tally.swaps} swaps (${how}), descriptors ${descriptorsBefore} -> ` +
          descriptorsAfter,
      );
      await Deno.remove(base, { recursive: true });
      // Path mode promises neither: a redirected write may land, and leave its temporary file, outside. With the
      // anchor, a root swapped by a writer of its parent may send the temporary file's create outside for an instant
      // (docs/security.md, remaining windows (c)): it goes before the write is refused, so nothing stays either way.
      if (race.mode === "anchor") {
        assert.deepEqual(strays, [], "temporary files stayed behind");
        assert.deepEqual(outsideAfter, outsideBefore, "a file appeared outside the roots");
      }
      assert.equal(tally.errors, 0, "a call failed with something other than a refusal (an Internal error)");
      assert.equal(descriptorsAfter, descriptorsBefore, "the calls left descriptors open");
      assert.ok(tally.swaps > 100, `the swapper swapped only ${tally.swaps} times`);
    },
  };
}

/**
 * How many of this process's descriptors lead into `base`: other test modules
 * running in the same process open and close their own at any time.
 */
function held(anchor: string, base: string): number {
  return names(anchor).filter((fd) => {
    try {
      return Deno.readLinkSync(`${anchor}/${fd}`).startsWith(`${base}/`);
    } catch {
      return false;
    }
  }).length;
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

/** Runs `call` `calls` times; a PolicyError is a refusal (fine under a race), anything else is counted as an error. */
async function hammer(a: Arena, calls: number, call: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < calls; i++) {
    a.tally.calls++;
    try {
      if (await call()) a.tally.hits++;
    } catch (err) {
      if (!(err instanceof PolicyError)) {
        if (a.tally.errors++ === 0) console.error(err);
        continue;
      }
      assert.ok(!err.message.includes(a.base), `a refusal named a host path: ${err.message}`);
      a.tally.refused++;
    }
  }
}

/** One race: an arena, `calls` calls of `call`, the checks of `finish`, then the tool's own assertion. */
async function race(
  calls: number,
  label: string,
  call: (a: Arena) => () => Promise<boolean>,
  how: RaceCase = ANCHOR_FOLDER,
): Promise<Arena> {
  const a = await arena(calls, label, how);
  try {
    await hammer(a, calls, call(a));
  } finally {
    await a.finish();
  }
  // Path mode: a swap that redirects every look of a call alike returns outside data (docs/security.md), so the
  // hits are counted, not refused.
  if (how.mode === "anchor") {
    assert.equal(a.tally.hits, 0, `${label}: ${a.tally.hits} of ${calls} calls reached outside`);
  }
  return a;
}

/**
 * Registers one race per case, each of `calls` calls that take the tools in turn (read_file, stat, list_dir,
 * write_file): with the descriptor anchor, no outside byte, name or size comes back, no file appears outside and no
 * temporary file stays; in path mode, only what docs/security.md promises there (no host path in a refusal, no
 * internal error, no descriptor left open).
 *
 * @param calls How many calls per case.
 * @param permissions The permissions of each test.
 * @param cases The modes and targets.
 */
export function mixedRaceTests(calls: number, permissions: Deno.PermissionOptions, cases: readonly RaceCase[]): void {
  for (const how of cases) {
    Deno.test({
      name: `the files tools under a racing swap of each ${how.target} (${how.mode} mode, ${calls} calls): ${
        how.mode === "anchor"
          ? "nothing outside is returned or written, no temporary file stays"
          : "no host path in a refusal, no internal error"
      }`,
      permissions,
      async fn() {
        let i = 0;
        const a = await race(calls, `mixed`, (a) => async () => {
          switch (i++ % 4) {
            case 0:
              return (await a.mgr.read("race/d/f.txt")).text.includes("CANARY");
            case 1:
              return (await a.mgr.stat("race/d/f.txt")).size === a.canary.length;
            case 2:
              return (await a.mgr.list("race/d")).entries.some((e) => e.name === "outside-only.txt");
            default:
              await a.mgr.write("race/d/w.txt", "raced");
              return false;
          }
        }, how);
        assert.ok(a.tally.refused < calls, "every call was refused: the test did not exercise the success path");
      },
    });
  }
}

/**
 * Registers the race test of every files tool, `calls` calls each.
 *
 * @param calls How many calls per tool.
 * @param permissions The permissions of each test (the anchor lies under the temp folder).
 */
export function raceTests(calls: number, permissions: Deno.PermissionOptions): void {
  Deno.test({
    name: `read_file under a racing folder swap never returns an outside byte (${calls} calls, descriptor walk)`,
    permissions,
    async fn() {
      const a = await race(
        calls,
        "read_file",
        (a) => async () => (await a.mgr.read("race/d/f.txt")).text.includes("CANARY"),
      );
      assert.ok(a.tally.refused < calls, "every read was refused: the test did not exercise the success path");
    },
  });

  Deno.test({
    name: `stat under a racing folder swap never describes an outside file (${calls} calls, descriptor walk)`,
    permissions,
    async fn() {
      let i = 0;
      await race(calls, "stat", (a) => async () => {
        // Alternately a name that exists inside and outside (sizes differ) and one that exists only outside.
        if (i++ % 2 === 0) return (await a.mgr.stat("race/d/f.txt")).size === a.canary.length;
        await a.mgr.stat("race/d/outside-only.txt");
        return true;
      });
    },
  });

  Deno.test({
    name: `list_dir under a racing folder swap never lists an outside name (${calls} calls, descriptor walk)`,
    permissions,
    async fn() {
      await race(calls, "list_dir", (a) => async () => {
        const listing = await a.mgr.list("race/d");
        return listing.entries.some((e) => e.name === "outside-only.txt" || e.size === a.canary.length);
      });
    },
  });

  Deno.test({
    name: `search_files under a racing folder swap never finds an outside name (${calls} calls, descriptor walk)`,
    permissions,
    async fn() {
      await race(calls, "search_files", (a) => async () => {
        const found = await a.mgr.search("race", "*");
        return found.matches.some((m) => m.name === "outside-only.txt" || m.size === a.canary.length);
      });
    },
  });

  Deno.test({
    name: `write_file under a racing folder swap never writes outside, leaves no temporary file (${calls} calls)`,
    permissions,
    async fn() {
      // finish() fails the test when a file appeared outside or a temporary file stayed.
      await race(calls, "write_file", (a) => async () => {
        await a.mgr.write("race/d/w.txt", "raced");
        return false;
      });
    },
  });
}
