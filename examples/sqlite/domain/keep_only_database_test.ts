// test-permissions: --allow-read=/srv/forge --allow-write=/srv/forge --allow-env=FORGE_TENANT_CONFIG --allow-run
// Real Deno permissions, no files: each test grants what a compiled server's
// binary bakes in, and its database process lets go of all but the database.
import assert from "node:assert/strict";
import { keepOnlyDatabase } from "./keep_only_database.ts";

// Paths are only named, never opened: a grant needs no file behind it.
const [config, db, audit, other] = [
  "/srv/forge/sqlite.json",
  "/srv/forge/shop.db",
  "/srv/forge/audit.jsonl",
  "/srv/forge/other",
];
const self = Deno.execPath();
const state = (descriptor: Deno.PermissionDescriptor) => Deno.permissions.querySync(descriptor).state;

Deno.test({
  name: "keepOnlyDatabase() leaves a read-only process reading its database only: config, audit file, env and run go",
  permissions: { read: [config, db, audit], write: [audit], env: ["FORGE_TENANT_CONFIG"], run: [self] },
  fn() {
    assert.equal(state({ name: "read", path: config }), "granted", "the grants were in place before");
    const left = keepOnlyDatabase({ database: db, writable: false, dropRead: [config, audit], dropWrite: [audit] });
    assert.deepEqual(left, []);
    assert.equal(state({ name: "read", path: db }), "granted");
    for (
      const descriptor of [
        { name: "read", path: config },
        { name: "read", path: audit },
        { name: "write", path: audit },
        { name: "write", path: db },
        { name: "env", variable: "FORGE_TENANT_CONFIG" },
        { name: "run", command: self },
      ] as const
    ) {
      assert.notEqual(state(descriptor), "granted", JSON.stringify(descriptor));
    }
    assert.throws(() => Deno.readTextFileSync(config), Deno.errors.NotCapable);
  },
});

Deno.test({
  name:
    "keepOnlyDatabase() leaves the writer reading and writing its database, reading its journal, and lets the audit file go",
  permissions: {
    read: [config, db, `${db}-journal`, audit],
    write: [audit, db],
    env: ["FORGE_TENANT_CONFIG"],
    run: [self],
  },
  fn() {
    const left = keepOnlyDatabase({
      database: db,
      writable: true,
      dropRead: [config, `${db}-journal`, audit],
      dropWrite: [audit],
    });
    assert.deepEqual(left, []);
    assert.equal(state({ name: "read", path: db }), "granted");
    assert.equal(state({ name: "write", path: db }), "granted");
    assert.equal(state({ name: "read", path: `${db}-journal` }), "granted", "read before a write (super_journal.ts)");
    assert.notEqual(state({ name: "write", path: `${db}-journal` }), "granted");
    assert.notEqual(state({ name: "write", path: audit }), "granted");
    assert.notEqual(state({ name: "read", path: config }), "granted");
  },
});

Deno.test({
  name: "keepOnlyDatabase() keeps a file it is not told about: Deno cannot list grants, so the server names them all",
  permissions: { read: [db, other] },
  fn() {
    assert.deepEqual(keepOnlyDatabase({ database: db, writable: false, dropRead: [], dropWrite: [] }), []);
    assert.equal(state({ name: "read", path: other }), "granted");
  },
});
