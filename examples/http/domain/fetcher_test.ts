// test-permissions: --allow-net=127.0.0.1,127.0.0.2,localhost,*.example.test
import assert from "node:assert/strict";
import { PolicyError } from "@forge/toolkit/validate";
import { assertCanaryUntouched, testServersForFile } from "../testdata/test_servers.ts";
import { fetchText, type FetchTextOptions } from "./fetcher.ts";
import { type NetConfig, NetRules } from "./net_rules.ts";

const servers = testServersForFile();
const { main, other, canary, canaryBody } = servers;
const NET = { net: ["127.0.0.1", "localhost"] };
// The test servers live as long as the file's tests; their connection ops outlive single tests.
const SHARED = { sanitizeOps: false, sanitizeResources: false };

function rules(init: Partial<NetConfig> = {}): NetRules {
  return new NetRules({
    allow_hosts: [`127.0.0.1:${servers.mainPort}`, `127.0.0.1:${servers.otherPort}`],
    allow_schemes: ["http"],
    allow_private_hosts: ["127.0.0.1"],
    timeout_ms: 2_000,
    max_bytes: 1_000,
    max_redirects: 3,
    ...init,
  });
}

function get(path: string, options: Partial<FetchTextOptions> = {}) {
  return fetchText(path.startsWith("http") ? path : `${main}${path}`, { rules: rules(), ...options });
}

/** Asserts a refusal with its code, and that nothing of the canary leaked into it. */
function refusal(code: PolicyError["code"], message?: RegExp) {
  return (err: unknown) => {
    assert.ok(err instanceof PolicyError, String(err));
    assert.equal(err.code, code, err.message);
    if (message) assert.match(err.message, message);
    assert.ok(!err.message.includes(canaryBody));
    return true;
  };
}

function test(name: string, fn: () => Promise<void>, permissions: Deno.PermissionOptionsObject = NET): void {
  Deno.test({ name, permissions, ...SHARED, fn: () => fn().then(() => assertCanaryUntouched(servers)) });
}

test("fetchText() returns status, content type and the body as text", async () => {
  assert.deepEqual(await get("/text"), {
    url: `${main}/text`,
    status: 200,
    content_type: "text/plain; charset=utf-8",
    body: "hello, world",
    truncated: false,
    redirects: [],
    binary: false,
  });
  assert.equal((await get("/latin1")).body, "café");
  assert.deepEqual(JSON.parse((await get("/json")).body), { ok: true, items: [1, 2] });
  assert.equal((await get("/untyped")).body, "plain ünïcode");
});

test("fetchText() shows a whole body that ends inside a character with U+FFFD at its end, typed or not, never dropping the bytes", async () => {
  for (const type of ["text/plain; charset=utf-8", "text/plain", ""]) {
    const got = await get(`/ends-mid-character${type === "" ? "" : `?type=${encodeURIComponent(type)}`}`);
    assert.deepEqual([got.body, got.truncated, got.binary], ["abc\ufffd", false, false], type);
  }
  // Cut at max_bytes inside the character instead, the part is held back and the body is marked cut.
  const cut = await get("/ends-mid-character?type=text/plain", { rules: rules({ max_bytes: 4 }) });
  assert.deepEqual([cut.body, cut.truncated], ["abc", true]);
});

test("fetchText() cuts a long Content-Type, and shows a body in any content coding (gzip too: it asked for none) as binary", async () => {
  const long = await get("/long-type");
  assert.equal(long.content_type.length, 257);
  assert.ok(long.content_type.endsWith("…"));
  assert.equal(long.body, "x");
  const deflated = await get("/deflated");
  assert.equal(deflated.binary, true);
  assert.match(deflated.body, /^\[body not shown: it is encoded as "deflate", which is not decoded; \d+ bytes\]$/);
  const gzipped = await get("/gzipped");
  assert.equal(gzipped.binary, true);
  assert.match(gzipped.body, /^\[body not shown: it is encoded as "gzip", which is not decoded; \d+ bytes\]$/);
});

test("fetchText() returns a non-2xx status as a result, not an error", async () => {
  const result = await get("/status?code=404");
  assert.equal(result.status, 404);
  assert.equal(result.body, "status 404");
  assert.equal((await get("/status?code=503")).status, 503);
});

test("fetchText() describes a binary body and an unknown charset instead of returning garbage", async () => {
  const png = await get("/png");
  assert.equal(png.binary, true);
  assert.equal(png.body, '[body not shown: binary content; 16 bytes of "image/png"]');
  assert.equal((await get("/untyped-nul")).binary, true);
  assert.match((await get("/odd-charset")).body, /the charset "x-no-such-charset" is not supported/);
});

test("fetchText() cuts a body over max_bytes, marks it, and never splits a character", async () => {
  const big = await get("/big?bytes=5000");
  assert.equal(big.truncated, true);
  assert.equal(big.body, "a".repeat(1_000));
  const wide = await get("/big?bytes=5000&char=é", { rules: rules({ max_bytes: 999 }) });
  assert.equal(wide.truncated, true);
  assert.equal(wide.body, "é".repeat(499), "the half character at byte 999 is dropped");
  assert.equal((await get("/big?bytes=1000")).truncated, false, "exactly the cap is whole");
});

test("fetchText() follows a redirect chain within max_redirects and lists every hop", async () => {
  const result = await get("/chain?n=3");
  assert.equal(result.url, `${main}/text`);
  assert.equal(result.body, "hello, world");
  assert.deepEqual(result.redirects, [`${main}/chain?n=2`, `${main}/chain?n=1`, `${main}/text`]);
});

test("fetchText() refuses more redirects than max_redirects, and a loop", async () => {
  await assert.rejects(get("/chain?n=4"), refusal("redirect", /more than 3 redirects/));
  await assert.rejects(get("/loop"), refusal("redirect"));
  await assert.rejects(get("/chain?n=1", { rules: rules({ max_redirects: 0 }) }), refusal("redirect"));
});

test("fetchText() refuses a redirect to a host that is not allowed: the canary is never fetched", async () => {
  const location = encodeURIComponent(`${canary}/`);
  await assert.rejects(
    get(`/to?location=${location}`),
    refusal("host", /redirects to "http:\/\/127\.0\.0\.2:\d+\/", and its host is not allowed/),
  );
  await assert.rejects(get(`${canary}/`), refusal("host", /the host "127.0.0.2" is not allowed/));
});

test("fetchText() refuses redirects to private addresses, non-canonical IPs and names that resolve to loopback", async () => {
  const withPrivate = rules({
    allow_hosts: [`127.0.0.1:${servers.mainPort}`, "10.0.0.1:80", `localhost:${servers.mainPort}`],
  });
  const to = (location: string) => get(`/to?location=${encodeURIComponent(location)}`, { rules: withPrivate });
  await assert.rejects(to("http://10.0.0.1/"), refusal("address", /10.0.0.1 is a private address/));
  await assert.rejects(to(`http://2130706433:${servers.mainPort}/`), refusal("ip-literal"));
  await assert.rejects(to(`http://localhost:${servers.mainPort}/text`), refusal("address", /resolves to a loopback/));
  await assert.rejects(to(`http://[::ffff:7f00:1]:${servers.mainPort}/`), PolicyError);
  await assert.rejects(to("file:///etc/passwd"), refusal("scheme"));
});

test("fetchText() refuses a first URL whose port is not allowed for its host, before any connection", async () => {
  const seen = servers.requests.length;
  const split = rules({ allow_hosts: [`127.0.0.1:${servers.mainPort}`, `other.test:${servers.otherPort}`] });
  await assert.rejects(get(`${other}/text`, { rules: split }), refusal("port", /is not allowed for "127.0.0.1"/));
  assert.equal(servers.requests.length, seen, "no request was sent");
});

test("fetchText() refuses, before requesting it, a redirect to a port allowed only for another host", async () => {
  // The policy's one port list would let safeFetch follow the hop; the per-host rule refuses it first.
  const split = rules({ allow_hosts: [`127.0.0.1:${servers.mainPort}`, `other.test:${servers.otherPort}`] });
  const location = encodeURIComponent(`${other}/json`);
  const seen = servers.requests.filter((r) => r.origin === other).length;
  await assert.rejects(
    get(`/to?location=${location}`, { rules: split }),
    refusal("port", new RegExp(`redirects to "${other}/json", and its port is not allowed for its host`)),
  );
  assert.equal(servers.requests.filter((r) => r.origin === other).length, seen, "no request reached the other port");
});

test("fetchText() refuses a redirect to another allowed entry's port of a private host: no blind GET", async () => {
  // Both origins are allowed; the call asked for main, so a redirect may not pick other for it.
  const seen = servers.requests.filter((r) => r.origin === other).length;
  for (const code of [301, 302, 303, 307, 308]) {
    const location = encodeURIComponent(`${other}/json`);
    await assert.rejects(
      get(`/to?code=${code}&location=${location}`),
      refusal(
        "redirect",
        new RegExp(
          `it redirects to "${other}/json", outside the allow_hosts entry that allowed it ` +
            `\\("127.0.0.1:${servers.mainPort}"\\); fetch that URL directly if it is allowed$`,
        ),
      ),
    );
  }
  assert.equal(servers.requests.filter((r) => r.origin === other).length, seen, "no request reached the other origin");
  assert.equal((await get(`${other}/json`)).status, 200, "asked for directly, the other origin is fetched");
});

test("fetchText() follows a redirect that stays on the entry that allowed the URL, absolute or relative", async () => {
  const absolute = await get(`/to?location=${encodeURIComponent(`${main}/text`)}`);
  assert.deepEqual([absolute.body, absolute.redirects], ["hello, world", [`${main}/text`]]);
  const relative = await get(`/to?location=${encodeURIComponent("/json")}`);
  assert.equal(relative.url, `${main}/json`);
});

test("fetchText() says a redirect's Location is invalid, not that the connection failed", async () => {
  for (const location of ["http://[::1", "http://[::1]:99999/", "http://%zz/", "//[::1"]) {
    await assert.rejects(
      get(`/to?location=${encodeURIComponent(location)}`),
      refusal("redirect", /: a redirect's Location ".*" is not a valid URL$/),
      location,
    );
  }
});

test("fetchText() gives up at timeout_ms with a clear refusal, while headers or body are slow", async () => {
  const quick = rules({ timeout_ms: 200 });
  await assert.rejects(get("/slow", { rules: quick }), refusal("network", /no complete response within 200 ms/));
  await assert.rejects(get("/slow-body", { rules: quick }), refusal("network", /within 200 ms/));
  await assert.rejects(
    get("/slow", { timeoutMs: 150 }),
    refusal("network", /within 150 ms/),
    "the option beats the policy",
  );
});

test("fetchText() stops when the call's signal aborts, and the server sees the request go away", async () => {
  const controller = new AbortController();
  const count = (paths: string[]) => paths.filter((path) => path === "/slow").length;
  const [asked, aborted] = [count(servers.requests.map((r) => r.path)), count(servers.aborted)];
  const pending = get("/slow", { signal: controller.signal });
  // Aborted once the server holds the request: it sees the client go away.
  await servers.requested("/slow", asked + 1);
  controller.abort(new DOMException("cancelled", "AbortError"));
  await assert.rejects(pending, (err: Error) => err.name === "AbortError");
  await servers.abortedTimes("/slow", aborted + 1);
});

test("fetchText() sends the caller's headers", async () => {
  const headers = new Headers({ "X-Trace": "trace-1", Accept: "application/json" });
  const echoed = JSON.parse((await get("/echo", { headers })).body);
  assert.equal(echoed.method, "GET");
  assert.equal(echoed.headers["x-trace"], "trace-1");
  assert.equal(echoed.headers.accept, "application/json");
});

test("fetchText() sends credentials only to their origin", async () => {
  const secret = `secret-${crypto.randomUUID()}`;
  const auth = [{ origins: [main], scheme: "Bearer", credentials: secret }];
  const seen = servers.requests.length;

  await get("/echo", { auth });
  await get(`${other}/echo`, { auth });
  await assert.rejects(
    get(`/to?location=${encodeURIComponent(`${other}/echo`)}`, { auth }),
    refusal("redirect"),
  );

  const sent = servers.requests.slice(seen);
  assert.equal(sent.length, 3, "the redirect to another origin was never requested");
  assert.equal(sent[0].headers.authorization, `Bearer ${secret}`, "the configured origin got it");
  assert.equal(sent[1].headers.authorization, undefined, "another origin did not");
  assert.equal(sent[2].headers.authorization, `Bearer ${secret}`, "the first hop of the redirect did");
});

test(
  "Deno's flags refuse a host that layer 1 allows but the process was not started with, and say how to fix it",
  async () => {
    // Layer 1 allows the canary host (as a reload could); Deno's grant covers only the main server.
    const widened = rules({
      allow_hosts: [`127.0.0.1:${servers.mainPort}`, `127.0.0.2:${servers.canaryPort}`],
      allow_private_hosts: ["127.0.0.1", "127.0.0.2"],
    });
    const outside =
      /outside what this process was started with; restart the server with the flags from --print-permissions/;
    await assert.rejects(get(`${canary}/`, { rules: widened }), refusal("no-permission", outside));
    await assert.rejects(Deno.connect({ hostname: "127.0.0.2", port: servers.canaryPort }), Deno.errors.NotCapable);
    // A redirect there leaves the entry that allowed the call, so layer 1 refuses it before layer 2 is asked.
    const location = encodeURIComponent(`${canary}/`);
    await assert.rejects(get(`/to?location=${location}`, { rules: widened }), refusal("redirect"));
  },
  { net: [`127.0.0.1:${servers.mainPort}`] },
);

test(
  "fetchText() lets a *.suffix host past the start-up check: Deno's wildcard grant covers its subdomains",
  async () => {
    const wildcard = rules({ allow_hosts: ["*.example.test"], allow_schemes: ["https"], allow_private_hosts: [] });
    // Past both checks the name is looked up (.test names do not resolve): any refusal but "no-permission".
    await assert.rejects(get("https://api.example.test/", { rules: wildcard }), (err: unknown) => {
      assert.ok(err instanceof PolicyError && err.code === "network", String(err));
      return true;
    });
  },
  { net: ["*.example.test"] },
);
