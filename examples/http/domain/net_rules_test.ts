import assert from "node:assert/strict";
import { expand } from "@forge/toolkit/configreload";
import { PolicyError } from "@forge/toolkit/validate";
import { type NetConfig, netPolicyInit, NetRules, parseHostEntry } from "./net_rules.ts";

function config(init: Partial<NetConfig>): NetConfig {
  return {
    allow_hosts: [],
    allow_schemes: ["https"],
    allow_private_hosts: [],
    timeout_ms: 5_000,
    max_bytes: 1_000,
    max_redirects: 3,
    ...init,
  };
}

function refusal(code: PolicyError["code"]) {
  return (err: unknown) => err instanceof PolicyError && err.code === code;
}

Deno.test("parseHostEntry() splits names, IPv4 and bracketed IPv6 from their port", () => {
  assert.deepEqual(parseHostEntry("API.Example.com"), { host: "api.example.com", port: undefined });
  assert.deepEqual(parseHostEntry("*.example.com:8443"), { host: "*.example.com", port: 8443 });
  assert.deepEqual(parseHostEntry("203.0.113.7:80"), { host: "203.0.113.7", port: 80 });
  assert.deepEqual(parseHostEntry("[2001:db8::1]"), { host: "[2001:db8::1]", port: undefined });
  assert.deepEqual(parseHostEntry("[::1]:65535"), { host: "[::1]", port: 65535 });
});

Deno.test("parseHostEntry() refuses bad ports and IPv6 without brackets", () => {
  for (const entry of ["a.example:0", "a.example:65536", "a.example:http", "a.example:", "a.example:+80", "[::1]x"]) {
    assert.throws(() => parseHostEntry(entry), TypeError, entry);
  }
  assert.throws(() => parseHostEntry("::1"), /in brackets/);
  assert.throws(() => parseHostEntry("[::1"), /closing bracket/);
});

Deno.test("netPolicyInit() takes every entry's port, and the schemes' default ports for entries without one", () => {
  const init = netPolicyInit(
    config({ allow_hosts: ["a.example", "127.0.0.1:8080"], allow_schemes: ["https", "http"] }),
  );
  assert.deepEqual(init.ports, [443, 80, 8080]);
  assert.deepEqual(init.hosts, ["a.example", "127.0.0.1"]);
});

Deno.test("netPolicyInit() refuses a private host that is not also an allowed host", () => {
  assert.throws(
    () => netPolicyInit(config({ allow_hosts: ["a.example"], allow_private_hosts: ["127.0.0.1"] })),
    /Cannot allow private host "127.0.0.1": it is not a host of allow_hosts/,
  );
});

Deno.test("NetRules refuses a non-canonical host entry when it is built", () => {
  assert.throws(() => new NetRules(config({ allow_hosts: ["0x7f000001"] })), TypeError);
  assert.throws(() => new NetRules(config({ allow_hosts: ["a b.example"] })), TypeError);
});

Deno.test("NetRules.check() allows a listed host on its port and refuses another entry's port", () => {
  const rules = new NetRules(config({
    allow_hosts: ["api.example.com", "127.0.0.1:8080"],
    allow_schemes: ["https", "http"],
    allow_private_hosts: ["127.0.0.1"],
  }));
  assert.equal(rules.check("https://api.example.com/v1").hostname, "api.example.com");
  assert.equal(rules.check("http://api.example.com/v1").hostname, "api.example.com");
  assert.equal(rules.check("http://127.0.0.1:8080/").port, "8080");
  // 8080 is in the policy's port list (for 127.0.0.1), but not for this host.
  assert.throws(() => rules.check("https://api.example.com:8080/"), refusal("port"));
  // 443 is in the list (for api.example.com), but 127.0.0.1 may use only 8080.
  assert.throws(() => rules.check("https://127.0.0.1/"), refusal("port"));
  // A host without a port gets each scheme's own default, not the other scheme's.
  assert.throws(() => rules.check("https://api.example.com:80/"), refusal("port"));
});

Deno.test("NetRules.check() refuses what the URL policy refuses: scheme, userinfo, host, IP forms, private literals", () => {
  const rules = new NetRules(config({ allow_hosts: ["api.example.com", "*.cdn.example", "10.0.0.1"] }));
  assert.throws(() => rules.check("http://api.example.com/"), refusal("scheme"));
  assert.throws(() => rules.check("file:///etc/passwd"), refusal("scheme"));
  assert.throws(() => rules.check("https://api.example.com@evil.example/"), refusal("userinfo"));
  assert.throws(() => rules.check("https://evil.example/"), refusal("host"));
  assert.throws(() => rules.check("https://cdn.example/"), refusal("host"), "*.suffix does not match the apex");
  assert.equal(rules.check("https://img.cdn.example/a.png").hostname, "img.cdn.example");
  assert.throws(() => rules.check("https://2130706433/"), PolicyError);
  assert.throws(() => rules.check("https://[::ffff:127.0.0.1]/"), PolicyError);
  assert.throws(() => rules.check("https://10.0.0.1/"), refusal("address"));
  assert.throws(() => rules.check("https://api.example.com\\@evil.example/"), refusal("invalid-input"));
});

Deno.test("NetRules.assertPort() names the URL the caller asked for, not the hop", () => {
  const rules = new NetRules(config({
    allow_hosts: ["127.0.0.1:8080", "a.example:9090"],
    allow_schemes: ["http"],
    allow_private_hosts: ["127.0.0.1"],
  }));
  assert.throws(
    () => rules.assertPort(new URL("http://127.0.0.1:9090/secret"), { asked: "http://127.0.0.1:8080/start" }),
    (err: Error) => {
      assert.ok(err instanceof PolicyError && err.code === "port");
      assert.equal(
        err.message,
        'Cannot fetch "http://127.0.0.1:8080/start": the port 9090 is not allowed for "127.0.0.1"',
      );
      return true;
    },
  );
});

Deno.test("NetRules.policy carries the config's byte cap, deadline and redirect limit", () => {
  const rules = new NetRules(config({ allow_hosts: ["a.example"], max_bytes: 77, timeout_ms: 1234, max_redirects: 0 }));
  assert.equal(rules.policy.limits.maxFetchBytes, 77);
  assert.equal(rules.policy.limits.fetchTimeoutMs, 1234);
  assert.equal(rules.policy.limits.maxRedirects, 0);
  assert.deepEqual(rules.policy.env, [], "no env: the fetch policy is layer 1 only");
});

Deno.test("NetRules.assertRedirect() keeps a hop on the entry that allowed the first URL, and never goes https to http", () => {
  const rules = new NetRules({
    allow_hosts: ["*.wiki.example", "api.example.com", "127.0.0.1:8080", "127.0.0.1:9090"],
    allow_schemes: ["https", "http"],
    allow_private_hosts: ["127.0.0.1"],
    timeout_ms: 5000,
    max_bytes: 65536,
    max_redirects: 3,
  });
  const hop = (next: string, from: string, first = from) =>
    rules.assertRedirect(new URL(next), { from: new URL(from), first: new URL(first), asked: first });
  const refusedAs = (code: string, pattern: RegExp) => (err: unknown) =>
    err instanceof PolicyError && err.code === code && pattern.test(err.message);

  hop("https://en.m.wiki.example/a", "https://en.wiki.example/b");
  hop("https://api.example.com/v2", "http://api.example.com/v1");
  hop("http://127.0.0.1:8080/new", "http://127.0.0.1:8080/old");
  assert.throws(
    () => hop("https://127.0.0.1:9090/admin", "https://api.example.com/x"),
    refusedAs("redirect", /outside the allow_hosts entry that allowed it \("api\.example\.com"\)/),
  );
  assert.throws(
    () => hop("http://127.0.0.1:9090/admin", "http://127.0.0.1:8080/x"),
    refusedAs("redirect", /\("127\.0\.0\.1:8080"\); fetch that URL directly if it is allowed$/),
  );
  assert.throws(
    () => hop("https://api.example.com/x", "https://en.wiki.example/b"),
    refusedAs("redirect", /outside the allow_hosts entry/),
  );
  assert.throws(
    () => hop("http://api.example.com/x", "https://api.example.com/x"),
    refusedAs("redirect", /redirects from https to http/),
  );
  assert.throws(
    () => hop("https://api.example.com:8080/x", "https://api.example.com/x"),
    refusedAs("port", /redirects to "https:\/\/api\.example\.com:8080\/x", and its port is not allowed for its host/),
  );
});

Deno.test("NetRules.assertRedirect() quotes a refused hop as the server wrote it, never as URL parsing rewrote it", () => {
  const rules = new NetRules(config({
    allow_hosts: ["*.wiki.example", "a.example", "127.0.0.1:8080", "127.0.0.1:9090"],
    allow_schemes: ["http"],
    allow_private_hosts: ["127.0.0.1"],
  }));
  const from = new URL("http://en.wiki.example/a");
  // A server can write a secret as a host label that parsing lower-cases and punycodes: the message shows the hop as
  // written (where the filter finds the secret), not the parsed form.
  const written = ["HTTP://A.EXAMPLE/x", "http://127.0.0.1:9090/x", "http://127.0.0.1:7070/x"];
  for (const hop of written) {
    assert.throws(
      () => rules.assertRedirect(new URL(hop), { from, first: from, asked: from.href, written: hop }),
      (err: Error) => {
        assert.ok(err instanceof PolicyError, `${err}`);
        assert.ok(err.message.includes(`it redirects to "${hop}"`), err.message);
        assert.ok(!err.message.includes(new URL(hop).href) || new URL(hop).href === hop, err.message);
        return true;
      },
    );
  }
});

Deno.test("NetRules.assertRedirect() names an entry written as ${NAME} by its name, in whatever case the policy holds it", () => {
  const env = new Map([["API_HOST", "Billing-Internal-X7Q.Corp.Example.com"], ["WIKI", "Wiki.Example"]]);
  const expanded = expand({ allow_hosts: ["${API_HOST}:8443", "*.${WIKI}", "127.0.0.1:9090"] }, { env });
  const { allow_hosts } = expanded.value as { allow_hosts: string[] };
  const rules = new NetRules(config({ allow_hosts, allow_private_hosts: ["127.0.0.1"] }));
  const refusal = (first: string) => {
    const from = new URL(first);
    try {
      rules.assertRedirect(new URL("https://127.0.0.1:9090/admin"), {
        from,
        first: from,
        asked: first,
        redact: expanded.redact,
      });
    } catch (err) {
      assert.ok(err instanceof PolicyError && err.code === "redirect", `${err}`);
      return err.message;
    }
    assert.fail("the redirect was allowed");
  };
  const api = refusal("https://billing-internal-x7q.corp.example.com:8443/x");
  assert.match(api, /outside the allow_hosts entry that allowed it \("\$\{API_HOST\}:8443"\)/);
  // The URL the model asked for is quoted as it wrote it; the entry, which the config took from the environment, is not.
  assert.ok(!api.slice(api.indexOf("outside")).toLowerCase().includes("billing-internal"), api);
  assert.match(refusal("https://en.wiki.example/a"), /entry that allowed it \("\*\.\$\{WIKI\}"\)/);
});
