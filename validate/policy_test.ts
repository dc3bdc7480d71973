import assert from "node:assert/strict";
import { DEFAULT_DENY, DEFAULT_LIMITS, definePolicy } from "./policy.ts";

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
