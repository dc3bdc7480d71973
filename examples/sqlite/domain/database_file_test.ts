// test-permissions: --allow-run --allow-read={tmp} --allow-write={tmp} --allow-env=TMPDIR
// A link, or another file, put at the database's path after the server
// started: Deno checks the path, SQLite follows the link.
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { databaseFileProblem, databaseIdentity } from "./database_file.ts";
import { TMP } from "./_fixture.ts";

const perms: Deno.PermissionOptions = { read: [TMP], write: [TMP], env: ["TMPDIR"], run: ["sh"] };

/** Deno makes a symlink only under unscoped grants: sh makes it. */
async function symlink(target: string, path: string): Promise<void> {
  const ln = await new Deno.Command("sh", { args: ["-c", 'ln -s "$1" "$2"', "sh", target, path] }).output();
  assert.ok(ln.success);
}

function database(path: string): void {
  const db = new DatabaseSync(path);
  db.exec("CREATE TABLE t (n INTEGER)");
  db.close();
}

Deno.test({
  name:
    "databaseFileProblem() passes the file the server started with, and refuses a link swapped in, another file renamed over it, a linked folder, a folder, and a file gone",
  permissions: perms,
  async fn() {
    const dir = Deno.realPathSync(Deno.makeTempDirSync({ dir: TMP }));
    try {
      Deno.mkdirSync(join(dir, "data"));
      Deno.mkdirSync(join(dir, "outside"));
      const db = join(dir, "data", "shop.db");
      const outside = join(dir, "outside", "canary.db");
      database(db);
      database(outside);
      const identity = databaseIdentity(db)!;
      assert.deepEqual(identity, { dev: Deno.lstatSync(db).dev, ino: Deno.lstatSync(db).ino });
      assert.equal(databaseFileProblem(db, identity), undefined, "the file at start");
      assert.equal(databaseFileProblem(db), undefined, "a plain file at its real path, with no identity known");

      Deno.renameSync(db, join(dir, "data", "old.db"));
      await symlink(outside, db);
      assert.match(databaseFileProblem(db, identity)!, /^it is a link/);
      assert.match(databaseFileProblem(db)!, /^it is a link/, "a link is refused with no identity known too");
      assert.equal(databaseIdentity(join(dir, "nothing.db")), undefined);

      Deno.removeSync(db);
      Deno.linkSync(outside, db);
      assert.match(databaseFileProblem(db, identity)!, /^it is another file than the one the server started with/);
      assert.equal(databaseFileProblem(db, databaseIdentity(outside)), undefined, "the same file under two names");

      await symlink(join(dir, "data"), join(dir, "linked"));
      assert.match(
        databaseFileProblem(join(dir, "linked", "shop.db"))!,
        /^it is reached through a linked folder \(its real path is .*\/data\/shop\.db\)/,
      );

      Deno.removeSync(db);
      assert.equal(databaseFileProblem(db, identity), "it is gone since the server started");
      assert.equal(databaseFileProblem(db), undefined, "no file and no identity: SQLite says it cannot open it");
      Deno.mkdirSync(db);
      assert.equal(databaseFileProblem(db, identity), "it is not a plain file");
    } finally {
      Deno.removeSync(dir, { recursive: true });
    }
  },
});
