// test-permissions: --allow-read={tmp} --allow-write={tmp} --allow-run=ln,mkfifo
// Each race of a reload triggered for real: a real file, a real Loader, and
// the racing write, rename or swap landed at an exact step of the reload by
// the loader's internal hooks (configreload/_race_hooks.ts), never by a timer.
import assert from "node:assert/strict";
import { join } from "node:path";
import { z } from "zod";
import { fromSchema } from "./from_schema.ts";
import { Loader } from "./loader.ts";
import { type RaceHooks, raceHooks } from "./_race_hooks.ts";

/** Runs `action` at `step` of `loader`'s next reload, once: the hook removes itself before it acts. */
function once(loader: object, step: keyof RaceHooks, action: () => Promise<void>): void {
  raceHooks.set(loader, {
    [step]: async () => {
      raceHooks.delete(loader);
      await action();
    },
  });
}

const base = await Deno.makeTempDir({ prefix: "configreload_races_" });
globalThis.addEventListener("unload", () => Deno.removeSync(base, { recursive: true }));
const files = { read: [base], write: [base], run: ["ln", "mkfifo"] };

const schema = z.strictObject({ roots: z.array(z.string().startsWith("/")).default([]) });
type Config = z.infer<typeof schema>;

async function write(path: string, text: string): Promise<void> {
  await Deno.writeTextFile(path, text);
  await Deno.chmod(path, 0o644);
}

/** Writes `text` over the file's bytes without truncating it or changing its inode: a careless deploy tool. */
async function overwriteInPlace(path: string, text: string): Promise<void> {
  using file = await Deno.open(path, { write: true });
  const bytes = new TextEncoder().encode(text);
  let at = 0;
  while (at < bytes.length) at += await file.write(bytes.subarray(at));
}

async function run(program: string, ...args: string[]): Promise<void> {
  const { success } = await new Deno.Command(program, { args }).output();
  assert.ok(success, `${program} ${args.join(" ")}`);
}

async function setup(text: string) {
  const dir = await Deno.makeTempDir({ dir: base });
  await Deno.chmod(dir, 0o755);
  const path = join(dir, "files.json");
  await write(path, text);
  const lines: string[] = [];
  let parses = 0;
  const validate = fromSchema(schema);
  const loader = new Loader<Config>(path, (expansion) => (parses++, validate(expansion)), {
    log: (line) => lines.push(line),
    name: "files",
  });
  return { dir, path, loader, lines, parses: () => parses };
}

/** A config of `roots` padded with one long root, so that the file spans several 64 KiB reads. */
function big(first: string, last: string): string {
  return JSON.stringify({ roots: [first, `/pad/${"p".repeat(150_000)}`, last] });
}

Deno.test({
  name: "Loader never applies a torn read: a file rewritten in place while it is read is read again, not mixed",
  permissions: files,
  async fn() {
    // Two versions of one size: the mix of the first's start and the second's end is valid JSON nobody wrote.
    const a = big("/srv/old-a", "/srv/old-z");
    const b = big("/srv/new-a", "/srv/new-z");
    assert.equal(a.length, b.length);
    const { path, loader } = await setup(a);
    assert.deepEqual((await loader.get()).roots[0], "/srv/old-a");
    await write(path, a.replace("/srv/old-z", "/srv/mid-z"));
    let chunks = 0;
    raceHooks.set(loader, {
      afterChunk: async () => {
        if (++chunks === 1) await overwriteInPlace(path, b);
      },
    });
    const seen = await loader.get();
    const [first, , last] = seen.roots;
    // Either version whole (the one before, or the new one), never the start of one and the end of another.
    const whole = [["/srv/old-a", "/srv/old-z"], ["/srv/old-a", "/srv/mid-z"], ["/srv/new-a", "/srv/new-z"]];
    assert.ok(whole.some(([x, y]) => first === x && last === y), `${first} … ${last}`);
    raceHooks.delete(loader);
    assert.deepEqual([(await loader.get()).roots[0], (await loader.get()).roots[2]], ["/srv/new-a", "/srv/new-z"]);
  },
});

Deno.test({
  name: "Loader never applies a file truncated while it is read, and reads the version written after",
  permissions: files,
  async fn() {
    const { path, loader, lines } = await setup(big("/srv/a", "/srv/z"));
    const good = await loader.get();
    await write(path, big("/srv/b", "/srv/y"));
    let chunks = 0;
    raceHooks.set(loader, {
      afterChunk: async () => {
        // A deploy tool's `open(O_TRUNC)`, then the start of its write: a prefix of the new version.
        if (++chunks === 1) await write(path, big("/srv/c", "/srv/x").slice(0, 70_000));
      },
    });
    assert.equal(await loader.get(), good);
    raceHooks.delete(loader);
    await write(path, big("/srv/c", "/srv/x"));
    const next = await loader.get();
    assert.deepEqual([next.roots[0], next.roots[2]], ["/srv/c", "/srv/x"]);
    // The torn read was not taken for a bad version: nothing was logged about it.
    assert.deepEqual(lines, []);
  },
});

Deno.test({
  name: "Loader reads the new file when one is renamed over the path between the read and the hash",
  permissions: files,
  async fn() {
    const { path, loader, parses } = await setup('{ "roots": ["/srv/a"] }');
    await loader.get();
    await write(path, '{ "roots": ["/srv/b"] }');
    once(loader, "afterRead", async () => {
      await write(`${path}.new`, '{ "roots": ["/srv/c"] }');
      await Deno.rename(`${path}.new`, path);
    });
    // The call that read b returns b: it started before c was written.
    assert.deepEqual(await loader.get(), { roots: ["/srv/b"] });
    // Its stamp is the one taken before the read, not c's: the next call reads c.
    assert.deepEqual(await loader.get(), { roots: ["/srv/c"] });
    assert.equal(parses(), 3);
  },
});

Deno.test({
  name: "Loader reads a same-size rewrite in place made between the read and the hash",
  permissions: files,
  async fn() {
    const { path, loader } = await setup('{ "roots": ["/srv/a"] }');
    await loader.get();
    raceHooks.set(loader, { afterRead: () => overwriteInPlace(path, '{ "roots": ["/srv/b"] }') });
    await write(path, '{ "roots": ["/srv/c"] }');
    assert.deepEqual(await loader.get(), { roots: ["/srv/c"] });
    raceHooks.delete(loader);
    // Same size, same inode, maybe the same times: the read's stamp is not trusted so soon after a write.
    assert.deepEqual(await loader.get(), { roots: ["/srv/b"] });
  },
});

Deno.test({
  name: "Loader keeps the last good config, silently, when another file is renamed over the path after the check",
  permissions: files,
  async fn() {
    const { path, loader, lines } = await setup('{ "roots": ["/srv/a"] }');
    const good = await loader.get();
    await write(path, '{ "roots": ["/srv/b"] }');
    once(loader, "afterCheck", async () => {
      await write(`${path}.new`, '{ "roots": ["/srv/c"] }');
      await Deno.rename(`${path}.new`, path);
    });
    // The file checked is not the file at the path any more: neither is read this time.
    assert.equal(await loader.get(), good);
    assert.deepEqual(await loader.get(), { roots: ["/srv/c"] });
    assert.deepEqual(lines, []);
  },
});

Deno.test({
  name: "Loader never reads a symlink that leaves its folder, renamed over the path after the check",
  permissions: files,
  async fn() {
    const { path, loader, lines } = await setup('{ "roots": ["/srv/a"] }');
    const good = await loader.get();
    const outside = await Deno.makeTempDir({ dir: base });
    await write(join(outside, "evil.json"), '{ "roots": ["/"] }');
    await write(path, '{ "roots": ["/srv/b"] }');
    once(loader, "afterCheck", async () => {
      await run("ln", "-s", join(outside, "evil.json"), `${path}.new`);
      await Deno.rename(`${path}.new`, path);
    });
    assert.equal(await loader.get(), good);
    assert.deepEqual(lines, []);
    // Checked again, it is refused for what it is.
    assert.equal(await loader.get(), good);
    assert.match(lines.join("\n"), /is a symlink to .*evil\.json.* which leaves its directory/);
  },
});

Deno.test({
  name: "Loader refuses at once a FIFO renamed over the path after the check: no reload waits for a writer",
  permissions: files,
  async fn() {
    const { dir, path, loader, lines } = await setup('{ "roots": ["/srv/a"] }');
    const good = await loader.get();
    await write(path, '{ "roots": ["/srv/b"] }');
    once(loader, "afterCheck", async () => {
      await run("mkfifo", "-m", "644", join(dir, "fifo"));
      await Deno.rename(join(dir, "fifo"), path);
    });
    // Without a writer, a blocking open would never return: this call's returning is the proof.
    assert.equal(await loader.get(), good);
    assert.equal(await loader.get(), good);
    assert.match(lines.join("\n"), /not a regular file/);
    await Deno.remove(path);
    await write(path, '{ "roots": ["/srv/c"] }');
    assert.deepEqual(await loader.get(), { roots: ["/srv/c"] });
  },
});

Deno.test({
  name: "Loader never reads from a folder swapped in after the check: one writable by others is refused",
  permissions: files,
  async fn() {
    const { dir, path, loader, lines } = await setup('{ "roots": ["/srv/a"] }');
    const good = await loader.get();
    const other = await Deno.makeTempDir({ dir: base });
    await write(join(other, "files.json"), '{ "roots": ["/"] }');
    await Deno.chmod(other, 0o777);
    await write(path, '{ "roots": ["/srv/b"] }');
    once(loader, "afterCheck", async () => {
      await Deno.rename(dir, `${dir}.old`);
      await Deno.rename(other, dir);
    });
    assert.equal(await loader.get(), good);
    assert.equal(await loader.get(), good);
    assert.match(lines.join("\n"), /its directory .* is writable by group or others \(mode 0777\)/);
  },
});

Deno.test({
  name: "Loader keeps the last good config when the file is deleted between the check and the read, then reads it back",
  permissions: files,
  async fn() {
    const { path, loader, lines } = await setup('{ "roots": ["/srv/a"] }');
    const good = await loader.get();
    await write(path, '{ "roots": ["/srv/b"] }');
    once(loader, "afterCheck", async () => {
      await Deno.remove(path);
    });
    assert.equal(await loader.get(), good);
    assert.deepEqual(lines, [`files: config "${path}" is gone; keeping the last good config`]);
    await write(path, '{ "roots": ["/srv/c"] }');
    assert.deepEqual(await loader.get(), { roots: ["/srv/c"] });
  },
});

Deno.test({
  name:
    "Loader says a file deleted between the stat and the check is gone, not unsafe; an optional one means the defaults",
  permissions: files,
  async fn() {
    const { path, loader, lines } = await setup('{ "roots": ["/srv/a"] }');
    const good = await loader.get();
    await write(path, '{ "roots": ["/srv/b"] }');
    once(loader, "afterStamp", async () => {
      await Deno.remove(path);
    });
    assert.equal(await loader.get(), good);
    assert.deepEqual(lines, [`files: config "${path}" is gone; keeping the last good config`]);
    await write(path, '{ "roots": ["/srv/c"] }');
    assert.deepEqual(await loader.get(), { roots: ["/srv/c"] });

    // A tenant file deleted (a deploy's rm, then cp) just after the first stat: the defaults, as when it is absent.
    const optional = new Loader<Config>(path, fromSchema(schema), { optional: true, log: (line) => lines.push(line) });
    once(optional, "afterStamp", async () => {
      await Deno.remove(path);
    });
    assert.deepEqual(await optional.get(), { roots: [] });
  },
});

Deno.test({
  name: "Loader runs one reload at a time: a change that lands during a reload is read by the next, and wins",
  permissions: files,
  async fn() {
    const { path, loader } = await setup('{ "roots": ["/srv/a"] }');
    await loader.get();
    await write(path, '{ "roots": ["/srv/b"] }');
    const reached = Promise.withResolvers<void>();
    const release = Promise.withResolvers<void>();
    once(loader, "afterRead", async () => {
      reached.resolve();
      await release.promise;
    });
    const order: string[] = [];
    const older = loader.get().then((config) => (order.push(`older ${config.roots}`), config));
    await reached.promise;
    // b is read and not yet applied: c lands, and calls made now must see c.
    await write(`${path}.new`, '{ "roots": ["/srv/c"] }');
    await Deno.rename(`${path}.new`, path);
    const newer = [loader.get(), loader.get()].map((p) =>
      p.then((config) => (order.push(`newer ${config.roots}`), config))
    );
    release.resolve();
    assert.deepEqual(await older, { roots: ["/srv/b"] });
    const [first, second] = await Promise.all(newer);
    assert.equal(first, second);
    assert.deepEqual(first, { roots: ["/srv/c"] });
    // The older reload finished before the newer started: b was never applied after c.
    assert.deepEqual(order, ["older /srv/b", "newer /srv/c", "newer /srv/c"]);
    assert.equal(await loader.get(), first);
  },
});

Deno.test({
  name: "Loader follows content flipping A→B→A, in place and at one size, and never keeps B",
  permissions: files,
  async fn() {
    const [a, b] = ['{ "roots": ["/srv/a"] }', '{ "roots": ["/srv/b"] }'];
    const { path, loader, lines } = await setup(a);
    await loader.get();
    await overwriteInPlace(path, b);
    assert.deepEqual(await loader.get(), { roots: ["/srv/b"] });
    await overwriteInPlace(path, a);
    assert.deepEqual(await loader.get(), { roots: ["/srv/a"] });
    // Flipped to B and back while a reload is between its read of B and its hash: the next call sees A.
    raceHooks.set(loader, { afterRead: () => (raceHooks.delete(loader), overwriteInPlace(path, a)) });
    await overwriteInPlace(path, b);
    assert.deepEqual(await loader.get(), { roots: ["/srv/b"] });
    assert.deepEqual(await loader.get(), { roots: ["/srv/a"] });
    // A bad B between two A's: A stays, B is logged once, and A back is silent.
    const bad = '{ "roots": ["relative"] }';
    await write(path, bad);
    assert.deepEqual(await loader.get(), { roots: ["/srv/a"] });
    await write(path, a);
    assert.deepEqual(await loader.get(), { roots: ["/srv/a"] });
    await write(path, bad);
    assert.deepEqual(await loader.get(), { roots: ["/srv/a"] });
    assert.equal(lines.length, 1);
  },
});
