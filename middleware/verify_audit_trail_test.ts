import assert from "node:assert/strict";
import { connectInMemory, probe } from "@forge/toolkit/testing";
import { text } from "@forge/toolkit";
import { auditTrail, verifyAuditTrail } from "./mod.ts";
import { sha256Hex } from "../internal/sha256_hex.ts";
import { lateTrail, putServer } from "./testdata/late_trail.ts";

/** A real trail: three calls (intent + outcome each) and a probe, eight lines. */
async function trail(): Promise<string[]> {
  const lines: string[] = [];
  const s = putServer(() => text("put"));
  const audit = auditTrail({ server: "v", sink: (line) => void lines.push(line) });
  const session = await connectInMemory(s, { serve: { middleware: [audit] } });
  for (const k of ["a", "b", "c"]) await session.client.callTool({ name: "put", arguments: { k } });
  await probe(session.client, "put", { k: "d" });
  await session.close();
  await audit.close();
  return lines;
}

const join = (lines: string[]) => lines.map((l) => l + "\n").join("");

Deno.test("verifyAuditTrail() accepts an untouched trail and names its last record", async () => {
  const lines = await trail();
  assert.equal(lines.length, 7);
  const verdict = await verifyAuditTrail(join(lines));
  assert.equal(verdict.ok, true);
  assert.equal(verdict.records, 7);
  assert.equal(verdict.last?.seq, 6);
  assert.deepEqual(verdict.openIntents, []);
  assert.ok((await verifyAuditTrail(join(lines), { head: verdict.last })).ok, "its own head is found unchanged");
});

Deno.test("verifyAuditTrail() finds an edited, deleted, inserted or reordered line, wherever it is", async () => {
  const lines = await trail();
  const head = (await verifyAuditTrail(join(lines))).last;
  for (let i = 0; i < lines.length; i++) {
    const edited = lines.with(i, lines[i].replace(/"tool":"put"/, '"tool":"pot"').replace('"seq":', '"seq": '));
    const deleted = lines.toSpliced(i, 1);
    const inserted = lines.toSpliced(i, 0, lines[i]);
    const reordered = i + 1 < lines.length ? lines.with(i, lines[i + 1]).with(i + 1, lines[i]) : undefined;
    for (const [kind, changed] of Object.entries({ edited, deleted, inserted, reordered })) {
      if (changed === undefined) continue;
      // The shipped head covers the last line and records cut off the end.
      const verdict = await verifyAuditTrail(join(changed), { head });
      assert.equal(verdict.ok, false, `${kind} line ${i + 1}`);
      assert.ok(verdict.broken!.line <= i + 2, `${kind} line ${i + 1} is reported at or right after it`);
    }
  }
});

Deno.test("verifyAuditTrail() finds records cut off the end (with the shipped head), a removed first line and a torn last line", async () => {
  const lines = await trail();
  const cut = await verifyAuditTrail(join(lines.slice(0, -1)), { head: (await verifyAuditTrail(join(lines))).last });
  assert.match(cut.broken!.reason, /before the shipped head seq 6: records were cut off/);
  assert.equal((await verifyAuditTrail(join(lines.slice(1)))).broken?.line, 1, "the first line removed");
  const torn = join(lines).slice(0, -5);
  assert.match((await verifyAuditTrail(torn)).broken!.reason, /not an audit record|not complete/);
});

Deno.test("verifyAuditTrail() reports an intent without an outcome (a crash) without calling the chain broken", async () => {
  const lines = await trail();
  const verdict = await verifyAuditTrail(join(lines.slice(0, 5)));
  assert.equal(verdict.ok, true);
  assert.deepEqual(verdict.openIntents, [4]);
});

Deno.test("verifyAuditTrail() checks a rotated file against the one before, and skips foreign lines when asked", async () => {
  const lines = await trail();
  const first = await verifyAuditTrail(join(lines.slice(0, 4)));
  assert.ok((await verifyAuditTrail(join(lines.slice(4)), { after: first.last })).ok);
  assert.match((await verifyAuditTrail(join(lines.slice(4)))).broken!.reason, /seq 4 follows seq -1/);
  const mixed = lines.flatMap((l) => ["server: a log line", l]);
  assert.equal((await verifyAuditTrail(join(mixed))).ok, false);
  assert.equal((await verifyAuditTrail(join(mixed), { skipOtherLines: true })).ok, true);
});

/** The records given, numbered and linked again as a writer would: only the verifier's other rules can refuse them. */
async function rechained(records: Record<string, unknown>[]): Promise<string[]> {
  const lines: string[] = [];
  let prev = "0".repeat(64);
  for (const [seq, { seq: _, prev: __, ...fields }] of records.entries()) {
    const line = JSON.stringify({ seq, prev, ...fields });
    lines.push(line);
    prev = await sha256Hex(line);
  }
  return lines;
}

Deno.test("verifyAuditTrail() accepts a late record after its call's timeout, and refuses one forged, repeated or unlinked", async () => {
  const lines = await lateTrail(true);
  const records = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
  assert.deepEqual(records.map((r) => `${r.event}:${r.outcome ?? r.ended ?? ""}`), [
    ...["intent:", "outcome:timeout", "late:ok", "intent:", "outcome:ok"],
  ]);
  const verdict = await verifyAuditTrail(join(lines));
  assert.deepEqual([verdict.ok, verdict.records, verdict.openIntents], [true, 5, []]);
  assert.ok((await verifyAuditTrail(join(await rechained(records)))).ok, "rechaining alone changes nothing");
  const late = records[2];
  const refused = {
    repeated: records.toSpliced(3, 0, late),
    "repeated later": [...records, late],
    "before its outcome": [records[0], late, records[1], ...records.slice(3)],
    "after an ok outcome": [...records, { ...late, intent: 3 }],
    "for an open intent": [...records.slice(0, 4), { ...late, intent: 3 }, records[4]],
    "for no intent": [...records, { ...late, intent: 99 }],
    "for a probe": [...records, { seq: 0, prev: "", event: "probe", outcome: "probe" }, { ...late, intent: 5 }],
  };
  for (const [kind, changed] of Object.entries(refused)) {
    const broken = (await verifyAuditTrail(join(await rechained(changed)))).broken;
    assert.match(broken?.reason ?? "accepted", /no timeout or aborted outcome before it, or it was said already/, kind);
  }
  const malformed = {
    "intent null": { ...late, intent: null },
    "no intent": { ...late, intent: undefined },
    "an unknown end": { ...late, ended: "maybe" },
    "no end": { ...late, ended: undefined },
  };
  for (const [kind, changed] of Object.entries(malformed)) {
    const broken = (await verifyAuditTrail(join(await rechained(records.with(2, changed))))).broken;
    assert.deepEqual(broken, { line: 3, reason: "it is not an audit record" }, kind);
  }
});

Deno.test("verifyAuditTrail() takes one late record for a call whose outcome is in the file before a rotation", async () => {
  const lines = await lateTrail(true);
  const first = await verifyAuditTrail(join(lines.slice(0, 2)));
  assert.ok((await verifyAuditTrail(join(lines.slice(2)), { after: first.last })).ok);
  const records = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
  // Linked to the first file's last record, then a second late record for the same call.
  const again = await rechained([...records, records[2]]);
  const verdict = await verifyAuditTrail(join(again.slice(2)), { after: first.last });
  assert.match(verdict.broken?.reason ?? "accepted", /it was said already/);
  assert.equal(verdict.broken?.line, 4);
});
