import assert from "node:assert/strict";
import { guardStdout } from "./stdout_guard.ts";

Deno.test("guardStdout() leaves Deno.stderr to Deno unless asked, and restore() puts every method back", () => {
  const before = { write: Deno.stderr.write, writeSync: Deno.stderr.writeSync, stdout: Deno.stdout.writeSync };
  const plain = guardStdout();
  try {
    assert.notEqual(Deno.stdout.writeSync, before.stdout, "stdout is diverted");
    assert.equal(Deno.stderr.writeSync, before.writeSync, "stderr is not, before serving");
  } finally {
    plain.restore();
  }
  const serving = guardStdout({ stderr: true });
  try {
    assert.notEqual(Deno.stderr.writeSync, before.writeSync);
    assert.notEqual(Deno.stderr.write, before.write);
    // Queued, never blocking: the count is what a synchronous write reports.
    assert.equal(Deno.stderr.writeSync(new TextEncoder().encode("queued by the guard test\n")), 25);
  } finally {
    serving.restore();
  }
  assert.equal(Deno.stderr.writeSync, before.writeSync);
  assert.equal(Deno.stderr.write, before.write);
  assert.equal(Deno.stdout.writeSync, before.stdout);
});
