// test-permissions: --allow-read={tmp} --allow-write={tmp} --allow-env=TMPDIR
import assert from "node:assert/strict";
import { openDatabase } from "./connection.ts";
import { DatabaseSizes } from "./database_sizes.ts";
import { makeFixture, TMP } from "./_fixture.ts";
import { openSqlite } from "./sqlite.ts";

const perms: Deno.PermissionOptions = { read: [TMP], write: [TMP], env: ["TMPDIR"] };

Deno.test({
  name: "DatabaseSizes counts rows up to its cap, and keeps counts until another connection commits",
  permissions: perms,
  fn() {
    const fixture = makeFixture();
    const db = openDatabase(fixture.db, false);
    const sizes = new DatabaseSizes(db);
    sizes.refresh(100);
    assert.ok(sizes.tables.has("orders") && sizes.tables.has("odd name") && !sizes.tables.has("big_orders"));
    assert.equal(sizes.rows("orders"), 3);
    assert.equal(sizes.rows("odd name"), 0);
    const writer = openSqlite(fixture.db, {});
    writer.exec("INSERT INTO orders (customer_id, total) VALUES (1, 1), (1, 2)");
    // Not refreshed: the count is the one kept.
    assert.equal(sizes.rows("orders"), 3);
    sizes.refresh(100);
    assert.equal(sizes.rows("orders"), 5);
    sizes.refresh(4);
    assert.equal(sizes.rows("orders"), 5, "a lower cap keeps what was counted");
    sizes.refresh(100);
    writer.exec("DELETE FROM orders");
    sizes.refresh(3);
    assert.equal(sizes.rows("orders"), 0);
    writer.exec("INSERT INTO orders (customer_id, total) SELECT 1, value FROM json_each('[1,2,3,4,5,6]')");
    sizes.refresh(3);
    assert.equal(sizes.rows("orders"), 3, "counted up to the cap");
    assert.ok(sizes.pages() >= 1);
    assert.equal(sizes.schemaEntries(), Number(db.prepare("SELECT count(*) AS n FROM sqlite_schema").get()?.n));
    writer.close();
    db.close();
    fixture.remove();
  },
});
