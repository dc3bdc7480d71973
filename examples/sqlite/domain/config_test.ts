import assert from "node:assert/strict";
import { ConfigSchema, MAX_ROWS_CEILING } from "./config.ts";

Deno.test("ConfigSchema: an empty config names no database, is read-only, refuses recursion, gives queries 5 s and 256 MiB, writes 1 GiB", () => {
  assert.deepEqual(ConfigSchema.parse({}), {
    max_rows: 100,
    writable: false,
    max_sql_length: 10_000,
    query_timeout_ms: 5_000,
    max_scan_rows: 100_000_000,
    max_memory_mb: 256,
    max_database_mb: 1_024,
    allow_recursive: false,
  });
});

Deno.test("ConfigSchema keeps query_timeout_ms under the tool's 10 s deadline, so the answer says why", () => {
  assert.equal(ConfigSchema.parse({ query_timeout_ms: 9_000 }).query_timeout_ms, 9_000);
  assert.throws(() => ConfigSchema.parse({ query_timeout_ms: 10_000 }), /query_timeout_ms/);
  assert.throws(() => ConfigSchema.parse({ query_timeout_ms: 50 }), /query_timeout_ms/);
});

Deno.test("ConfigSchema accepts a full config", () => {
  const config = ConfigSchema.parse({
    database: "shop.db",
    max_rows: 5,
    writable: true,
    max_sql_length: 500,
    allow_recursive: true,
    max_memory_mb: 16,
    audit_file: "audit.jsonl",
  });
  assert.equal(config.database, "shop.db");
  assert.equal(config.max_memory_mb, 16);
  assert.equal(ConfigSchema.parse({ max_memory_mb: 4_096 }).max_memory_mb, 4_096);
  assert.equal(ConfigSchema.parse({ max_database_mb: 1 }).max_database_mb, 1);
  assert.equal(config.writable, true);
});

Deno.test("ConfigSchema refuses :memory:, file: URIs, commas, unknown keys and out-of-range limits", () => {
  for (
    const bad of [
      { database: ":memory:" },
      { database: "file:shop.db?mode=rw" },
      { database: "a,b.db" },
      { database: "" },
      { databse: "typo.db" },
      { max_rows: 0 },
      { max_rows: MAX_ROWS_CEILING + 1 },
      { max_rows: 1.5 },
      { writable: "yes" },
      { max_sql_length: 10 },
      { max_memory_mb: 15 },
      { max_memory_mb: 4_097 },
      { max_memory_mb: 64.5 },
      { max_memory_mb: "64" },
      { max_database_mb: 0 },
      { max_database_mb: 1.5 },
      { max_database_mb: 1_048_577 },
      { database: "x.db", audit_file: "x.db" },
    ]
  ) {
    assert.equal(ConfigSchema.safeParse(bad).success, false, JSON.stringify(bad));
  }
});
