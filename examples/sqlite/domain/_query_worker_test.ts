// test-permissions: --allow-read={tmp} --allow-write={tmp} --allow-env=TMPDIR
import assert from "node:assert/strict";
import { AUTH } from "./_sqlite.ts";
import { THREAD_SOURCE, type ThreadJob, type ThreadReply } from "./_query_worker.ts";
import { connectionOptions, MAX_SQLITE_HEAP_BYTES, MAX_VALUE_BYTES, openDatabase } from "./connection.ts";
import { makeFixture, TMP } from "./_fixture.ts";
import { planQuery } from "./query.ts";

const fixture = makeFixture();
const reader = openDatabase(fixture.db, false);
const { plan, approved } = planQuery(reader, "SELECT count(*) AS n FROM orders a, orders b", {
  maxRows: 10,
  maxSqlLength: 1_000,
  allowRecursive: false,
});
reader.close();

/** Posts each job in turn to a thread made from THREAD_SOURCE, and collects the replies. */
async function ask(jobs: Partial<Omit<ThreadJob, "open">>[]): Promise<ThreadReply[]> {
  const url = URL.createObjectURL(new Blob([THREAD_SOURCE], { type: "text/javascript" }));
  const worker = new Worker(url, { type: "module" });
  URL.revokeObjectURL(url);
  const open = {
    path: fixture.db,
    options: { ...connectionOptions(false) },
    maxValueBytes: MAX_VALUE_BYTES,
    maxHeapBytes: MAX_SQLITE_HEAP_BYTES,
  };
  const replies: ThreadReply[] = [];
  try {
    for (const job of jobs) {
      replies.push(
        await new Promise<ThreadReply>((resolve) => {
          worker.onmessage = (event) => resolve(event.data);
          worker.postMessage({
            open,
            plan,
            approved,
            auth: { ok: AUTH.OK, deny: AUTH.DENY },
            cancel: new SharedArrayBuffer(4),
            ...job,
          });
        }),
      );
    }
  } finally {
    worker.terminate();
  }
  return replies;
}

Deno.test({
  name: "the thread's source needs no module file: with read access to the database file alone it runs a plan",
  permissions: { read: [fixture.db] },
  async fn() {
    const [reply] = await ask([{}]);
    assert.deepEqual(reply, { kind: "rows", result: { rows: [{ n: 9n }], truncated: false } });
    assert.equal((await Deno.permissions.query({ name: "read", path: TMP })).state, "prompt");
  },
});

Deno.test({
  name: "the thread prices the plan's nests with its own row counts before it reads, and refuses past the budget",
  permissions: { read: [fixture.db] },
  async fn() {
    const nests = [[["orders"], ["orders"]]];
    const replies = await ask([{ cost: { nests, maxScanRows: 9, virtualRows: 1000 } }, {
      cost: { nests, maxScanRows: 8, virtualRows: 1000 },
    }, { cost: { nests: [[[], 2]], maxScanRows: 1999, virtualRows: 1000 } }]);
    assert.equal(replies[0].kind, "rows");
    assert.deepEqual(replies.slice(1).map((reply) => reply.kind === "error" && reply.message), [
      "its plan would visit about 9 rows (3 × 3), more than max_scan_rows (8); join on indexed columns, filter " +
      "with WHERE, or join fewer tables",
      // A loop tied to no table is priced at least as VIRTUAL_ROWS.
      "its plan would visit about 2,000 rows (1,000 × 2), more than max_scan_rows (1,999); join on indexed " +
      "columns, filter with WHERE, or join fewer tables",
    ]);
  },
});

Deno.test({
  name: "the thread caps SQLite's heap for the process: a row of 400 columns of 1 MiB fails instead of growing it",
  permissions: { read: [fixture.db] },
  async fn() {
    const db = openDatabase(fixture.db, false);
    const columns = Array.from({ length: 400 }, (_, i) => `printf('%.*c', 1048000, 'x') AS c${i}`);
    const sizes = columns.map((_, i) => `length(c${i})`).join(" + ");
    // The LIMIT keeps the inner query whole: SQLite builds its rows with every column at once.
    const wide = planQuery(db, `SELECT ${sizes} AS n FROM (SELECT ${columns.join(", ")} FROM orders LIMIT 2)`, {
      maxRows: 10,
      maxSqlLength: 100_000,
      allowRecursive: false,
    });
    db.close();
    // PRAGMA hard_heap_limit only ever lowers the limit: this sets the one the server runs with, no lower.
    const [capped] = await ask([{ plan: wide.plan, approved: wide.approved }]);
    assert.deepEqual(capped, { kind: "error", message: "out of memory", code: "ERR_SQLITE_ERROR", aborted: false });
  },
});

Deno.test({
  name: "(cleanup)",
  permissions: { read: [TMP], write: [TMP], env: ["TMPDIR"] },
  fn: () => fixture.remove(),
});
