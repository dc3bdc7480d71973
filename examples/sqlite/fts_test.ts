// test-permissions: --allow-run --allow-read={repo},{tmp} --allow-write={tmp} --allow-env={child-env}
// Full-text tables in a hostile file, against the server as a real subprocess
// started with exactly the flags it prints, over real stdio: a broken index or
// config is a clear refusal, a MATCH that would run for minutes stops at the
// deadline, and nothing is written. One small database (one row of 100 KB).
import assert from "node:assert/strict";
import { openSqlite } from "./domain/sqlite.ts";
import { spawnRaw } from "@forge/toolkit/testing";
import { REPO, reusedTree, SCRIPT } from "./_e2e.ts";

const perms: Deno.PermissionOptions = { run: [Deno.execPath()], read: "inherit", write: "inherit", env: "inherit" };

/** FTS5, FTS4 and FTS3 tables, then each one broken as a file could be. */
const TABLES = `
  CREATE VIRTUAL TABLE ok5 USING fts5(body);
  INSERT INTO ok5 VALUES ('quick brown fox');
  CREATE VIRTUAL TABLE many USING fts5(body);
  INSERT INTO many VALUES ('${"a ".repeat(50_000)}');
  CREATE VIEW many_view AS SELECT rowid AS id, body FROM many;
  CREATE VIRTUAL TABLE bad_version USING fts5(body);
  INSERT INTO bad_version VALUES ('quick');
  CREATE VIRTUAL TABLE bad_rank USING fts5(body);
  INSERT INTO bad_rank VALUES ('quick');
  INSERT INTO bad_rank (bad_rank, rank) VALUES ('rank', 'bm25(1)');
  CREATE VIRTUAL TABLE bad_index USING fts5(body);
  INSERT INTO bad_index VALUES ('quick brown');
  CREATE VIRTUAL TABLE bad_tokenizer USING fts5(body);
  INSERT INTO bad_tokenizer VALUES ('quick');
  CREATE VIRTUAL TABLE bad4 USING fts4(body);
  INSERT INTO bad4 VALUES ('quick');
  CREATE VIRTUAL TABLE bad_uncompress USING fts4(body, compress=hex, uncompress=unhex);
  INSERT INTO bad_uncompress VALUES ('quick');`;
/** What another program (or a forger) does to them: SQLite's own checks off, the file edited. */
const BREAK = `
  PRAGMA writable_schema = ON;
  UPDATE bad_version_config SET v = 99 WHERE k = 'version';
  UPDATE bad_rank_config SET v = 'no_such_function(1, 2)' WHERE k = 'rank';
  UPDATE bad_index_data SET block = x'ffffffffffffffff' WHERE id > 1;
  UPDATE sqlite_schema SET sql = 'CREATE VIRTUAL TABLE bad_tokenizer USING fts5(body, tokenize=no_such_tokenizer)'
    WHERE name = 'bad_tokenizer';
  UPDATE bad4_segdir SET root = x'0102ffffffff';
  UPDATE sqlite_schema
    SET sql = 'CREATE VIRTUAL TABLE bad_uncompress USING fts4(body, compress=hex, uncompress=load_extension)'
    WHERE name = 'bad_uncompress';`;
/**
 * 256 phrases NEAR each other over a row of 50,000 hits: FTS5 takes many seconds over it (64 phrases take a fraction
 * of that) with little memory, so the deadline stops it, not the heap cap. Many more phrases (2,000) can fill the
 * 256 MiB heap cap before the deadline on a fast machine, and the call then says "out of memory" instead.
 */
const NEAR_BOMB = `NEAR(${"a ".repeat(256)}, 50000)`;

interface Reply {
  id: number;
  result?: { isError?: boolean; content: { text: string }[]; structuredContent?: { rows: unknown[] } };
}

Deno.test({
  name:
    "a hostile file's full-text tables (wrong version, rank of no function, corrupt index, unknown tokenizer, corrupt FTS4 segment, uncompress=load_extension) are clear refusals, a MATCH bomb stops at its deadline, MATCH through a view alike; the server serves on and writes nothing",
  permissions: perms,
  async fn() {
    const shared = await reusedTree();
    const flags = await shared.reset({ query_timeout_ms: 1_000, writable: false }, TABLES);
    const db = shared.tree.db;
    const file = openSqlite(db, {});
    file.enableDefensive(false);
    file.exec(BREAK);
    file.close();
    const bytes = await Deno.readFile(db);
    const server = await spawnRaw({ args: [...flags, SCRIPT, "-config", shared.tree.config], cwd: REPO });
    let id = 0;
    const call = async (sql: string, params: unknown[] = []) => {
      const sent = ++id;
      const args = { sql, params };
      await server.send(JSON.stringify({
        jsonrpc: "2.0",
        id: sent,
        method: "tools/call",
        params: { name: "run_query", arguments: args },
      }));
      const reply = await server.next(60_000) as unknown as Reply;
      assert.equal(reply.id, sent, JSON.stringify(reply).slice(0, 300));
      return reply.result!;
    };
    await server.send(JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "fts", version: "1" } },
    }));
    assert.equal((await server.next(60_000) as unknown as Reply).id, 0);
    await server.send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
    const quick = [{ id: 1, body: "quick brown fox" }];
    const search = "SELECT rowid AS id, body FROM ok5 WHERE ok5 MATCH ?";
    try {
      const refused: [string, unknown[], RegExp][] = [
        ["SELECT * FROM bad_version WHERE bad_version MATCH ?", ["quick"], /invalid fts5 file format \(found 99/],
        [
          "SELECT * FROM bad_rank WHERE bad_rank MATCH ? ORDER BY rank",
          ["quick"],
          /no such function: no_such_function/,
        ],
        ["SELECT * FROM bad_index WHERE bad_index MATCH ?", ["q*"], /fts5: corrupt structure record/],
        ["SELECT * FROM bad_tokenizer WHERE bad_tokenizer MATCH ?", ["quick"], /no such tokenizer: no_such_tokenizer/],
        ["SELECT * FROM bad4 WHERE bad4 MATCH ?", ["quick"], /database disk image is malformed/],
        // FTS4 calls the functions its options name in statements of its own, which the query's authorizer judges.
        ["SELECT * FROM bad_uncompress", [], /"load_extension" is not allowed/],
        // A rank given in the query takes literals only, and the module compiles one statement of it.
        [`${search} AND rank MATCH ?`, ["quick", "bm25(randomblob(5))"], /parse error in rank function/],
        // Too deep for either module's parser.
        [search, ["(".repeat(5_000) + "a" + ")".repeat(5_000)], /fts5: parser stack overflow/],
        [search, [Array.from({ length: 400 }, (_, i) => `NOT a${i}`).join(" ").slice(4)], /maximum depth 256/],
        // MATCH on the table's name needs the full-text table itself: not a view, nor a subquery.
        ["SELECT * FROM many_view WHERE many_view MATCH ?", ["a"], /no such column: many_view/],
        ["SELECT * FROM (SELECT * FROM ok5) WHERE ok5 MATCH ?", ["quick"], /no such column: ok5/],
      ];
      for (const [sql, params, reason] of refused) {
        const result = await call(sql, params);
        assert.equal(result.isError, true, sql);
        assert.match(result.content[0].text, /^Cannot run query: /, sql);
        assert.match(result.content[0].text, reason, sql);
        // Served on, by a process that still searches.
        assert.deepEqual((await call(search, ["quick"])).structuredContent?.rows, quick, sql);
      }
      // A MATCH on a view's column reaches the full-text table's (SQLite flattens the view), and is a search.
      const viaView = "SELECT count(*) AS n FROM many_view WHERE body MATCH ?";
      assert.deepEqual((await call(viaView, ["a"])).structuredContent?.rows, [{ n: 1 }]);
      // The bomb, directly and through the view: priced as one virtual loop (1,048,576), so it runs, and is stopped.
      for (const sql of ["SELECT count(*) AS n FROM many WHERE many MATCH ?", viaView]) {
        const bomb = await call(sql, [NEAR_BOMB]);
        assert.match(
          bomb.content[0].text,
          /^Cannot run query: it ran past its deadline of 1000 ms/,
          `${sql}: ${bomb.content[0].text}`,
        );
        assert.deepEqual((await call(search, ["quick"])).structuredContent?.rows, quick);
      }
    } finally {
      server.process.kill("SIGTERM");
    }
    assert.equal((await server.status()).code, 0, server.stderr());
    assert.deepEqual(await Deno.readFile(db), bytes, "no byte of the file changed");
  },
});
