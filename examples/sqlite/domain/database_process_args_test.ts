import assert from "node:assert/strict";
import {
  DATABASE_PROCESS_FLAG,
  databaseProcessArgs,
  isDatabaseProcess,
  parseDatabaseProcessArgs,
} from "./database_process_args.ts";

const WRITER = { database: "/srv/shop.db", writable: true, dropRead: ["/etc/s.json"], dropWrite: ["/var/a.jsonl"] };

Deno.test("parseDatabaseProcessArgs() reads back what databaseProcessArgs() wrote, after a binary's baked arguments", () => {
  const args = databaseProcessArgs(WRITER);
  assert.deepEqual(args, [
    "--database-process",
    "/srv/shop.db",
    "--write",
    "--drop-read=/etc/s.json",
    "--drop-write=/var/a.jsonl",
  ]);
  assert.deepEqual(parseDatabaseProcessArgs(args), WRITER);
  assert.deepEqual(parseDatabaseProcessArgs(["-config", "/etc/s.json", ...args]), WRITER);
  const reader = { database: "/srv/a,b.db", writable: false, dropRead: [], dropWrite: [] };
  assert.deepEqual(parseDatabaseProcessArgs(databaseProcessArgs(reader)), reader);
});

Deno.test("isDatabaseProcess() finds the flag wherever the baked arguments end, and only the flag", () => {
  assert.ok(isDatabaseProcess(["-config", "/etc/s.json", DATABASE_PROCESS_FLAG, "/srv/shop.db"]));
  assert.ok(!isDatabaseProcess(["-config", "/etc/s.json"]));
  assert.ok(!isDatabaseProcess(["--database-process=/srv/shop.db", "--health"]));
});

Deno.test("parseDatabaseProcessArgs() refuses a relative or missing database, a relative drop and an unknown word", () => {
  for (
    const args of [
      ["--database-process"],
      ["--database-process", "shop.db"],
      ["--database-process", "/srv/shop.db", "--drop-read=etc/s.json"],
      ["--database-process", "/srv/shop.db", "write"],
      ["-config", "/etc/s.json"],
    ]
  ) {
    assert.throws(() => parseDatabaseProcessArgs(args), TypeError, args.join(" "));
  }
  assert.throws(() => parseDatabaseProcessArgs(["--database-process", "/srv/shop.db", "--drop-all"]), {
    message: 'Cannot start the database process: "--drop-all" is not one of its arguments',
  });
});
