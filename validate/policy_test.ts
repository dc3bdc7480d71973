import assert from "node:assert/strict";
import { DEFAULT_DENY, DEFAULT_LIMITS, definePolicy, type PolicyInit } from "./policy.ts";
import { PolicyInitError } from "./policy_init_error.ts";
import { quote } from "../internal/quote.ts";

Deno.test("definePolicy() denies everything by default", () => {
  const policy = definePolicy();
  assert.deepEqual(policy.readRoots, []);
  assert.deepEqual(policy.writeRoots, []);
  assert.deepEqual(policy.net.hosts, []);
  assert.deepEqual(policy.net.schemes, ["https"]);
  assert.deepEqual(policy.net.ports, [443]);
  assert.deepEqual(policy.env, ["FORGE_TENANT_CONFIG"], "only the tenant config variable");
  assert.deepEqual(policy.deny, DEFAULT_DENY);
  assert.deepEqual(policy.limits, DEFAULT_LIMITS);
});

Deno.test("definePolicy({ tenantConfig: false }) needs no environment at all", () => {
  assert.deepEqual(definePolicy({ tenantConfig: false }).env, []);
  assert.deepEqual(definePolicy({ tenantConfig: false, env: ["TOKEN"] }).env, ["TOKEN"]);
});

Deno.test("definePolicy() returns a deeply frozen object", () => {
  const policy = definePolicy({ readRoots: ["/a"], net: { hosts: ["x.example"] } });
  assert.ok(Object.isFrozen(policy));
  assert.ok(Object.isFrozen(policy.readRoots));
  assert.ok(Object.isFrozen(policy.net));
  assert.ok(Object.isFrozen(policy.net.hosts));
  assert.ok(Object.isFrozen(policy.limits));
  assert.throws(() => (policy.readRoots as string[]).push("/"), TypeError);
});

Deno.test("definePolicy() makes paths absolute and normal, against baseDir", () => {
  const policy = definePolicy({
    readRoots: ["data/", "/srv//x/../y", "data"],
    readFiles: ["cfg.json"],
    baseDir: "/etc/app",
  });
  assert.deepEqual(policy.readRoots, ["/etc/app/data", "/srv/y"]);
  assert.deepEqual(policy.readFiles, ["/etc/app/cfg.json"]);
});

Deno.test("definePolicy() refuses a path Deno's flags cannot express", () => {
  assert.throws(
    () => definePolicy({ readRoots: ["/a,b"] }),
    /^TypeError: Cannot define policy: readRoots path "\/a,b" contains a NUL byte or a comma$/,
  );
  assert.throws(() => definePolicy({ writeFiles: ["/a\0b"] }), TypeError);
  assert.throws(() => definePolicy({ readRoots: [""] }), TypeError);
});

Deno.test("definePolicy() normalises hosts and adds private hosts to the allowed ones", () => {
  const policy = definePolicy({
    net: {
      schemes: ["HTTPS", "http:"],
      hosts: ["API.example.com", "*.cdn.example.com", "[::1]"],
      privateHosts: ["db.internal"],
    },
  });
  assert.deepEqual(policy.net.schemes, ["https", "http"]);
  assert.deepEqual(policy.net.hosts, ["api.example.com", "*.cdn.example.com", "[::1]", "db.internal"]);
  assert.deepEqual(policy.net.ports, [443, 80]);
});

const badHosts = [
  "*",
  "a,b",
  "*.a,b",
  "a*b",
  "a b",
  "*.",
  "example.com:443",
  "::1",
  "[::1",
  "2130706433",
  "127.1",
  "exa mple.com",
  "a/b",
  "u@h",
  "example.com.",
];
for (const host of badHosts) {
  Deno.test(`definePolicy() refuses the host ${JSON.stringify(host)}`, () => {
    assert.throws(() => definePolicy({ net: { hosts: [host] } }), TypeError);
  });
}

Deno.test("definePolicy() refuses wildcard private hosts, unknown schemes and bad ports", () => {
  assert.throws(() => definePolicy({ net: { privateHosts: ["*.internal"] } }), /must be exact here/);
  assert.throws(() => definePolicy({ net: { schemes: ["file"] } }), /scheme "file" is not supported/);
  assert.throws(() => definePolicy({ net: { ports: [0] } }), RangeError);
  assert.throws(() => definePolicy({ net: { ports: [65536] } }), RangeError);
});

Deno.test("definePolicy() refuses bad env names, limits and globs", () => {
  assert.throws(() => definePolicy({ env: ["A-B"] }), /env name "A-B"/);
  assert.throws(() => definePolicy({ env: ["A,B"] }), TypeError);
  assert.throws(() => definePolicy({ limits: { maxRows: -1 } }), RangeError);
  assert.throws(() => definePolicy({ limits: { nope: 1 } as never }), /unknown limit "nope"/);
  assert.throws(() => definePolicy({ deny: ["a/../b"] }), /deny glob/);
});

Deno.test("definePolicy() keeps or drops the default deny globs", () => {
  assert.deepEqual(definePolicy({ deny: ["**/*.sqlite"] }).deny, [...DEFAULT_DENY, "**/*.sqlite"]);
  assert.deepEqual(definePolicy({ deny: ["**/*.sqlite"], defaultDeny: false }).deny, ["**/*.sqlite"]);
});

Deno.test("definePolicy() overrides single limits", () => {
  const policy = definePolicy({ limits: { maxRows: 10 } });
  assert.equal(policy.limits.maxRows, 10);
  assert.equal(policy.limits.maxReadBytes, DEFAULT_LIMITS.maxReadBytes);
});

Deno.test("definePolicy() names what it refused as fields: the setting, the entry's index, the entry, a reason without it", () => {
  const cases: [PolicyInit, Pick<PolicyInitError, "setting" | "index" | "entry" | "reason">, string][] = [
    [
      { net: { hosts: ["ok.example", "Bad!Host-X7Q.example"] } },
      {
        setting: "net.hosts",
        index: 1,
        entry: "Bad!Host-X7Q.example",
        reason: "is not a canonical host name or IP literal",
      },
      'Cannot define policy: host "Bad!Host-X7Q.example" is not a canonical host name or IP literal',
    ],
    [
      { net: { hosts: ["*.Bad!Wild-X7Q"] } },
      { setting: "net.hosts", index: 0, entry: "*.Bad!Wild-X7Q", reason: "is not a valid `*.suffix`" },
      'Cannot define policy: host "*.Bad!Wild-X7Q" is not a valid `*.suffix`',
    ],
    [
      { net: { hosts: ["[2001:DB8::0:7]"] } },
      { setting: "net.hosts", index: 0, entry: "[2001:DB8::0:7]", reason: "is not a canonical IPv6 literal" },
      'Cannot define policy: host "[2001:DB8::0:7]" is not a canonical IPv6 literal',
    ],
    [
      { net: { hosts: ["x7q.example"], privateHosts: ["db.internal", "*.x7q.example"] } },
      { setting: "net.privateHosts", index: 1, entry: "*.x7q.example", reason: "must be exact here, not a wildcard" },
      'Cannot define policy: host "*.x7q.example" must be exact here, not a wildcard',
    ],
    [
      { net: { schemes: ["https", "x7q"] } },
      { setting: "net.schemes", index: 1, entry: "x7q", reason: 'is not supported, use "https" or "http"' },
      'Cannot define policy: scheme "x7q" is not supported, use "https" or "http"',
    ],
    [
      { writeRoots: ["/ok", "/a,x7q"] },
      { setting: "writeRoots", index: 1, entry: "/a,x7q", reason: "contains a NUL byte or a comma" },
      'Cannot define policy: writeRoots path "/a,x7q" contains a NUL byte or a comma',
    ],
    [
      { readFiles: [""] },
      { setting: "readFiles", index: 0, entry: "", reason: "is empty or not a string" },
      "Cannot define policy: readFiles has an empty or non-string path",
    ],
    [
      { run: ["/bin/true", "x7q"] },
      { setting: "run", index: 1, entry: "x7q", reason: "is not an absolute path without commas" },
      'Cannot define policy: run entry "x7q" is not an absolute path without commas',
    ],
    [
      { env: ["OK", "X7Q-NAME"] },
      { setting: "env", index: 1, entry: "X7Q-NAME", reason: "is not a valid variable name" },
      'Cannot define policy: env name "X7Q-NAME" is not a valid variable name',
    ],
    [
      { deny: ["**/*.log", "x7q/../b"] },
      { setting: "deny", index: 1, entry: "x7q/../b", reason: 'has an empty, "." or ".." segment' },
      'Cannot compile deny glob "x7q/../b": empty, "." or ".." segment',
    ],
    [
      { limits: { x7q: 1 } as never },
      { setting: "limits", index: undefined, entry: "x7q", reason: "is not a known limit" },
      'Cannot define policy: unknown limit "x7q"',
    ],
  ];
  for (const [init, fields, message] of cases) {
    assert.throws(() => definePolicy({ baseDir: "/", ...init }), (err) => {
      assert.ok(err instanceof PolicyInitError, String(err));
      assert.ok(err instanceof TypeError);
      assert.equal(err.name, "TypeError");
      assert.deepEqual(
        { setting: err.setting, index: err.index, entry: err.entry, reason: err.reason },
        fields,
        err.message,
      );
      assert.equal(err.message, message);
      // The message quotes the entry; the reason holds no form of it.
      const entry = String(fields.entry).toLowerCase();
      assert.ok(entry === "" || err.message.includes(quote(fields.entry)), err.message);
      assert.ok(entry === "" || !err.reason.toLowerCase().includes(entry), err.reason);
      return true;
    });
  }
});

Deno.test("definePolicy() keeps compileGlob's words and error as the cause of a deny glob it refuses", () => {
  assert.throws(() => definePolicy({ deny: ["a//b"] }), (err) => {
    assert.ok(err instanceof PolicyInitError);
    assert.equal(err.message, 'Cannot compile deny glob "a//b": empty, "." or ".." segment');
    assert.ok(err.cause instanceof TypeError && err.cause.message === err.message);
    return true;
  });
});

Deno.test("definePolicy() throws a plain RangeError, not a PolicyInitError, for a port or limit out of range", () => {
  for (const init of [{ net: { ports: [0] } }, { limits: { maxRows: -1 } }]) {
    assert.throws(() => definePolicy(init), (err) => err instanceof RangeError && !(err instanceof PolicyInitError));
  }
});

Deno.test("definePolicy() turns the environment's proxy off by default, keeps it on net.environmentProxy: true, and refuses a non-boolean", () => {
  assert.equal(definePolicy({ net: { hosts: ["example.com"] } }).net.environmentProxy, false);
  assert.equal(definePolicy({ net: { hosts: ["example.com"], environmentProxy: true } }).net.environmentProxy, true);
  const init = { net: { environmentProxy: "yes" as unknown as boolean } };
  assert.throws(() => definePolicy(init), (err) => {
    assert.ok(err instanceof PolicyInitError, String(err));
    assert.deepEqual([err.setting, err.entry, err.reason], ["net.environmentProxy", "yes", "is not true or false"]);
    assert.equal(err.message, 'Cannot define policy: net.environmentProxy "yes" is not true or false');
    return true;
  });
});
