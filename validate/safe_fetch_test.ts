// test-permissions: --allow-net=127.0.0.1,127.0.0.2,localhost
import assert from "node:assert/strict";
import { LimitError } from "./limits.ts";
import { definePolicy, type NetPolicyInit } from "./policy.ts";
import { PolicyError, type PolicyErrorCode } from "./policy_error.ts";
import { safeFetch, type SafeFetchOptions } from "./safe_fetch.ts";

// Two real servers: the allowed one on 127.0.0.1 and a forbidden one on
// 127.0.0.2 that holds the canary and counts every request it gets.
const CANARY = `CANARY-${crypto.randomUUID()}`;
const NET = ["127.0.0.1", "127.0.0.2", "localhost"];

interface Servers {
  a: string;
  b: string;
  portA: number;
  hitsB: () => number;
}

async function withServers(fn: (s: Servers) => Promise<void>): Promise<void> {
  let hits = 0;
  const forbidden = Deno.serve({ hostname: "127.0.0.2", port: 0, onListen() {} }, () => {
    hits++;
    return new Response(CANARY);
  });
  const allowed = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => route(req, b));
  const a = `http://127.0.0.1:${allowed.addr.port}`;
  const b = `http://127.0.0.2:${forbidden.addr.port}`;
  try {
    await fn({ a, b, portA: allowed.addr.port, hitsB: () => hits });
  } finally {
    await Promise.all([allowed.shutdown(), forbidden.shutdown()]);
  }
}

function route(req: Request, b: string): Response | Promise<Response> {
  const url = new URL(req.url);
  const redirect = (location: string, status = 302) => new Response(null, { status, headers: { location } });
  const path = url.pathname;
  if (path === "/ok") return new Response("fine");
  if (path === "/redirect") {
    return redirect(url.searchParams.get("to") ?? "/ok", Number(url.searchParams.get("status") ?? 302));
  }
  if (path.startsWith("/chain/")) {
    const n = Number(path.slice(7));
    return n > 0 ? redirect(`/chain/${n - 1}`) : new Response("end of chain");
  }
  if (path === "/loop") return redirect("/loop");
  if (path === "/to-canary") return redirect(`${b}/canary`);
  if (path === "/no-location") return new Response("no location", { status: 302 });
  if (path === "/big") return new Response("x".repeat(5000));
  if (path === "/many-headers") {
    const headers = new Headers();
    for (let i = 0; i < 150; i++) headers.set(`x-h${i}`, "v");
    return new Response("ok", { headers });
  }
  if (path === "/big-stream") {
    const chunk = new TextEncoder().encode("y".repeat(1000));
    let sent = 0;
    return new Response(new ReadableStream({ pull: (c) => sent++ < 5 ? c.enqueue(chunk) : c.close() }));
  }
  if (path === "/slow") {
    return new Response(
      new ReadableStream({
        start(controller) {
          controller.enqueue(new TextEncoder().encode("partial"));
          req.signal.addEventListener("abort", () => controller.close());
        },
      }),
    );
  }
  if (path === "/accept-encoding") return new Response(req.headers.get("accept-encoding") ?? "(none)");
  if (path === "/empty-gzip") {
    // 1 MiB of gzip members of nothing, whatever the request asked for: it decodes to no byte at all.
    const member = new Uint8Array([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    const chunk = new Uint8Array(member.length * 3276);
    for (let i = 0; i < chunk.length; i += member.length) chunk.set(member, i);
    let sent = 0;
    const body = new ReadableStream({ pull: (c) => sent++ < 16 ? c.enqueue(chunk) : c.close() });
    return new Response(body, { headers: { "content-encoding": "gzip" } });
  }
  if (path === "/echo") {
    return req.text().then((body) =>
      Response.json({ method: req.method, body, authorization: req.headers.get("authorization") })
    );
  }
  return new Response("not found", { status: 404 });
}

function policyFor(portA: number, net: NetPolicyInit = {}) {
  return definePolicy({
    net: { schemes: ["http"], hosts: ["127.0.0.1"], privateHosts: ["127.0.0.1"], ports: [portA], ...net },
    limits: { maxFetchBytes: 1000, maxRedirects: 5, fetchTimeoutMs: 5000 },
  });
}

type Expect = { body: string; redirects?: number } | { code: PolicyErrorCode; says?: string } | { limit: true };
type Case = [
  label: string,
  url: (s: Servers) => string,
  expect: Expect,
  options?: Partial<SafeFetchOptions>,
  net?: NetPolicyInit,
];

const enc = encodeURIComponent;
const cases: Case[] = [
  ["an allowed URL", (s) => `${s.a}/ok`, { body: "fine", redirects: 0 }],
  ["an upper-case scheme", (s) => `HTTP://127.0.0.1:${s.portA}/ok`, { body: "fine" }],
  ["a 3-hop redirect chain", (s) => `${s.a}/chain/3`, { body: "end of chain", redirects: 3 }],
  ["a chain of exactly maxRedirects", (s) => `${s.a}/chain/5`, { body: "end of chain", redirects: 5 }],
  ["a chain one hop too long", (s) => `${s.a}/chain/6`, { code: "redirect", says: "more than 5 redirects" }],
  ["a redirect loop", (s) => `${s.a}/loop`, { code: "redirect" }],
  ["a relative redirect", (s) => `${s.a}/redirect?to=ok`, { body: "fine", redirects: 1 }],
  ["a 301 redirect", (s) => `${s.a}/redirect?status=301&to=/ok`, { body: "fine" }],
  ["a 303 redirect", (s) => `${s.a}/redirect?status=303&to=/ok`, { body: "fine" }],
  ["a 307 redirect", (s) => `${s.a}/redirect?status=307&to=/ok`, { body: "fine" }],
  ["a 308 redirect", (s) => `${s.a}/redirect?status=308&to=/ok`, { body: "fine" }],
  ["a 302 without Location (returned as is)", (s) => `${s.a}/no-location`, { body: "no location" }],
  ["a redirect to a forbidden host", (s) => `${s.a}/to-canary`, { code: "host" }],
  ["a redirect to a forbidden host on hop 2", (s) => `${s.a}/redirect?to=${enc("/to-canary")}`, { code: "host" }],
  ["a redirect to localhost", (s) => `${s.a}/redirect?to=${enc(`http://localhost:${s.portA}/ok`)}`, { code: "host" }],
  // A hop's refusal derives no form from the host the server wrote (a secret echoed there could come back in it).
  ["a redirect to a decimal IP", (s) => `${s.a}/redirect?to=${enc(`http://2130706433:${s.portA}/ok`)}`, {
    code: "ip-literal",
    says: '/ok", and its IP address is not allowed in that form',
  }],
  ["a redirect to a hex IP", (s) => `${s.a}/redirect?to=${enc(`http://0x7f000001:${s.portA}/ok`)}`, {
    code: "ip-literal",
  }],
  ["a redirect to an octal IP", (s) => `${s.a}/redirect?to=${enc(`http://0177.0.0.1:${s.portA}/ok`)}`, {
    code: "ip-literal",
  }],
  ["a redirect to an IPv4-mapped IPv6", (s) => `${s.a}/redirect?to=${enc(`http://[::ffff:127.0.0.1]:${s.portA}/`)}`, {
    code: "ip-literal",
  }],
  // Named by the URL asked for, with the hop: the hop's words alone read as if the caller's own URL were wrong.
  ["a redirect to file:", (s) => `${s.a}/redirect?to=${enc("file:///etc/passwd")}`, {
    code: "scheme",
    says: '/redirect?to=file%3A%2F%2F%2Fetc%2Fpasswd": it redirects to "file:///etc/passwd", and ',
  }],
  ["a redirect to a scheme not allowed", (s) => `${s.a}/redirect?to=${enc(`https://127.0.0.1:${s.portA}/ok`)}`, {
    code: "scheme",
  }],
  ["a redirect with userinfo", (s) => `${s.a}/redirect?to=${enc(`http://u:p@127.0.0.1:${s.portA}/ok`)}`, {
    code: "userinfo",
  }],
  ["a redirect to another port", (s) => `${s.a}/redirect?to=${enc("http://127.0.0.1:1/ok")}`, { code: "port" }],
  ["a redirect to cloud metadata", (s) => `${s.a}/redirect?to=${enc("http://169.254.169.254/latest/meta-data")}`, {
    code: "host",
  }],
  ["a redirect with a backslash", (s) => `${s.a}/redirect?to=${enc("http:\\\\127.0.0.2")}`, { code: "redirect" }],
  ["the forbidden host directly", (s) => `${s.b}/canary`, { code: "host" }],
  ["a decimal IP", (s) => `http://2130706433:${s.portA}/ok`, { code: "ip-literal", says: "write 127.0.0.1" }],
  ["a short IP", (s) => `http://127.1:${s.portA}/ok`, { code: "ip-literal" }],
  ["an IP with a trailing dot", (s) => `http://127.0.0.1.:${s.portA}/ok`, { code: "ip-literal" }],
  ["a percent-encoded IP", (s) => `http://127.0.0.%31:${s.portA}/ok`, { code: "ip-literal" }],
  ["IPv6 loopback", (s) => `http://[::1]:${s.portA}/ok`, { code: "host" }],
  ["the unspecified address", (s) => `http://0.0.0.0:${s.portA}/ok`, { code: "host" }],
  ["userinfo that hides the real host", (s) => `http://127.0.0.1:${s.portA}@127.0.0.2/canary`, { code: "userinfo" }],
  ["a fragment that hides the real host", (s) => `${s.b}#@127.0.0.1:${s.portA}/`, { code: "host" }],
  ["a leading space", (s) => ` ${s.a}/ok`, { code: "invalid-input" }],
  ["a trailing newline", (s) => `${s.a}/ok\n`, { code: "invalid-input" }],
  ["a tab inside", (s) => `http://127.0.0.1\t:${s.portA}/ok`, { code: "invalid-input" }],
  ["a single slash after the scheme", (s) => `http:/127.0.0.1:${s.portA}/ok`, { code: "invalid-input" }],
  ["a scheme-relative URL", (s) => `//127.0.0.1:${s.portA}/ok`, { code: "invalid-input" }],
  ["not a URL", () => "not a url", { code: "invalid-input" }],
  ["a data: URL", () => "data:text/plain,hi", { code: "invalid-input" }],
  ["a javascript: URL", () => "javascript:alert(1)", { code: "invalid-input" }],
  ["an ftp: URL", (s) => `ftp://127.0.0.1:${s.portA}/`, { code: "scheme" }],
  ["an over-long URL", (s) => `${s.a}/${"a".repeat(9000)}`, { code: "invalid-input" }],
  ["an empty port (the default, not allowed)", () => `http://127.0.0.1:/ok`, { code: "port" }],
  ["a body over the cap (Content-Length)", (s) => `${s.a}/big`, { limit: true }],
  ["a streamed body over the cap", (s) => `${s.a}/big-stream`, { limit: true }],
  ["a slow body past the deadline", (s) => `${s.a}/slow`, { code: "network", says: "within 300 ms" }, {
    timeoutMs: 300,
  }],
  ["loopback without privateHosts", (s) => `${s.a}/ok`, { code: "address", says: "loopback" }, {}, {
    privateHosts: [],
  }],
  [
    "a name that resolves to loopback",
    (s) => `http://localhost:${s.portA}/ok`,
    { code: "address", says: "resolves" },
    {},
    {
      hosts: ["localhost"],
      privateHosts: [],
    },
  ],
  ["a name explicitly allowed as private", (s) => `http://localhost:${s.portA}/ok`, { body: "fine" }, {}, {
    privateHosts: ["localhost"],
  }],
  ["a wildcard that does not match the apex", (s) => `http://localhost:${s.portA}/ok`, { code: "host" }, {}, {
    hosts: ["*.localhost"],
    privateHosts: [],
  }],
  [
    "cloud metadata even when its host is allowed",
    () => "http://169.254.169.254/latest/meta-data",
    {
      code: "address",
      says: "cloud-metadata",
    },
    {},
    { hosts: ["169.254.169.254"], privateHosts: [], ports: [80] },
  ],
];

for (const [label, url, expect, options, net] of cases) {
  const verdict = "body" in expect ? "fetches" : "refuses";
  Deno.test({
    name: `safeFetch() ${verdict}: ${label}`,
    permissions: { net: NET },
    fn: () =>
      withServers(async (s) => {
        const input = url(s);
        const before = s.hitsB();
        let seen: string;
        try {
          const response = await safeFetch(input, { policy: policyFor(s.portA, net), ...options });
          seen = new TextDecoder().decode(response.body);
          assert.ok("body" in expect, `expected a refusal, got ${response.status} ${seen.slice(0, 80)}`);
          assert.equal(seen, expect.body);
          if (expect.redirects !== undefined) assert.equal(response.redirects.length, expect.redirects);
        } catch (err) {
          if (err instanceof assert.AssertionError) throw err;
          seen = err instanceof Error ? err.message : String(err);
          if ("limit" in expect) {
            assert.ok(err instanceof LimitError, String(err));
          } else {
            assert.ok(err instanceof PolicyError, `expected PolicyError, got ${err}`);
            assert.ok("code" in expect, `expected success, got ${err.code}: ${err.message}`);
            assert.equal(err.code, expect.code, err.message);
            if (expect.says) assert.ok(err.message.includes(expect.says), err.message);
          }
          assert.match(seen, /^Cannot fetch/);
          assert.ok(seen.length < 300, "the message quotes hostile input whole");
        }
        assert.ok(!seen.includes(CANARY), "the canary leaked");
        assert.equal(s.hitsB(), before, "the forbidden server was contacted");
      }),
  });
}

Deno.test({
  name: "safeFetch() truncates a body at the cap when asked and says so",
  permissions: { net: NET },
  fn: () =>
    withServers(async (s) => {
      const response = await safeFetch(`${s.a}/big`, { policy: policyFor(s.portA), truncate: true });
      assert.equal(response.body.length, 1000);
      assert.equal(response.truncated, true);
    }),
});

Deno.test({
  name: "safeFetch() says a response's headers are too many, not that the connection failed",
  permissions: { net: NET },
  fn: () =>
    withServers(async (s) => {
      await assert.rejects(
        safeFetch(`${s.a}/many-headers`, { policy: policyFor(s.portA) }),
        (err: unknown) =>
          err instanceof PolicyError && err.code === "network" &&
          /: the response's headers are too many or too large$/.test(err.message),
      );
    }),
});

Deno.test({
  name: "safeFetch() turns a POST into a GET on 303 and keeps it on 307",
  permissions: { net: NET },
  fn: () =>
    withServers(async (s) => {
      const policy = policyFor(s.portA);
      const see = await safeFetch(`${s.a}/redirect?status=303&to=/echo`, { policy, method: "POST", body: "data" });
      assert.deepEqual(JSON.parse(new TextDecoder().decode(see.body)), {
        method: "GET",
        body: "",
        authorization: null,
      });
      const keep = await safeFetch(`${s.a}/redirect?status=307&to=/echo`, { policy, method: "POST", body: "data" });
      assert.deepEqual(JSON.parse(new TextDecoder().decode(keep.body)), {
        method: "POST",
        body: "data",
        authorization: null,
      });
    }),
});

Deno.test({
  name: "safeFetch() drops Authorization on a cross-origin redirect and keeps it on the same origin",
  permissions: { net: NET },
  fn: () =>
    withServers(async (s) => {
      const policy = policyFor(s.portA, { privateHosts: ["127.0.0.1", "localhost"] });
      const headers = { authorization: "Bearer token" };
      const same = await safeFetch(`${s.a}/redirect?to=/echo`, { policy, headers });
      assert.equal(JSON.parse(new TextDecoder().decode(same.body)).authorization, "Bearer token");
      const cross = await safeFetch(`${s.a}/redirect?to=${enc(`http://localhost:${s.portA}/echo`)}`, {
        policy,
        headers,
      });
      assert.equal(JSON.parse(new TextDecoder().decode(cross.body)).authorization, null);
    }),
});

Deno.test({
  name: "safeFetch() passes a caller's abort through unchanged",
  permissions: { net: NET },
  fn: () =>
    withServers(async (s) => {
      const controller = new AbortController();
      controller.abort(new Error("cancelled by the client"));
      await assert.rejects(
        safeFetch(`${s.a}/ok`, { policy: policyFor(s.portA), signal: controller.signal }),
        /cancelled by the client/,
      );
    }),
});

// Layer 2 on its own: a policy that wrongly allows the forbidden host is
// still stopped by the test's scoped net permission.
Deno.test({
  name: "layer 2 stops a host that a too-wide policy allows",
  permissions: { net: ["127.0.0.1"] },
  async fn() {
    // The forbidden server cannot even be started under this permission, so a
    // closed port on 127.0.0.2 stands in: Deno refuses before connecting.
    const policy = definePolicy({
      net: { schemes: ["http"], hosts: ["127.0.0.2"], privateHosts: ["127.0.0.2"], ports: [19999] },
    });
    const err = await safeFetch("http://127.0.0.2:19999/canary", { policy }).catch((e) => e);
    assert.ok(err instanceof PolicyError);
    assert.equal(err.code, "no-permission");
    assert.equal(
      err.message,
      `Cannot fetch "http://127.0.0.2:19999/canary": the server's permissions do not allow this connection`,
    );
  },
});

// Layer 1 on its own: what Deno's --allow-net allows, the policy refuses.
Deno.test({
  name: "layer 1 refuses a decimal IP and a redirect that Deno's --allow-net allows",
  permissions: { net: NET },
  fn: () =>
    withServers(async (s) => {
      const direct = await fetch(`http://2130706433:${s.portA}/ok`);
      assert.equal(await direct.text(), "fine");
      const followed = await fetch(`${s.a}/to-canary`);
      assert.equal(await followed.text(), CANARY);
      const policy = policyFor(s.portA);
      await assert.rejects(safeFetch(`http://2130706433:${s.portA}/ok`, { policy }), PolicyError);
      const hits = s.hitsB();
      await assert.rejects(safeFetch(`${s.a}/to-canary`, { policy }), PolicyError);
      assert.equal(s.hitsB(), hits);
    }),
});

Deno.test({
  name: "safeFetch() names an unparsable redirect Location as invalid instead of a failed connection",
  permissions: { net: NET },
  fn: () =>
    withServers(async (s) => {
      for (const location of ["http://[::1", "https://[::1]:99999/", "http://%zz/", "//[::1"]) {
        await assert.rejects(
          safeFetch(`${s.a}/redirect?to=${encodeURIComponent(location)}`, { policy: policyFor(s.portA) }),
          (err: unknown) => {
            assert.ok(err instanceof PolicyError && err.code === "redirect", String(err));
            assert.match(err.message, /: a redirect's Location ".*" is not a valid URL$/);
            return true;
          },
          location,
        );
      }
    }),
});

Deno.test({
  name: "safeFetch() redacts a Location and the hop it leads to before a refusal quotes and cuts them",
  permissions: { net: NET },
  fn: () =>
    withServers(async (s) => {
      // A server echoing a secret in a Location, padded so that each quote's cut would fall inside it: redacted
      // first, it is hidden whole, where a cut would have shown its start.
      const secret = `s3cret${crypto.randomUUID().replaceAll("-", "")}`;
      const redact = (text: string) => text.replaceAll(secret, "[R]");
      const locations = [
        `http://[${"p".repeat(100 - "http://[".length - 6)}${secret}`,
        `http://${"h".repeat(64 - 6)}${secret}.example/`,
        `http://${"h".repeat(10)}${secret}.example/${"p".repeat(100 - 29 - secret.length - 10 - 6)}${secret}`,
      ];
      for (const location of locations) {
        await assert.rejects(
          safeFetch(`${s.a}/redirect?to=${encodeURIComponent(location)}`, { policy: policyFor(s.portA), redact }),
          (err: unknown) => {
            assert.ok(err instanceof PolicyError, String(err));
            // What follows the URL asked for (which holds the secret only because this test wrote it there).
            const said = err.message.slice(err.message.indexOf('": ') + 3);
            assert.match(said, /\[R\]/);
            assert.ok(!said.includes(secret.slice(0, 6)), err.message);
            return true;
          },
          location,
        );
      }
    }),
});

Deno.test({
  name: "safeFetch() asks checkRedirect about each hop before requesting it, and a throw refuses the hop",
  permissions: { net: NET },
  fn: () =>
    withServers(async (s) => {
      const asked: [string, string][] = [];
      const followed = await safeFetch(`${s.a}/chain/2`, {
        policy: policyFor(s.portA),
        checkRedirect: (next, from) => void asked.push([next.pathname, from.pathname]),
      });
      assert.equal(new TextDecoder().decode(followed.body), "end of chain");
      assert.deepEqual(asked, [["/chain/1", "/chain/2"], ["/chain/0", "/chain/1"]]);
      // The policy allows both servers, so only checkRedirect stands between the hop and 127.0.0.2.
      const both = ["127.0.0.1", "127.0.0.2"];
      const policy = policyFor(s.portA, {
        hosts: both,
        privateHosts: both,
        ports: [s.portA, Number(new URL(s.b).port)],
      });
      const refuse = (next: URL) => {
        throw new PolicyError("redirect", `Cannot fetch: ${next.host} refused by the caller`);
      };
      await assert.rejects(safeFetch(`${s.a}/to-canary`, { policy, checkRedirect: refuse }), /refused by the caller/);
      assert.equal(s.hitsB(), 0, "the refused hop was never requested");
      const unchecked = await safeFetch(`${s.a}/to-canary`, { policy });
      assert.equal(new TextDecoder().decode(unchecked.body), CANARY, "without the hook the hop is followed");
      assert.equal(s.hitsB(), 1);
    }),
});

Deno.test({
  name:
    "safeFetch() asks for the body as sent (accept-encoding: identity), so maxBytes caps what crosses the network: a stream of empty gzip members is cut there, not decoded to nothing while it downloads; a caller's own accept-encoding is kept",
  permissions: { net: NET },
  fn: () =>
    withServers(async ({ a, portA }) => {
      const policy = policyFor(portA);
      const asked = await safeFetch(`${a}/accept-encoding`, { policy });
      assert.equal(new TextDecoder().decode(asked.body), "identity");
      const own = await safeFetch(`${a}/accept-encoding`, { policy, headers: { "accept-encoding": "gzip" } });
      assert.equal(new TextDecoder().decode(own.body), "gzip");
      const coded = await safeFetch(`${a}/empty-gzip`, { policy, maxBytes: 65_536, truncate: true });
      assert.equal(coded.headers.get("content-encoding"), "gzip");
      assert.deepEqual([coded.body.length, coded.truncated], [65_536, true]);
      assert.deepEqual([...coded.body.subarray(0, 2)], [0x1f, 0x8b], "the bytes as sent");
    }),
});

Deno.test({
  name:
    "safeFetch() does not wait for a host lookup past its deadline (red-team finding: a 4 s lookup held a 500 ms fetch)",
  permissions: { net: NET },
  async fn() {
    let settled = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    // A resolver that answers after ten seconds: the fetch must end at its deadline, with the lookup still pending.
    const lookup = () =>
      new Promise<string[]>((resolve) => {
        timer = setTimeout(() => (settled = true, resolve(["192.0.2.1"])), 10_000);
      });
    try {
      await assert.rejects(
        safeFetch("http://slow.example/ok", {
          policy: definePolicy({ net: { hosts: ["slow.example"], schemes: ["http"], ports: [80] } }),
          timeoutMs: 200,
          lookup,
        }),
        (err: unknown) => err instanceof PolicyError && /no complete response within 200 ms/.test(err.message),
      );
      assert.equal(settled, false, "the fetch ended before the lookup answered");
    } finally {
      clearTimeout(timer);
    }
  },
});
