import assert from "node:assert/strict";
import type { AttackCase } from "./_case.ts";
import { type Ground, judge, type Observed, within } from "./_judge.ts";

const ground: Ground = {
  secret: "SECRET-1",
  marker: "MARK",
  writable: ["/srv/out"],
  roots: ["/srv/data", "/srv/out"],
  sensitive: ["/srv", "/tmp/canary"],
  deadlineMs: 100,
  maxRssBytes: 1000,
};

const aCase: AttackCase = { tag: "c1", kind: "argument", title: "t", category: "path", steps: [], expect: ["1"] };

function observed(extra: Partial<Observed>): Observed {
  return {
    case: aCase,
    sent: ['{"path":"../x"}'],
    lines: [],
    stderr: [],
    hits: [],
    changes: [],
    missing: [],
    unexpected: [],
    served: [],
    notJson: [],
    alive: "yes",
    exitCode: undefined,
    rss: undefined,
    polluted: undefined,
    ...extra,
  };
}

const checks = (o: Partial<Observed>, g = ground) => judge(observed(o), g).map((v) => v.check);

Deno.test("judge() finds nothing in a case that left no trace", () => {
  assert.deepEqual(checks({ lines: ['{"id":1,"result":{"content":[{"type":"text","text":"/srv/data/a.txt"}]}}'] }), []);
});

Deno.test("judge() reads the canary secret on stdout or stderr, and a hit outside /allowed/", () => {
  assert.deepEqual(checks({ lines: ["x SECRET-1"], stderr: ["y SECRET-1"] }), ["canary-leak", "canary-leak"]);
  const hits = [{ method: "GET", path: "/c/c1", allowed: false }, {
    method: "GET",
    path: "/allowed/c1/ok",
    allowed: true,
  }];
  assert.deepEqual(checks({ hits }), ["network"]);
  assert.deepEqual(checks({ hits, case: { ...aCase, inert: true } }), ["side-effect", "side-effect"]);
});

Deno.test("judge() allows changes under writable places only, names the deepest path, and nothing at all when inert", () => {
  const changes = [
    { path: "/srv/out/a.txt", change: "created" as const },
    { path: "/srv/data", change: "changed" as const },
    { path: "/srv/data/x", change: "created" as const },
  ];
  const verdicts = judge(observed({ changes }), ground);
  assert.deepEqual(verdicts.map((v) => v.what), ['created "/srv/data/x"']);
  assert.deepEqual(checks({ changes, case: { ...aCase, inert: true } }), ["side-effect", "side-effect"]);
  const ran = [{ path: "/tmp/canary/hostile-config-fsmonitor", change: "created" as const }];
  assert.deepEqual(checks({ changes: ran }), ["config-ran"]);
});

Deno.test("judge() sees a forged log line only where a line starts with the marker", () => {
  assert.deepEqual(checks({ stderr: ["lookup x", "MARK forged"] }), ["log-injection"]);
  assert.deepEqual(checks({ stderr: ["lookup x\rMARK forged"] }), ["log-injection"]);
  assert.deepEqual(checks({ stderr: ['{"key":"x\\nMARK forged"}'] }), [], "an escaped newline forges nothing");
});

Deno.test("judge() names host paths outside the roots that the request did not carry", () => {
  const reply = (path: string) => [`{"id":1,"result":{"content":[{"type":"text","text":"Cannot read ${path}: no"}]}}`];
  assert.deepEqual(checks({ lines: reply("/srv/secret/key.pem") }), ["host-path"]);
  assert.deepEqual(checks({ lines: reply("/srv/data/sub/a.txt") }), [], "inside a root");
  assert.deepEqual(checks({ lines: reply("/srv/data/../x") }), ["host-path"], "outside once resolved");
  assert.deepEqual(checks({ lines: reply("/srv/x"), sent: ['{"path":"/srv/x"}'] }), [], "the request's own path");
  assert.deepEqual(checks({ lines: reply("/srv/out-old/f…") }), ["host-path"]);
});

Deno.test("judge() reports missing and stray replies, refused methods served, dead servers and memory", () => {
  assert.deepEqual(
    checks({ missing: ["1"], unexpected: ["9"], served: ["2"], notJson: ["hi"], alive: "hung", rss: 2000 }),
    ["no-reply", "unexpected-reply", "served-invalid", "not-json", "dead", "memory"],
  );
  assert.deepEqual(checks({ served: ["2"], case: { ...aCase, refuse: "the name differs in case" } }), [
    "served-variant",
  ]);
  assert.deepEqual(checks({ polluted: "c1" }), ["prototype-pollution"]);
});

Deno.test("within() compares path segments: a sibling with the same prefix, or a name starting with '..', is judged right", () => {
  assert.equal(within("/srv/data-other/x", "/srv/data"), false);
  assert.equal(within("/srv/data/...md", "/srv/data"), true);
  assert.equal(within("/srv/data", "/srv/data"), true);
  assert.equal(within("/srv", "/srv/data"), false);
});
