import assert from "node:assert/strict";
import {
  DATABASE_PROCESS_FLAG,
  databaseProcessArgs,
  isDatabaseProcess,
  parseDatabaseProcessArgs,
} from "./database_process_args.ts";

const WRITER = {
  database: "/srv/shop.db",
  writable: true,
  maxMemoryMb: 32,
  identity: { dev: 2049, ino: 18_446_744_073 },
  dropRead: ["/etc/s.json"],
  dropWrite: ["/var/a.jsonl"],
};

Deno.test("parseDatabaseProcessArgs() reads back what databaseProcessArgs() wrote, after a binary's baked arguments", () => {
  const args = databaseProcessArgs(WRITER);
  assert.deepEqual(args, [
    "--database-process",
    "/srv/shop.db",
    "--max-memory-mb=32",
    "--database-id=2049:18446744073",
    "--write",
    "--drop-read=/etc/s.json",
    "--drop-write=/var/a.jsonl",
  ]);
  assert.deepEqual(parseDatabaseProcessArgs(args), WRITER);
  assert.deepEqual(parseDatabaseProcessArgs(["-config", "/etc/s.json", ...args]), WRITER);
  for (const maxMemoryMb of [16, 256, 4_096]) {
    const reader = { database: "/srv/a,b.db", writable: false, maxMemoryMb, dropRead: [], dropWrite: [] };
    assert.deepEqual(parseDatabaseProcessArgs(databaseProcessArgs(reader)), reader);
  }
});

Deno.test("isDatabaseProcess() finds the flag wherever the baked arguments end, and only the flag", () => {
  assert.ok(isDatabaseProcess(["-config", "/etc/s.json", DATABASE_PROCESS_FLAG, "/srv/shop.db"]));
  assert.ok(!isDatabaseProcess(["-config", "/etc/s.json"]));
  assert.ok(!isDatabaseProcess(["--database-process=/srv/shop.db", "--health"]));
});

Deno.test("parseDatabaseProcessArgs() refuses a relative or missing database, a relative drop, a malformed or second file identity, an unknown word", () => {
  for (
    const args of [
      ["--database-process"],
      ["--database-process", "shop.db"],
      ["--database-process", "/srv/shop.db", "--max-memory-mb=64", "--drop-read=etc/s.json"],
      ["--database-process", "/srv/shop.db", "--max-memory-mb=64", "write"],
      ["--database-process", "/srv/shop.db", "--max-memory-mb=64", "--database-id=2049"],
      ["--database-process", "/srv/shop.db", "--max-memory-mb=64", "--database-id=1:2", "--database-id=3:4"],
      ["-config", "/etc/s.json"],
    ]
  ) {
    assert.throws(() => parseDatabaseProcessArgs(args), TypeError, args.join(" "));
  }
  assert.throws(
    () => parseDatabaseProcessArgs(["--database-process", "/srv/shop.db", "--max-memory-mb=64", "--drop-all"]),
    {
      message: 'Cannot start the database process: "--drop-all" is not one of its arguments',
    },
  );
});

Deno.test("parseDatabaseProcessArgs() refuses a process without its heap cap, or with one out of bounds, twice or not whole", () => {
  const need = "Cannot start the database process: it needs --max-memory-mb=<MiB>, a whole number from 16 to 4096";
  for (const caps of [[], ["--max-memory-mb=15"], ["--max-memory-mb=4097"], ["--max-memory-mb=0"]]) {
    assert.throws(() => parseDatabaseProcessArgs(["--database-process", "/srv/shop.db", ...caps]), { message: need });
  }
  for (const word of ["--max-memory-mb=32.5", "--max-memory-mb=-64", "--max-memory-mb=", "--max-memory-mb=1e3"]) {
    assert.throws(() => parseDatabaseProcessArgs(["--database-process", "/srv/shop.db", word]), {
      message: `Cannot start the database process: ${JSON.stringify(word)} is not one of its arguments`,
    });
  }
  assert.throws(
    () =>
      parseDatabaseProcessArgs(["--database-process", "/srv/shop.db", "--max-memory-mb=64", "--max-memory-mb=4096"]),
    /"--max-memory-mb=4096" is not one of its arguments/,
    "a second cap cannot override the first",
  );
});
