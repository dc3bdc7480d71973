import assert from "node:assert/strict";
import { sha256Hex } from "../internal/sha256_hex.ts";
import { AuditLog, type AuditTarget, AuditUnavailable, MAX_RECORD_BYTES, unavailable } from "./_audit_log.ts";

/**
 * A target in memory: what was written, batch by batch, and what ready() hands
 * back next (`tail`, once, as a file just opened; with `recheck`, the last line
 * of the file as it now ends).
 */
class MemoryTarget implements AuditTarget {
  writes: { text: string; sync: boolean }[] = [];
  tail: string | undefined;
  ends: string | undefined;
  failWrite: Error | undefined;
  closed = false;

  ready(recheck: boolean): Promise<string | undefined> {
    const tail = this.tail ?? (recheck ? this.ends : undefined);
    if (this.tail !== undefined) this.ends = this.tail;
    this.tail = undefined;
    return Promise.resolve(tail);
  }

  write(text: string, sync: boolean): Promise<void> {
    if (this.failWrite) return Promise.reject(this.failWrite);
    this.writes.push({ text, sync });
    return Promise.resolve();
  }

  close(): Promise<void> {
    this.closed = true;
    return Promise.resolve();
  }

  lines(): Record<string, unknown>[] {
    return this.writes.flatMap((w) => w.text.trimEnd().split("\n")).map((line) => JSON.parse(line));
  }
}

Deno.test("AuditLog numbers records from 0 and links each to the sha256 of the line before it", async () => {
  const target = new MemoryTarget();
  const log = new AuditLog(target);
  assert.equal(await log.append({ event: "intent", tool: "a" }), 0);
  assert.equal(await log.append({ event: "outcome", tool: "a" }), 1);
  const raw = target.writes.map((w) => w.text.slice(0, -1));
  const [first, second] = target.lines();
  assert.deepEqual(first, { seq: 0, prev: "0".repeat(64), event: "intent", tool: "a" });
  assert.equal(second.seq, 1);
  assert.equal(second.prev, await sha256Hex(raw[0]));
  assert.ok(target.writes.every((w) => w.text.endsWith("\n")));
});

Deno.test("AuditLog writes the records appended during a write as one batch, synced when any of them asks", async () => {
  const target = new MemoryTarget();
  const log = new AuditLog(target);
  // The first starts a write at once; the next three queue behind it.
  const seqs = await Promise.all([
    log.append({ n: 0 }, false),
    log.append({ n: 1 }, false),
    log.append({ n: 2 }, true),
    log.append({ n: 3 }, false),
  ]);
  assert.deepEqual(seqs, [0, 1, 2, 3]);
  assert.deepEqual(target.writes.map((w) => [w.text.split("\n").length - 1, w.sync]), [[1, false], [3, true]]);
  assert.deepEqual(target.lines().map((r) => r.n), [0, 1, 2, 3]);
});

Deno.test("AuditLog refuses a record over the size cap alone: the rest of its batch is written with no gap in seq", async () => {
  const target = new MemoryTarget();
  const log = new AuditLog(target);
  // Multi-byte characters: the cap counts UTF-8 bytes, not characters.
  const huge = "é".repeat(MAX_RECORD_BYTES / 2);
  const [before, tooBig, after] = await Promise.allSettled([
    log.append({ n: "before" }),
    log.append({ n: huge }),
    log.append({ n: "after" }),
  ]);
  assert.deepEqual([before, after].map((r) => r.status === "fulfilled" && r.value), [0, 1]);
  assert.equal(tooBig.status, "rejected");
  const reason = (tooBig as PromiseRejectedResult).reason;
  assert.ok(reason instanceof AuditUnavailable);
  assert.match(reason.message, /^Cannot write the audit record: the record would take \d+ bytes, over the 262144/);
  const lines = target.lines();
  assert.deepEqual(lines.map((r) => r.seq), [0, 1]);
  assert.equal(lines[1].prev, await sha256Hex(target.writes[0].text.split("\n")[0]));
});

Deno.test("AuditLog continues the chain of a file that already ends with a record", async () => {
  const target = new MemoryTarget();
  const last = JSON.stringify({ seq: 41, prev: "a".repeat(64), event: "outcome" });
  target.tail = `${last}\n`;
  const log = new AuditLog(target);
  assert.equal(await log.append({ event: "intent" }), 42);
  assert.equal(target.lines()[0].prev, await sha256Hex(last));
});

Deno.test("AuditLog refuses to link to a file that ends in a partial line or in something not a record", async () => {
  const cases: [string, RegExp][] = [
    ['{"seq":3,"prev":"x"', /ends in a partial line/],
    ["hello\n", /does not end with an audit record/],
    ['{"seq":-1}\n', /does not end with an audit record/],
    ['{"seq":"7"}\n', /does not end with an audit record/],
    ['{"seq":1.5}\n', /does not end with an audit record/],
    ["null\n", /does not end with an audit record/],
  ];
  for (const [tail, message] of cases) {
    const target = new MemoryTarget();
    target.tail = tail;
    const log = new AuditLog(target);
    await assert.rejects(log.append({ event: "intent" }), (err: unknown) => {
      assert.ok(err instanceof AuditUnavailable, tail);
      assert.match(err.message, message, tail);
      return true;
    });
    assert.equal(target.writes.length, 0, "nothing written after an unknown tail");
  }
});

Deno.test("AuditLog after a rotation takes an empty file or the same last record, and refuses a file replaced under it", async () => {
  const target = new MemoryTarget();
  const log = new AuditLog(target);
  await log.append({ n: 0 });
  const written = target.writes[0].text;
  // Rotated to an empty file: ready() hands back nothing, the chain goes on.
  assert.equal(await log.append({ n: 1 }), 1);
  target.tail = target.writes[1].text;
  assert.equal(await log.append({ n: 2 }), 2, "reopened on the same file");
  target.tail = written;
  await assert.rejects(log.append({ n: 3 }), /the audit file was replaced/);
});

Deno.test("AuditLog refuses every batch after a file that did not link, until it ends with the last record or is empty", async () => {
  const target = new MemoryTarget();
  const log = new AuditLog(target);
  await log.append({ n: 0 });
  const last = target.writes[0].text;
  for (const forged of ['{"forged":true}\n', `${last}{"seq":1,"pre`]) {
    target.tail = forged;
    for (let batch = 0; batch < 3; batch++) {
      await assert.rejects(log.append({ n: "refused" }), /the audit file (was replaced|ends in a partial line)/);
    }
    assert.equal(target.writes.length, 1, "nothing appended to a file that does not end with the last record");
  }
  // The operator put the original back: the chain goes on from it.
  target.ends = last;
  assert.equal(await log.append({ n: 1 }), 1);
  target.ends = '{"forged":true}\n';
  target.tail = target.ends;
  await assert.rejects(log.append({ n: "refused" }), /the audit file was replaced/);
  // The operator moved it aside: a new, empty file continues the chain.
  target.ends = undefined;
  assert.equal(await log.append({ n: 2 }), 2);
  assert.deepEqual(target.lines().map((r) => r.n), [0, 1, 2]);
});

Deno.test("AuditLog rejects every record of a batch the target failed to write, and reuses their seq", async () => {
  const target = new MemoryTarget();
  const log = new AuditLog(target);
  await log.append({ n: 0 });
  target.failWrite = unavailable(
    "the audit file cannot be written",
    Object.assign(new Error("No space left on device"), { code: "ENOSPC" }),
  );
  const failed = await Promise.allSettled([log.append({ n: 1 }), log.append({ n: 2 })]);
  assert.deepEqual(failed.map((r) => r.status), ["rejected", "rejected"]);
  target.failWrite = undefined;
  assert.equal(await log.append({ n: 3 }), 1);
  const lines = target.lines();
  assert.equal(lines[1].prev, await sha256Hex(target.writes[0].text.slice(0, -1)));
});

Deno.test("AuditLog.close() waits for the records already appended, then closes the target", async () => {
  const target = new MemoryTarget();
  const log = new AuditLog(target);
  const pending = log.append({ n: 0 });
  await log.close();
  assert.equal(target.writes.length, 1);
  assert.equal(target.closed, true);
  assert.equal(await pending, 0);
});

Deno.test("unavailable() names the error's code in the reason the model may see, and keeps the message for stderr", () => {
  const err = unavailable("the audit file cannot be opened", new Deno.errors.PermissionDenied("open '/secret/a.log'"));
  assert.equal(err.reason, "the audit file cannot be opened (PermissionDenied)");
  assert.equal(err.detail, "the audit file cannot be opened: open '/secret/a.log'");
  assert.ok(!err.message.includes("/secret"));
  assert.equal(err.name, "AuditUnavailable");
  const coded = unavailable("x", Object.assign(new Error("boom"), { code: "EIO" }));
  assert.equal(coded.reason, "x (EIO)");
  assert.equal(unavailable("x", new Error("plain")).reason, "x");
  assert.equal(unavailable("x", "a string").detail, "x: a string");
});

Deno.test("AuditLog writes U+0085, U+2028 and U+2029 escaped: a value a client chose never splits a record for any reader", async () => {
  const target = new MemoryTarget();
  const log = new AuditLog(target);
  const id = 'a\u2028{"seq":1,"prev":"x"}\u2029b\u0085c';
  await log.append({ event: "intent", id });
  await log.append({ event: "outcome", intent: 0 });
  await log.close();
  const text = target.writes.map((w) => w.text).join("");
  assert.ok(!/[\u0085\u2028\u2029]/.test(text), "no raw separator is written");
  // Python's splitlines() and the like see the two records, and no third.
  // deno-lint-ignore no-control-regex -- the line breaks splitlines() knows
  assert.equal(text.split(/\r\n|[\n\r\v\f\u001c-\u001e\u0085\u2028\u2029]/).filter((l) => l !== "").length, 2);
  assert.equal(target.lines()[0].id, id, "the same value once parsed");
  const [first, second] = text.trimEnd().split("\n");
  assert.equal(JSON.parse(second).prev, await sha256Hex(first), "the chain links the line as written");
});
