// test-alone: it checks what importing the toolkit did to this isolate's Deno.stdout, which other files' guards change
import assert from "node:assert/strict";
import "./_guard_on_import.ts";

Deno.test("importing the toolkit in a test process leaves stdout and the console alone", () => {
  // The guard diverts by defining own properties on Deno.stdout; a test's output belongs to the runner.
  assert.equal(Object.getOwnPropertyDescriptor(Deno.stdout, "write"), undefined);
  assert.equal(Object.getOwnPropertyDescriptor(Deno.stdout, "writeSync"), undefined);
  assert.match(Deno.mainModule, /_test\.ts$/);
});
