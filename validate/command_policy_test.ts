// test-permissions: --allow-read={tmp} --allow-write={tmp} --allow-run=/bin/sh,/usr/bin/kill,/usr/bin/setsid,{repo}/validate/testdata/recording_starter.sh,/nonexistent/forge-setsid,/nonexistent/forge-gone,{repo}/validate/testdata/missing_killer.sh,{repo}/validate/testdata --allow-env=GIT_DIR,FORGE_TEST_PASSED
import assert from "node:assert/strict";
import { join } from "node:path";
import { arg } from "./command_args.ts";
import { CommandPolicy, type CommandPolicyInit, type CommandResult } from "./command_policy.ts";
import { PolicyError } from "./policy_error.ts";

async function tree(): Promise<{ root: string; outside: string; end: () => Promise<void> }> {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "command-policy-" }));
  const root = join(base, "root");
  const outside = join(base, "outside");
  await Deno.mkdir(root);
  await Deno.mkdir(outside);
  return { root, outside, end: () => Deno.remove(base, { recursive: true }) };
}

/**
 * A policy that runs sh through the session starter, as the git example
 * does: its first run (sh's, through Deno's `detached`) is made here, so
 * every run a test makes goes through `setsid`.
 */
async function sh(root: string, init: Partial<CommandPolicyInit> = {}): Promise<CommandPolicy> {
  const commands = await CommandPolicy.create({
    programs: { sh: "/bin/sh", ls: "/bin/ls" },
    roots: [root],
    sessionStarter: "/usr/bin/setsid",
    ...init,
  });
  assert.equal((await commands.run("sh", [arg.flag("-c"), arg.word(":")], { cwd: root })).code, 0);
  return commands;
}

/** What a program says of itself: its pid, process group and session (from /proc), and its parent's pid. */
const WHO = 'read -r stat < /proc/$$/stat; set -- ${stat##*) }; echo "$$ $3 $4 $2"';

const script = (text: string) => [arg.flag("-c"), arg.word(text)];

async function exists(path: string): Promise<boolean> {
  return await Deno.stat(path).then(() => true, () => false);
}

/** Makes a FIFO at `path` (Deno has no mkfifo) and returns the path. */
async function mkfifo(path: string): Promise<string> {
  assert.ok((await new Deno.Command("/bin/sh", { args: ["-c", 'mkfifo "$0"', path] }).output()).success);
  return path;
}

/**
 * A FIFO a program's background process holds open for writing (`exec 9>"$HOLD"`), so that the test learns, by an
 * event and not by a wait, when the last process that could still write the marker is gone: the read end reaches
 * its end once every writer has exited. The test's own keeper (read and write, which never blocks on Linux) lets
 * both ends open without waiting for each other; `drained()` closes it, then reads to the end.
 */
async function holdOpen(dir: string): Promise<{ path: string; drained(): Promise<string> }> {
  const path = await mkfifo(join(dir, "hold"));
  const keeper = await Deno.open(path, { read: true, write: true });
  const reader = await Deno.open(path, { read: true });
  return {
    path,
    async drained() {
      keeper.close();
      return await new Response(reader.readable).text();
    },
  };
}

Deno.test("CommandPolicy.run() reports stdout, stderr and the exit code", async () => {
  const t = await tree();
  try {
    const commands = await sh(t.root);
    const result = await commands.run("sh", script("echo out; echo err >&2; exit 3"), { cwd: t.root });
    assert.deepEqual(result, {
      code: 3,
      signal: null,
      ended: "exit",
      stdout: "out\n",
      stdoutCut: false,
      stderr: "err\n",
      stderrCut: false,
    });
  } finally {
    await t.end();
  }
});

Deno.test("CommandPolicy.run() keeps a byte-order mark a program prints first, on stdout and stderr", async () => {
  const t = await tree();
  try {
    const commands = await sh(t.root);
    const result = await commands.run("sh", script("printf '\\357\\273\\277out'; printf '\\357\\273\\277err' >&2"), {
      cwd: t.root,
    });
    assert.equal(result.stdout, "\ufeffout");
    assert.equal(result.stderr, "\ufefferr");
  } finally {
    await t.end();
  }
});

Deno.test("CommandPolicy.run() writes input to stdin and closes it; a program that reads none of it still ends its run", async () => {
  const t = await tree();
  try {
    const commands = await sh(t.root);
    // Larger than a pipe holds, so the write has to wait for the program to read.
    const input = new TextEncoder().encode("x".repeat(300_000) + "\nend\n");
    const counted = await commands.run("sh", script("wc -c; echo err >&2"), { cwd: t.root, input });
    assert.equal(counted.code, 0, counted.stderr);
    assert.equal(counted.stdout.trim(), String(input.length));
    const ignored = await commands.run("sh", script("echo done"), { cwd: t.root, input });
    assert.deepEqual([ignored.code, ignored.ended, ignored.stdout], [0, "exit", "done\n"]);
    const without = await commands.run("sh", script("wc -c"), { cwd: t.root });
    assert.equal(without.stdout.trim(), "0");
  } finally {
    await t.end();
  }
});

Deno.test("CommandPolicy.run() keeps a deadline longer than 2^31 ms: the program is not killed at once", async () => {
  const t = await tree();
  try {
    // 3e9 ms overflows setTimeout's 32-bit delay, which would fire after 1 ms:
    // the program's own 0.3 s of work would be cut short.
    const commands = await sh(t.root, { timeoutMs: 3_000_000_000 });
    const result = await commands.run("sh", script("sleep 0.3; echo done"), { cwd: t.root });
    assert.deepEqual([result.ended, result.stdout], ["exit", "done\n"]);
  } finally {
    await t.end();
  }
});

Deno.test("CommandPolicy.run() reports the signal that ended the program", async () => {
  const t = await tree();
  try {
    const result = await (await sh(t.root)).run("sh", script("kill -TERM $$"), { cwd: t.root });
    assert.equal(result.signal, "SIGTERM");
    assert.equal(result.code, 143);
  } finally {
    await t.end();
  }
});

Deno.test("CommandPolicy.run() kills the process group at the deadline, grandchildren included, though they ignore SIGTERM", async () => {
  const t = await tree();
  try {
    const marker = join(t.root, "alive");
    const hold = await holdOpen(t.root);
    const commands = await sh(t.root, { env: { MARKER: marker, HOLD: hold.path }, timeoutMs: 1000 });
    // The subshell is a grandchild that says it started, then would write the marker long after the deadline.
    // Every process ignores SIGTERM (an ignored signal stays ignored in children): only the SIGKILL after the
    // grace stops them.
    const result = await commands.run(
      "sh",
      script('trap "" TERM; (exec 9>"$HOLD"; echo started >&9; sleep 5; echo alive > "$MARKER") & sleep 30'),
      { cwd: t.root },
    );
    assert.equal(result.ended, "deadline");
    assert.equal(result.signal, "SIGKILL");
    assert.equal(await hold.drained(), "started\n", "the grandchild ran");
    assert.equal(await exists(marker), false, "the grandchild outlived the deadline");
  } finally {
    await t.end();
  }
});

/**
 * Runs a program that starts a background process (its output sent where `redirect` says), waits until that one
 * runs, and exits 0. Returns the run's result, what the background process said, and whether it wrote its marker
 * (it would, after 5 s, if it outlived the call): read once every process that could write it is gone.
 */
async function leaveBehind(root: string, redirect: string): Promise<[CommandResult, string, boolean]> {
  const marker = join(root, "alive");
  const hold = await holdOpen(root);
  const ready = await mkfifo(join(root, "ready"));
  const commands = await sh(root, { env: { MARKER: marker, HOLD: hold.path, READY: ready } });
  const background = '(exec 9>"$HOLD"; echo started >&9; echo > "$READY"; sleep 5; echo alive > "$MARKER")';
  const result = await commands.run("sh", script(`${background} ${redirect} & read _ < "$READY"`), { cwd: root });
  return [result, await hold.drained(), await exists(marker)];
}

Deno.test("CommandPolicy.run() kills what a program left running after it exited", async () => {
  const t = await tree();
  try {
    const [result, said, marker] = await leaveBehind(t.root, "");
    assert.deepEqual([result.ended, result.code], ["exit", 0]);
    assert.equal(said, "started\n", "the background process ran");
    assert.equal(marker, false, "the background process outlived the call");
  } finally {
    await t.end();
  }
});

Deno.test("CommandPolicy.run() kills what a program left running with its output closed, though both pipes ended", async () => {
  // Both pipes reach their end when the program exits, so their end cannot tell that the group is empty: the group
  // is killed after every run (docs/benchmarks.md, "The killer after each command").
  const t = await tree();
  try {
    const [result, said, marker] = await leaveBehind(t.root, "> /dev/null 2>&1");
    assert.deepEqual([result.ended, result.code], ["exit", 0]);
    assert.equal(said, "started\n", "the background process ran");
    assert.equal(marker, false, "the background process outlived the call");
  } finally {
    await t.end();
  }
});

Deno.test("CommandPolicy.run() stops the group when the signal aborts, with SIGTERM first: the program removes its lock", async () => {
  const t = await tree();
  try {
    // The program says it runs through a FIFO: the abort comes once it runs, never before it started. Like git
    // with its index.lock, it removes its lock when SIGTERM comes, which a SIGKILL would never let it do.
    // It waits with the `wait` builtin, which a trapped signal ends at once, for a sleep started before it says so:
    // a shell waiting on a foreground sleep runs its trap only when the sleep ends, and a SIGTERM that came after
    // "started" but before that sleep was forked would miss it (its 30 s outlast the grace; one gate run in three
    // on a loaded machine saw SIGKILL and 137).
    const fifo = await mkfifo(join(t.root, "started"));
    const lock = join(t.root, "index.lock");
    const commands = await sh(t.root, { env: { FIFO: fifo, LOCK: lock } });
    const controller = new AbortController();
    const running = commands.run(
      "sh",
      script('trap \'rm "$LOCK"; exit 143\' TERM; : > "$LOCK"; sleep 30 & echo started > "$FIFO"; wait'),
      { cwd: t.root, signal: controller.signal },
    );
    const started = await Deno.readTextFile(fifo);
    assert.equal(started, "started\n");
    assert.equal(await exists(lock), true);
    controller.abort();
    const result = await running;
    assert.deepEqual([result.ended, result.code, result.signal], ["aborted", 143, null]);
    assert.equal(await exists(lock), false, "the program was killed before it could remove its lock");
    // Without a grace, the group is killed at once.
    const now = await sh(t.root, { env: { FIFO: fifo, LOCK: lock }, termGraceMs: 0 });
    const stopped = new AbortController();
    const killed = now.run("sh", script('trap \'rm "$LOCK"\' TERM; : > "$LOCK"; echo started > "$FIFO"; sleep 30'), {
      cwd: t.root,
      signal: stopped.signal,
    });
    assert.equal(await Deno.readTextFile(fifo), "started\n");
    stopped.abort();
    assert.deepEqual([(await killed).ended, (await killed).signal], ["aborted", "SIGKILL"]);
    assert.equal(await exists(lock), true);
  } finally {
    await t.end();
  }
});

Deno.test("CommandPolicy.run() whose stop missed the group (not made yet) kills the group once the child has ended: nothing it started survives", async () => {
  const t = await tree();
  try {
    const hold = await holdOpen(t.root);
    const ready = await mkfifo(join(t.root, "ready"));
    // The killer misses its first signal to each group, as one sent before the starter has called setsid() does;
    // the signal then reaches the child alone. A red team saw it leave a run's background process alive in ~2 runs
    // of 100 stopped the instant they started, with no grace: the group was never signalled again.
    const killer = new URL("./testdata/missing_killer.sh", import.meta.url).pathname;
    const commands = await sh(t.root, { env: { HOLD: hold.path, READY: ready }, termGraceMs: 0, killer });
    const background = '(exec 9>"$HOLD"; echo > "$READY"; sleep 30; echo survived >&9) >/dev/null 2>&1';
    const controller = new AbortController();
    const running = commands.run("sh", script(`${background} & sleep 30`), { cwd: t.root, signal: controller.signal });
    await Deno.readTextFile(ready);
    controller.abort();
    assert.deepEqual([(await running).ended, (await running).signal], ["aborted", "SIGKILL"]);
    assert.equal(await hold.drained(), "", "the background process outlived its run");
  } finally {
    await t.end();
  }
});

Deno.test("CommandPolicy.run() caps stdout in bytes, says so, and stops an endless writer", async () => {
  const t = await tree();
  try {
    const commands = await sh(t.root, { maxOutputBytes: 1000 });
    const result = await commands.run("sh", script("while :; do echo yyyyyyyyyyyyyyyy; done"), { cwd: t.root });
    assert.equal(result.ended, "output-cap");
    assert.equal(result.stdoutCut, true);
    assert.equal(result.stdout.length, 1000);
    assert.equal(result.stderrCut, false);
  } finally {
    await t.end();
  }
});

Deno.test("CommandPolicy.run() passes only the allowlisted environment", async () => {
  const t = await tree();
  Deno.env.set("GIT_DIR", "/tmp/evil");
  Deno.env.set("FORGE_TEST_PASSED", "yes");
  try {
    const commands = await sh(t.root, { env: { FIXED: "1" }, inheritEnv: ["FORGE_TEST_PASSED"] });
    const result = await commands.run("sh", script("env"), { cwd: t.root });
    const names = result.stdout.split("\n").filter((l) => l !== "").map((l) => l.split("=")[0]);
    assert.ok(names.includes("FIXED"));
    assert.ok(names.includes("FORGE_TEST_PASSED"));
    assert.ok(!names.includes("GIT_DIR"));
    assert.ok(!names.some((n) => n.startsWith("LD_") || n.endsWith("_PROXY") || n === "HOME"), names.join(","));
    // A run's own variables reach that run alone, over the policy's; a malformed one is refused before any start.
    const own = await commands.run("sh", script("echo $FIXED $ONCE"), { cwd: t.root, env: { FIXED: "2", ONCE: "x" } });
    assert.equal(own.stdout, "2 x\n");
    assert.equal((await commands.run("sh", script("echo $FIXED $ONCE"), { cwd: t.root })).stdout, "1\n");
    await assert.rejects(
      commands.run("sh", script(":"), { cwd: t.root, env: { "A=B": "x" } }),
      /^TypeError: Cannot run "sh": env name "A=B" is not a valid variable name$/,
    );
  } finally {
    Deno.env.delete("GIT_DIR");
    Deno.env.delete("FORGE_TEST_PASSED");
    await t.end();
  }
});

Deno.test("CommandPolicy.run() refuses a folder outside the roots, a link out included", async () => {
  const t = await tree();
  try {
    const commands = await sh(t.root, { env: { OUT: t.outside } });
    // Deno.symlink needs unscoped permissions; the shell makes the link instead.
    await commands.run("sh", script('ln -s "$OUT" out'), { cwd: t.root });
    for (const cwd of [t.outside, join(t.root, ".."), join(t.root, "out"), join(t.root, "missing")]) {
      await assert.rejects(commands.run("sh", script("true"), { cwd }), (err: unknown) => {
        assert.ok(err instanceof PolicyError);
        assert.equal(err.code, "outside-roots");
        return true;
      });
    }
    assert.equal((await commands.run("sh", script("pwd"), { cwd: t.root })).stdout, `${t.root}\n`);
  } finally {
    await t.end();
  }
});

Deno.test("CommandPolicy.run() refuses an option where a value is expected, before starting anything", async () => {
  const t = await tree();
  try {
    const marker = join(t.root, "ran");
    const commands = await sh(t.root, { env: { MARKER: marker } });
    const parts = [...script('touch "$MARKER"'), arg.value("rev", "--output=/tmp/x")];
    await assert.rejects(commands.run("sh", parts, { cwd: t.root }), PolicyError);
    assert.equal(await exists(marker), false);
  } finally {
    await t.end();
  }
});

Deno.test("CommandPolicy.run() refuses a program it does not list, and Deno refuses one it does not grant", async () => {
  const t = await tree();
  try {
    const commands = await sh(t.root);
    await assert.rejects(commands.run("bash", [], { cwd: t.root }), TypeError);
    // ls is in the policy but not in --allow-run: layer 2 still refuses it.
    await assert.rejects(commands.run("ls", [], { cwd: t.root }), /Cannot run "ls": NotCapable/);
  } finally {
    await t.end();
  }
});

Deno.test("CommandPolicy.run() starts a program through the session starter, after its first run, as the leader of a group of its own", async () => {
  const t = await tree();
  try {
    // The starter records each start in the folder it runs in, then starts the program through setsid.
    const starter = new URL("./testdata/recording_starter.sh", import.meta.url).pathname;
    const commands = await CommandPolicy.create({
      programs: { sh: "/bin/sh", gone: "/nonexistent/forge-gone" },
      roots: [t.root],
      sessionStarter: starter,
    });
    assert.deepEqual(commands.programPaths(), ["/bin/sh", "/nonexistent/forge-gone", starter, "/usr/bin/kill"].sort());
    const runs = [];
    for (let i = 0; i < 3; i++) runs.push(await commands.run("sh", script(WHO), { cwd: t.root }));
    for (const run of runs) {
      const [pid, group, session, parent] = run.stdout.trim().split(" ").map(Number);
      assert.deepEqual([group, session], [pid, pid], `not a group and session of its own: ${run.stdout}`);
      assert.equal(parent, Deno.pid, "the program is not the server's own child");
    }
    // The first run is Deno's detached, which checks sh against --allow-run; the two after it go through the starter.
    assert.equal(await Deno.readTextFile(join(t.root, "starts")), `/bin/sh -c ${WHO}\n`.repeat(2));
    // A program that is not there fails as itself, every time, not as the starter's exit code 127.
    for (let i = 0; i < 2; i++) {
      await assert.rejects(commands.run("gone", [], { cwd: t.root }), /^Error: Cannot run "gone": NotFound$/);
    }
  } finally {
    await t.end();
  }
});

Deno.test("CommandPolicy.run() falls back to Deno's detached when the session starter is not installed", async () => {
  const t = await tree();
  try {
    const commands = await CommandPolicy.create({
      programs: { sh: "/bin/sh" },
      roots: [t.root],
      // Granted by --allow-run, and not there.
      sessionStarter: "/nonexistent/forge-setsid",
    });
    for (let i = 0; i < 3; i++) {
      const [pid, group, session] = (await commands.run("sh", script(WHO), { cwd: t.root })).stdout.split(" ").map(
        Number,
      );
      assert.deepEqual([group, session], [pid, pid]);
    }
  } finally {
    await t.end();
  }
});

Deno.test("CommandPolicy.run() names a session starter that cannot be started, where the program's own name would mislead", async () => {
  const t = await tree();
  try {
    // A folder: granted by --allow-run, and not a program.
    const folder = new URL("./testdata", import.meta.url).pathname.replace(/\/$/, "");
    const commands = await CommandPolicy.create({
      programs: { sh: "/bin/sh" },
      roots: [t.root],
      sessionStarter: folder,
    });
    assert.equal((await commands.run("sh", script("echo first"), { cwd: t.root })).stdout, "first\n");
    await assert.rejects(
      commands.run("sh", script("echo second"), { cwd: t.root }),
      (err: Error) =>
        err.message === `Cannot run "sh" through the session starter ${JSON.stringify(folder)}: PermissionDenied`,
    );
  } finally {
    await t.end();
  }
});

Deno.test("CommandPolicy.create() refuses relative programs, bad env names and bad limits", async () => {
  await assert.rejects(CommandPolicy.create({ programs: { git: "usr/bin/git" }, roots: [] }), TypeError);
  await assert.rejects(CommandPolicy.create({ programs: {}, roots: [], env: { "A=B": "x" } }), TypeError);
  await assert.rejects(CommandPolicy.create({ programs: {}, roots: [], timeoutMs: 0 }), RangeError);
  await assert.rejects(CommandPolicy.create({ programs: {}, roots: [], termGraceMs: -1 }), RangeError);
  await assert.rejects(CommandPolicy.create({ programs: {}, roots: [], sessionStarter: "setsid" }), TypeError);
  const commands = await CommandPolicy.create({ programs: { git: "/usr/bin/git" }, roots: [] });
  assert.deepEqual(commands.programPaths(), ["/usr/bin/git", "/usr/bin/kill"]);
});
