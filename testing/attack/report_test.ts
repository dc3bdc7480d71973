// test-permissions: --allow-read={tmp} --allow-write={tmp} --allow-net=127.0.0.1 --allow-run=ln
// A known-failures list lets a project adopt the kit gradually: what it
// matches is reported as known and does not fail; an entry nothing matches is
// reported stale. The table names case, tool, argument and what happened.
import assert from "node:assert/strict";
import { attack } from "./attack.ts";
import { inMemoryTarget } from "./in_memory_target.ts";
import { formatFindings, matchesKnown } from "./report.ts";
import * as weak from "./testdata/weak_servers.ts";

Deno.test("a known-failures entry moves its findings to known; an entry nothing matches is stale", async () => {
  const report = await attack(inMemoryTarget(() => weak.logsItsArgument()), {
    seed: 2,
    eras: ["2026-07-28"],
    protocol: false,
    shrinkReplays: 0,
    knownFailures: [
      { check: "log-injection", tool: "lookup", note: "logs keys raw until the logger escapes them" },
      { check: "memory", note: "fixed long ago" },
    ],
  });
  assert.deepEqual(report.findings, []);
  assert.ok(report.known.length >= 3);
  assert.ok(report.known.every((f) => f.known === "logs keys raw until the logger escapes them"));
  assert.deepEqual(report.stale, [{ check: "memory", note: "fixed long ago" }]);
  const table = formatFindings(report);
  assert.match(table, /^attack in-memory: seed 2, eras 2026-07-28, default corpus, \d+ cases in/);
  assert.match(table, /\nno findings\n/);
  assert.match(
    table,
    /known \(accepted by the known-failures list\):\n\| # \| era \| case \| tool \| argument \| check \|/,
  );
  assert.match(table, /\| 2026-07-28 \| newline forges a log line \| lookup \| key \| log-injection \| a stderr line/);
  assert.match(table, /stale known-failure entry \(nothing matched it\): \{"check":"memory"/);
});

Deno.test("matchesKnown() needs every field the entry gives", () => {
  const finding = {
    check: "host-path",
    tool: "read_file",
    argument: "path",
    case: "dot-dot",
    era: "2026-07-28",
  } as Parameters<typeof matchesKnown>[0];
  assert.equal(matchesKnown(finding, { tool: "read_file", note: "" }), true);
  assert.equal(matchesKnown(finding, { tool: "read_file", era: "2025-11-25", note: "" }), false);
  assert.equal(matchesKnown(finding, { check: "host-path", case: "dot", note: "" }), false);
});
