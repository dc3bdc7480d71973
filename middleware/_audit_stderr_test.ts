// test-alone: it replaces Deno.stderr.write for the whole isolate before any test writes
import assert from "node:assert/strict";
import { auditStderr } from "./_audit_stderr.ts";
import { AuditUnavailable } from "./_audit_log.ts";

// The toolkit's stderr queue binds Deno.stderr.write when first used, so this
// file puts its own in place before any test writes: the bytes land here, and
// a test decides when stderr breaks.
const written: string[] = [];
let broken = false;
Deno.stderr.write = (bytes: Uint8Array): Promise<number> => {
  if (broken) return Promise.reject(new Deno.errors.BrokenPipe("Broken pipe (os error 32)"));
  written.push(new TextDecoder().decode(bytes));
  return Promise.resolve(bytes.length);
};

Deno.test("auditStderr() writes a batch of records to stderr whole, in one write", async () => {
  const target = auditStderr(60_000);
  assert.equal(await target.ready(false), undefined, "stderr has no last line to link to");
  await target.write('{"seq":0}\n{"seq":1}\n', true);
  assert.deepEqual(written, ['{"seq":0}\n{"seq":1}\n']);
  await target.close();
});

Deno.test("auditStderr() fails a batch stderr does not take with AuditUnavailable, so the call fails closed", async () => {
  broken = true;
  const target = auditStderr(60_000);
  await assert.rejects(target.write('{"seq":2}\n', true), (err: unknown) => {
    assert.ok(err instanceof AuditUnavailable);
    assert.equal(err.reason, "stderr does not take the audit records");
    assert.match(err.detail, /^stderr does not take the audit records: Cannot write a record to stderr/);
    return true;
  });
  // Once broken, stderr stays refused: no later record is reported written.
  await assert.rejects(target.write('{"seq":3}\n', false), AuditUnavailable);
});
