import assert from "node:assert/strict";
import { formatPath } from "./_field_path.ts";

Deno.test("formatPath() writes keys with dots, indexes in brackets, odd keys quoted", () => {
  assert.equal(formatPath([]), "(root)");
  assert.equal(formatPath(["db", "password"]), "db.password");
  assert.equal(formatPath(["roots", 0]), "roots[0]");
  assert.equal(formatPath(["headers", "x-api-key"]), 'headers["x-api-key"]');
  assert.equal(formatPath([3, "a"]), "[3].a");
});

Deno.test("formatPath() cuts a huge key short", () => {
  const out = formatPath(["k".repeat(10_000)]);
  assert.ok(out.length < 80);
  assert.ok(out.endsWith('…"]'));
});
