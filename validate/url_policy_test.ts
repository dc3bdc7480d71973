// test-permissions: --allow-net=localhost
import assert from "node:assert/strict";
import { definePolicy, type NetPolicyInit } from "./policy.ts";
import { PolicyError, type PolicyErrorCode } from "./policy_error.ts";
import { UrlPolicy } from "./url_policy.ts";

function urls(net: NetPolicyInit, lookup?: (host: string) => Promise<readonly string[]>): UrlPolicy {
  return new UrlPolicy(definePolicy({ net }), { lookup });
}

const api = { hosts: ["api.example.com", "*.cdn.example.com", "[2001:db8::1]", "93.184.215.14"] };

const checks: [string, NetPolicyInit, string, PolicyErrorCode | "ok"][] = [
  ["an exact host", api, "https://api.example.com/v1?q=1#f", "ok"],
  ["an upper-case host", api, "https://API.Example.COM/", "ok"],
  ["the default port written out", api, "https://api.example.com:443/", "ok"],
  ["a subdomain of a wildcard", api, "https://a.cdn.example.com/", "ok"],
  ["a deep subdomain of a wildcard", api, "https://a.b.cdn.example.com/", "ok"],
  ["a canonical public IPv4", api, "https://93.184.215.14/", "ok"],
  ["a canonical IPv6", api, "https://[2001:db8::1]/", "address"],
  ["the apex of a wildcard", api, "https://cdn.example.com/", "host"],
  ["a look-alike suffix", api, "https://evilcdn.example.com/", "host"],
  ["the allowed name as a prefix", api, "https://api.example.com.evil.com/", "host"],
  ["a Cyrillic look-alike host", api, "https://аpi.example.com/", "host"],
  ["a trailing dot", api, "https://api.example.com./", "host"],
  ["http when only https is allowed", api, "http://api.example.com/", "scheme"],
  ["another port", api, "https://api.example.com:8443/", "port"],
  ["a user name", api, "https://user@api.example.com/", "userinfo"],
  ["an empty user name", api, "https://@api.example.com/", "userinfo"],
  ["a non-canonical IPv6", api, "https://[2001:0db8:0:0::1]/", "ip-literal"],
  ["a decimal form of an allowed IP", api, "https://1572395790/", "ip-literal"],
  ["a hex form", api, "https://0x5db8d70e/", "ip-literal"],
  [
    "an IPv4-mapped IPv6 in canonical form",
    { hosts: ["[::ffff:5db8:d70e]"] },
    "https://[::ffff:5db8:d70e]/",
    "ip-literal",
  ],
  ["a NAT64 address of loopback", { hosts: ["[64:ff9b::7f00:1]"] }, "https://[64:ff9b::7f00:1]/", "address"],
  ["a 6to4 address of a private network", { hosts: ["[2002:a00:1::]"] }, "https://[2002:a00:1::]/", "address"],
  [
    "metadata allowed by name but not as private",
    { hosts: ["169.254.169.254"] },
    "https://169.254.169.254/",
    "address",
  ],
  ["loopback allowed as private", { privateHosts: ["127.0.0.1"] }, "https://127.0.0.1/", "ok"],
  ["a policy that allows nothing", {}, "https://api.example.com/", "host"],
];

Deno.test("check() refuses an IPv4-mapped IPv6 as mapped in every spelling, never advising a spelling it refuses", () => {
  const policy = urls({ hosts: ["[::ffff:7f00:1]"], privateHosts: ["[::ffff:7f00:1]"] });
  for (
    const url of ["https://[::ffff:127.0.0.1]/", "https://[0:0:0:0:0:FFFF:7f00:0001]/", "https://[::ffff:7f00:1]/"]
  ) {
    assert.throws(() => policy.check(url), /: IPv4-mapped IPv6 addresses are not allowed$/, url);
  }
  // The advice of a non-canonical literal is a spelling the check itself accepts.
  const advised = (() => {
    try {
      policy.check("https://[2001:0db8:0:0::1]/");
    } catch (e) {
      return (e as Error).message.match(/write (\S+)$/)?.[1];
    }
  })();
  assert.equal(advised, "[2001:db8::1]");
  assert.ok(urls({ hosts: [advised], privateHosts: [advised] }).check(`https://${advised}/`) instanceof URL);
});

for (const [label, net, url, expect] of checks) {
  Deno.test(`check() ${expect === "ok" ? "accepts" : `refuses (${expect})`}: ${label}`, () => {
    const policy = urls(net);
    if (expect === "ok") {
      assert.ok(policy.check(url) instanceof URL);
      return;
    }
    const err = (() => {
      try {
        policy.check(url);
      } catch (e) {
        return e;
      }
    })();
    assert.ok(err instanceof PolicyError, `not refused: ${url}`);
    assert.equal(err.code, expect, err.message);
    assert.match(err.message, /^Cannot fetch "/);
  });
}

Deno.test("check() refuses a non-string without echoing it", () => {
  assert.throws(
    () => urls(api).check(42 as unknown as string),
    /^PolicyError: Cannot fetch: the URL must be a string$/,
  );
});

Deno.test("checkResolved() refuses a name that resolves to a private address (DNS rebinding)", async () => {
  const policy = urls(api, () => Promise.resolve(["10.0.0.7"]));
  const err = await policy.checkResolved(policy.check("https://api.example.com/")).catch((e) => e);
  assert.ok(err instanceof PolicyError);
  assert.equal(err.message, 'Cannot fetch "https://api.example.com/": the host resolves to a private address');
});

Deno.test("checkResolved() refuses when any one of several addresses is internal", async () => {
  const policy = urls(api, () => Promise.resolve(["93.184.215.14", "::1"]));
  await assert.rejects(policy.checkResolved(policy.check("https://api.example.com/")), /loopback/);
});

Deno.test("checkResolved() accepts public addresses and returns them", async () => {
  const policy = urls(api, () => Promise.resolve(["93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"]));
  assert.deepEqual(await policy.checkResolved(policy.check("https://api.example.com/")), [
    "93.184.215.14",
    "2606:2800:21f:cb07:6820:80da:af6b:8b2c",
  ]);
});

Deno.test("checkResolved() refuses a name that does not resolve", async () => {
  const policy = urls(api, () => Promise.reject(new Error("ENOTFOUND")));
  await assert.rejects(policy.checkResolved(policy.check("https://api.example.com/")), /does not resolve/);
  const empty = urls(api, () => Promise.resolve([]));
  await assert.rejects(empty.checkResolved(empty.check("https://api.example.com/")), /does not resolve/);
});

Deno.test("checkResolved() does not resolve an explicitly private host", async () => {
  const policy = urls({ privateHosts: ["db.internal"] }, () => Promise.reject(new Error("must not be called")));
  assert.deepEqual(await policy.checkResolved(policy.check("https://db.internal/")), []);
});

Deno.test({
  name: "checkResolved() resolves localhost for real and refuses its loopback address",
  permissions: { net: ["localhost"] },
  async fn() {
    const policy = urls({ hosts: ["localhost"], schemes: ["http"] });
    await assert.rejects(policy.checkResolved(policy.check("http://localhost/")), /resolves to a loopback address/);
  },
});

Deno.test({
  name: "checkResolved() without net permission for the name cannot resolve it",
  permissions: { net: false },
  async fn() {
    const policy = urls({ hosts: ["localhost"], schemes: ["http"] });
    await assert.rejects(policy.checkResolved(policy.check("http://localhost/")), /does not resolve/);
  },
});
