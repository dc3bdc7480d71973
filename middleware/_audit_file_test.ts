// test-permissions: --allow-read={tmp} --allow-write={tmp} --allow-run=flock
import assert from "node:assert/strict";
import { join } from "node:path";
import { AuditFile } from "./_audit_file.ts";
import { AuditLog, AuditUnavailable, MAX_RECORD_BYTES } from "./_audit_log.ts";
import { verifyAuditTrail } from "./verify_audit_trail.ts";

const base = await Deno.makeTempDir({ prefix: "audit_file_" });
globalThis.addEventListener("unload", () => Deno.removeSync(base, { recursive: true }));
const files = { read: [base], write: [base] };
let count = 0;
const fresh = (): string => join(base, `audit_${count++}.jsonl`);

Deno.test({
  name: "AuditFile creates its file readable by its owner only, and appends what it is given",
  permissions: files,
  async fn() {
    const path = fresh();
    const file = new AuditFile(path);
    assert.equal(await file.ready(false), undefined, "a new file has no last line");
    assert.equal((await Deno.stat(path)).mode! & 0o777, 0o600);
    await file.write('{"seq":0}\n', true);
    assert.equal(await file.ready(false), undefined, "the same file: nothing to link to again");
    await file.write('{"seq":1}\n', false);
    assert.equal(await file.ready(true), '{"seq":1}\n', "a recheck reads the same file's last line again");
    await file.close();
    assert.equal(await Deno.readTextFile(path), '{"seq":0}\n{"seq":1}\n');
  },
});

Deno.test({
  name: "AuditFile hands back the last line of a file it opens, newline included, or without one when cut",
  permissions: files,
  async fn() {
    const path = fresh();
    await Deno.writeTextFile(path, 'one\n{"seq":1}\n');
    const file = new AuditFile(path);
    assert.equal(await file.ready(false), '{"seq":1}\n');
    await file.close();
    await Deno.writeTextFile(path, 'one\n{"seq":1', { append: false });
    const cut = new AuditFile(path);
    assert.equal(await cut.ready(false), '{"seq":1');
    await cut.close();
    await Deno.writeTextFile(path, "single line, no newline");
    const single = new AuditFile(path);
    assert.equal(await single.ready(false), "single line, no newline");
    await single.close();
  },
});

Deno.test({
  name: "AuditFile reads back a last line that spans several read chunks",
  permissions: files,
  async fn() {
    const path = fresh();
    const long = `{"x":"${"a".repeat(150 * 1024)}"}`;
    await Deno.writeTextFile(path, `first\n${long}\n`);
    const file = new AuditFile(path);
    assert.equal(await file.ready(false), `${long}\n`);
    await file.close();
  },
});

Deno.test({
  name: "AuditFile refuses a file whose last line is longer than any record it could have written",
  permissions: files,
  async fn() {
    const path = fresh();
    await Deno.writeTextFile(path, `x\n${"a".repeat(4 * MAX_RECORD_BYTES + 1)}\n`);
    const file = new AuditFile(path);
    await assert.rejects(file.ready(false), (err: unknown) => {
      assert.ok(err instanceof AuditUnavailable);
      assert.equal(err.reason, "the audit file's last line is longer than any record");
      return true;
    });
    await file.close();
  },
});

Deno.test({
  name: "AuditFile follows a rotation to the new file, and reopen() opens the path again",
  permissions: files,
  async fn() {
    const path = fresh();
    const file = new AuditFile(path);
    await file.ready(false);
    await file.write("old\n", true);
    await Deno.rename(path, `${path}.1`);
    await Deno.writeTextFile(path, "rotated\n");
    assert.equal(await file.ready(false), "rotated\n", "a new file at the path: its last line to link to");
    await file.write("new\n", true);
    assert.equal(await Deno.readTextFile(`${path}.1`), "old\n");
    assert.equal(await Deno.readTextFile(path), "rotated\nnew\n");
    file.reopen();
    assert.equal(await file.ready(false), "new\n", "reopened though it is the same file");
    await file.close();
  },
});

Deno.test({
  name: "AuditFile refuses to write once its file was removed, with a reason that names no path",
  permissions: files,
  async fn() {
    const path = fresh();
    const file = new AuditFile(path);
    await file.ready(false);
    await Deno.remove(path);
    await assert.rejects(file.ready(false), (err: unknown) => {
      assert.ok(err instanceof AuditUnavailable);
      assert.equal(err.reason, "the audit file was removed; recreate it or send SIGUSR1 to reopen it");
      return true;
    });
    file.reopen();
    assert.equal(await file.ready(false), undefined, "reopen() recreates it");
    await file.close();
    await file.close();
  },
});

Deno.test({
  name: "AuditFile says it cannot open a path it may not write, without naming it",
  permissions: { read: [base], write: false },
  async fn() {
    const file = new AuditFile(fresh());
    await assert.rejects(file.ready(false), (err: unknown) => {
      assert.ok(err instanceof AuditUnavailable);
      assert.equal(err.reason, "the audit file cannot be opened (NotCapable)");
      return true;
    });
  },
});

Deno.test({
  name:
    "AuditFile refuses every batch once another writer cut, appended to or edited its file in place, until the path names another file or reopen()",
  permissions: files,
  async fn() {
    const changes: [string, (path: string) => Promise<void>][] = [
      ["cut", (path) => Deno.truncate(path, 5)],
      ["appended to", (path) => Deno.writeTextFile(path, '{"seq":9}\n', { append: true })],
      // The same size, another time: what an edit in place leaves (set, not waited for).
      ["edited", (path) => Deno.utime(path, new Date(2000, 0, 1), new Date(2000, 0, 1))],
    ];
    for (const [what, change] of changes) {
      const path = fresh();
      const file = new AuditFile(path);
      assert.equal(await file.ready(false), undefined);
      await file.write('{"seq":0}\n', true);
      await file.write('{"seq":1}\n', false);
      assert.equal(await file.ready(false), undefined, `${what}: its own writes are no change`);
      await change(path);
      for (const recheck of [false, true]) {
        await assert.rejects(
          () => file.ready(recheck),
          (err: unknown) => err instanceof AuditUnavailable && /changed in place by another writer/.test(err.message),
          `${what}, recheck ${recheck}`,
        );
      }
      // SIGUSR1: the operator says the file is as it should be; it is read back again.
      file.reopen();
      assert.equal(typeof (await file.ready(false) ?? ""), "string", what);
      await file.close();
    }
    const path = fresh();
    const file = new AuditFile(path);
    await file.ready(false);
    await file.write('{"seq":0}\n', true);
    await Deno.truncate(path, 0);
    await assert.rejects(() => file.ready(false), AuditUnavailable);
    // Moved aside and a new file made at the path (as logrotate's `create` does): that file is served.
    await Deno.rename(path, `${path}.aside`);
    await Deno.writeTextFile(path, "");
    assert.equal(await file.ready(false), undefined, "a new file at the path is served");
    await file.write('{"seq":1}\n', true);
    await file.close();
    assert.equal(await Deno.readTextFile(path), '{"seq":1}\n');
  },
});

Deno.test({
  name:
    "AuditFile takes turns with another trail on its file: two servers given one file never number two records alike",
  permissions: { ...files, run: ["flock"] },
  async fn() {
    const path = fresh();
    // util-linux flock(1) asks for the same lock without waiting: it fails while a batch holds it.
    const locked = async () => (await new Deno.Command("flock", { args: ["-n", path, "true"] }).output()).code !== 0;
    const first = new AuditFile(path);
    const second = new AuditFile(path);
    assert.equal(await first.ready(false), undefined);
    assert.equal(await locked(), true, "a batch holds the file's lock from its check");
    // The second trail looks at the file only once the first one's batch has ended.
    const turn = second.ready(false);
    await first.write('{"seq":0}\n', true);
    assert.equal(await locked(), true, "to its write");
    await first.release();
    assert.equal(await turn, '{"seq":0}\n', "it read the file back after the other's write");
    await second.write('{"seq":1}\n', true);
    await second.release();
    assert.equal(await locked(), false, "and lets go when it ends");
    await assert.rejects(
      () => first.ready(false),
      (err: unknown) => err instanceof AuditUnavailable && /changed in place by another writer/.test(err.message),
    );
    await first.release();
    await first.close();
    await second.close();
    assert.equal(await Deno.readTextFile(path), '{"seq":0}\n{"seq":1}\n');
    // Two chains appending at once: one links to the other's record, and the one behind refuses after that.
    const shared = fresh();
    const logs = [new AuditLog(new AuditFile(shared)), new AuditLog(new AuditFile(shared))];
    const seqs = await Promise.all(logs.map((log, i) => log.append({ event: "probe", n: i })));
    assert.deepEqual(seqs.toSorted(), [0, 1]);
    const again = await Promise.allSettled(logs.map((log, i) => log.append({ event: "probe", n: i })));
    assert.deepEqual(again.map((r) => r.status).toSorted(), ["fulfilled", "rejected"]);
    await Promise.all(logs.map((log) => log.close()));
    const verdict = await verifyAuditTrail(await Deno.readTextFile(shared));
    assert.deepEqual([verdict.ok, verdict.records], [true, 3]);
  },
});
