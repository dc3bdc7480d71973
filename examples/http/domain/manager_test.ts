// test-permissions: --allow-net=127.0.0.1,127.0.0.2,localhost
import assert from "node:assert/strict";
import { ToolError } from "@forge/toolkit";
import { PolicyError } from "@forge/toolkit/validate";
import { assertCanaryUntouched, testConfig, testServersForFile } from "../testdata/test_servers.ts";
import type { Config } from "./config.ts";
import { Manager } from "./manager.ts";

const servers = testServersForFile();
const SHARED = { sanitizeOps: false, sanitizeResources: false, permissions: { net: ["127.0.0.1"] } };

/** A test with the file's settings that, once done, checks it sent nothing to the canary server. */
function test(t: { name: string; fn: () => Promise<void> }): void {
  Deno.test({ ...SHARED, name: t.name, fn: () => t.fn().then(() => assertCanaryUntouched(servers)) });
}

const config = (init: Record<string, unknown> = {}): Config => testConfig(servers, init);

/** A manager over a config the test can swap, as a reload would. */
function managed(initial: Config, timeoutMs = initial.timeout_ms) {
  let current = initial;
  const mgr = new Manager(() => Promise.resolve(current), { timeoutMs });
  return { mgr, set: (next: Config) => void (current = next) };
}

test({
  name: "Manager.fetch() reads the current config on every call: a narrowed config refuses the very next call",
  async fn() {
    const { mgr, set } = managed(config());
    assert.equal((await mgr.fetch({ url: `${servers.main}/text` })).body, "hello, world");
    set(config({ allow_hosts: ["example.com"], allow_private_hosts: [] }));
    await assert.rejects(mgr.fetch({ url: `${servers.main}/text` }), PolicyError);
    set(config());
    assert.equal((await mgr.fetch({ url: `${servers.main}/text` })).status, 200);
  },
});

test({
  name: "Manager.fetch() applies a lowered timeout_ms at once, but never one above the start-up value",
  async fn() {
    const { mgr, set } = managed(config({ timeout_ms: 300 }));
    await assert.rejects(mgr.fetch({ url: `${servers.main}/slow` }), /no complete response within 300 ms/);
    set(config({ timeout_ms: 120_000 }));
    await assert.rejects(mgr.fetch({ url: `${servers.main}/slow` }), /no complete response within 300 ms/);
    set(config({ timeout_ms: 150 }));
    await assert.rejects(mgr.fetch({ url: `${servers.main}/slow` }), /no complete response within 150 ms/);
  },
});

test({
  name: "Manager.fetch() refuses bad headers before any request is sent",
  async fn() {
    const { mgr } = managed(config());
    const seen = servers.requests.length;
    await assert.rejects(mgr.fetch({ url: `${servers.main}/echo`, headers: { Host: "internal" } }), ToolError);
    assert.equal(servers.requests.length, seen);
    const echoed = await mgr.fetch({ url: `${servers.main}/echo`, headers: { "X-Trace": "t-1" } });
    assert.equal(JSON.parse(echoed.body).headers["x-trace"], "t-1");
  },
});

test({
  name: "Manager.fetch() sends the current config's credentials, hides them in the result and names env values",
  async fn() {
    const secret = `secret-${crypto.randomUUID()}`;
    const auth = [{ origins: [servers.main], scheme: "Token", credentials: secret }];
    const current = config({ auth });
    const mgr = new Manager(() => Promise.resolve(current), {
      timeoutMs: 2_000,
      redact: (text) => text.replaceAll(String(servers.mainPort), "${HTTP_PORT}"),
    });
    const result = await mgr.fetch({ url: `${servers.main}/echo` });
    assert.equal(JSON.parse(result.body).headers.authorization, "Token [hidden credential]");
    assert.equal(result.url, "http://127.0.0.1:${HTTP_PORT}/echo");
    assert.equal(servers.requests.at(-1)?.headers.authorization, `Token ${secret}`);
  },
});

test({
  name: "Manager.check() validates URL and headers without any request",
  async fn() {
    const { mgr } = managed(config());
    const seen = servers.requests.length;
    assert.equal((await mgr.check({ url: `${servers.main}/a/../b?q=1` })).pathname, "/b");
    await assert.rejects(mgr.check({ url: `${servers.canary}/` }), PolicyError);
    await assert.rejects(mgr.check({ url: `${servers.main}/`, headers: { Cookie: "a=b" } }), ToolError);
    assert.equal(servers.requests.length, seen);
  },
});

Deno.test("Manager.callTimeoutMs gives the tool the start-up fetch deadline plus a grace to answer", () => {
  const mgr = new Manager(() => Promise.resolve(config()), { timeoutMs: 2_000 });
  assert.ok(mgr.callTimeoutMs > 2_000 && mgr.callTimeoutMs <= 5_000);
});

test({
  name: "Manager.fetch() refuses every client-address header before any request reaches the server",
  async fn() {
    const { mgr } = managed(config());
    const names = [
      "True-Client-IP",
      "X-Client-IP",
      "Client-IP",
      "CF-Connecting-IP",
      "Fastly-Client-IP",
      "X-Cluster-Client-IP",
      "X-Originating-IP",
      "X-Forwarded-For",
      "X-Real-IP",
      "Forwarded",
    ];
    const seen = servers.requests.length;
    for (const name of names) {
      await assert.rejects(
        mgr.fetch({ url: `${servers.main}/echo`, headers: { [name]: "10.0.0.1" } }),
        (err: Error) => err instanceof ToolError && /claim a client address/.test(err.message),
        name,
      );
    }
    assert.equal(servers.requests.length, seen, "no request was sent");
    const echoed = await mgr.fetch({ url: `${servers.main}/echo`, headers: { "X-Request-Id": "r1" } });
    assert.equal(JSON.parse(echoed.body).headers["x-request-id"], "r1");
  },
});

/** A manager whose config sends `secret` to `main` and allows both test origins. */
function credentialed(secret: string, init: Record<string, unknown> = {}) {
  const current = config({
    allow_hosts: [`127.0.0.1:${servers.mainPort}`, `127.0.0.1:${servers.otherPort}`],
    auth: [{ origins: [servers.main], scheme: "Bearer", credentials: secret }],
    ...init,
  });
  return new Manager(() => Promise.resolve(current), { timeoutMs: 2_000 });
}

/** The message of a refusal, checked to be a PolicyError. */
async function refusalOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof PolicyError, String(err));
    return err.message;
  }
  throw new assert.AssertionError({ message: "the call was not refused" });
}

test({
  name: "Manager.fetch() hides a credential that a refused redirect's Location carries, and still says why it refused",
  async fn() {
    // A quote in the value: the message JSON-escapes it, the URL parser percent-encodes it.
    const id = crypto.randomUUID();
    const mgr = credentialed(`se"cret-${id}`);
    const to = (location: string) => `${servers.main}/to-token?location=${encodeURIComponent(location)}`;

    const other = await refusalOf(mgr.fetch({ url: to(`${servers.other}/x?a={token}`) }));
    assert.match(other, /redirects to .*outside the allow_hosts entry that allowed it/);
    assert.ok(other.includes(`${servers.other}/x?a=[hidden credential]`), other);

    const invalid = await refusalOf(mgr.fetch({ url: to("http://[{token}]/") }));
    assert.match(invalid, /a redirect's Location "http:\/\/\[\[hidden credential\]\]\/" is not a valid URL/);

    // quote() keeps 200 characters of the hop: pad it so that the cut would fall inside the credential. The hop is
    // filtered before it is quoted, so the cut falls in the placeholder instead, never in the credential.
    const padding = "p".repeat(200 - `${servers.other}/`.length - "?a=".length - 12);
    const cut = await refusalOf(mgr.fetch({ url: to(`${servers.other}/${padding}?a={token}`) }));
    assert.ok(cut.includes(`?a=[hidden cred…`), cut);

    for (const message of [other, invalid, cut]) {
      assert.ok(!message.includes(id.slice(0, 8)) && !message.includes("cret"), message);
    }
    assert.equal(servers.requests.at(-1)?.headers.authorization, `Bearer se"cret-${id}`);
  },
});

test({
  name:
    "Manager.fetch() hides a credential that a redirect writes as a host: the refusal quotes the hop as sent, no form of it",
  async fn() {
    // A refusal quotes the host as URL parsing wrote it: percent-escapes decoded, then punycode; digits as an IPv4
    // address. The credential's own text was all the filter knew.
    const id = crypto.randomUUID().slice(0, 8);
    const mgr = credentialed(`s%C3%A9cret-${id}`);
    const to = (location: string) => `${servers.main}/to-token?location=${encodeURIComponent(location)}`;
    const host = await refusalOf(mgr.fetch({ url: to("http://{token}.evil.example/") }));
    assert.match(host, /redirects to "http:\/\/\[hidden credential\]\.evil\.example\/", and its host is not allowed$/);
    const digits = await refusalOf(credentialed("3232235777").fetch({ url: to("http://{token}/") }));
    assert.match(digits, /redirects to "http:\/\/\[hidden credential\]\/", and its IP address is not allowed in that/);
    // Digits as the last part of a dotted address: the refusal asked to "write 1.18.214.135" (1,234,567), a form the
    // filter did not know. A hop's refusal derives no form from the host the server wrote.
    const tails = [];
    for (const location of ["http://1.{token}/", "http://1.2.{token}/", "http://1.0x{token}/"]) {
      tails.push(await refusalOf(credentialed("1234567").fetch({ url: to(location) })));
    }
    for (const message of [host, digits, ...tails]) {
      assert.ok(!/xn--|scret|192\.168|3232235777|18\.214\.135|1234567|write/.test(message), message);
      assert.ok(!message.includes(id), message);
    }
  },
});

/** Whether `text`, written back in any of the encodings the server decodes, holds `secret`. */
function holds(text: string, secret: string): boolean {
  const forms = (value: string) => [
    new TextEncoder().encode(value),
    ...[true, false].map((littleEndian) => {
      const bytes = new Uint8Array(value.length * 2);
      const view = new DataView(bytes.buffer);
      for (let i = 0; i < value.length; i++) view.setUint16(i * 2, value.charCodeAt(i), littleEndian);
      return bytes;
    }),
  ];
  const hex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  // Compared as hex: a match at an even position is a match at a byte boundary, at any offset.
  return forms(text).some((bytes) =>
    forms(secret).some((needle) => {
      const haystack = hex(bytes);
      const wanted = hex(needle);
      for (let at = haystack.indexOf(wanted); at !== -1; at = haystack.indexOf(wanted, at + 1)) {
        if (at % 2 === 0) return true;
      }
      return false;
    })
  );
}

test({
  name: "Manager.fetch() hides a credential whose bytes an echoed body holds in another encoding than it declares",
  async fn() {
    const secret = `secret-${crypto.randomUUID()}`;
    const mgr = credentialed(secret);
    const cases = [
      ["utf-16le", "utf-8"],
      ["utf-16be", "utf-8"],
      ["utf-8", "utf-16le"],
      ["windows-1252", "utf-16be"],
    ];
    for (const [charset, encoding] of cases) {
      const result = await mgr.fetch({ url: `${servers.main}/echo-as?charset=${charset}&encoding=${encoding}` });
      assert.equal(servers.requests.at(-1)?.headers.authorization, `Bearer ${secret}`);
      assert.ok(!holds(result.body, secret), `${charset} over ${encoding}: ${result.body}`);
    }
    // The body as it declares itself is still shown, the credential hidden.
    const plain = await mgr.fetch({ url: `${servers.main}/echo-as?charset=utf-8&encoding=utf-8` });
    assert.equal(JSON.parse(plain.body).headers.authorization, "Bearer [hidden credential]");
  },
});

test({
  name: "Manager.fetch() shows a credential that the byte cap cuts whole, as its placeholder, never its start",
  async fn() {
    const secret = `secret-${crypto.randomUUID()}`;
    const whole = await credentialed(secret).fetch({ url: `${servers.main}/echo-as?charset=utf-8&encoding=utf-8` });
    // The echo is the same on every call: its hidden credential starts where the secret would.
    const at = new TextEncoder().encode(whole.body.slice(0, whole.body.indexOf("[hidden credential]"))).length;
    const capped = credentialed(secret, { max_bytes: at + 12 });
    const result = await capped.fetch({ url: `${servers.main}/echo-as?charset=utf-8&encoding=utf-8` });
    assert.equal(result.truncated, true);
    assert.ok(result.body.endsWith("Bearer [hidden credential]"), result.body);
    assert.ok(!result.body.includes(secret.slice(0, 12)));
  },
});

test({
  name:
    "Manager.fetch() hides a credential that a redirect hop, the Content-Type or a capped body cuts inside an escape",
  async fn() {
    // Each cut would fall just after "%2" of the `"`'s "%22", the id before it the credential's start; filtered
    // first, the hop and the header are shorter than their cut and the body ends with the hidden credential.
    const id = crypto.randomUUID();
    const secret = `${id}"rest`;
    const mgr = credentialed(secret);
    const hopStart = `${servers.main}/text?`;
    const hopPad = "p".repeat(1024 - hopStart.length - "&a=".length - id.length - "%2".length);
    const hop = `${hopStart}${hopPad}&a={token}`;
    const hopped = await mgr.fetch({ url: `${servers.main}/to-token?location=${encodeURIComponent(hop)}` });
    assert.equal(hopped.redirects[0], `${hopStart}${hopPad}&a=[hidden credential]`);

    const typePad = "p".repeat(256 - "text/plain; x=".length - id.length - "%2".length);
    const type = encodeURIComponent(`text/plain; x=${typePad}{token}`);
    const typed = await mgr.fetch({ url: `${servers.main}/token-in?type=${type}` });
    assert.equal(typed.content_type, `text/plain; x=${typePad}[hidden credential]`);

    // The cap counts the body as shown: it falls inside the placeholder, which is shown whole.
    const capped = credentialed(secret, { max_bytes: 20 + 5 });
    const body = await capped.fetch({ url: `${servers.main}/token-in?body=${"b".repeat(20)}{token}tail` });
    assert.equal(body.truncated, true);
    assert.equal(body.body, `${"b".repeat(20)}[hidden credential]`);

    for (const shown of [hopped.redirects[0], typed.content_type, body.body]) {
      assert.ok(!shown.includes(id.slice(0, 8)));
    }
    assert.equal(servers.requests.at(-1)?.headers.authorization, `Bearer ${secret}`);
  },
});

test({
  name: "Manager.fetch() shows an echo that holds the credential the same whatever its length: cut, whole, or a note",
  async fn() {
    // A red team read a token's length from one fetch: the cap counted the echo as read, the token in it, so what
    // followed the placeholder, `truncated` and a note's size moved with the length. The cap counts what is shown.
    const id = crypto.randomUUID().replaceAll("-", "");
    const secrets = [13, 40, 116, 2_000].map((n) => id.repeat(Math.ceil(n / id.length)).slice(0, n));
    const body = (type: string) =>
      `${servers.main}/token-in?body=${"a".repeat(50)}{token}${"z".repeat(300)}&type=${type}`;
    const seen = [];
    for (const secret of secrets) {
      const shown = [];
      for (const max_bytes of [120, 100_000]) {
        const mgr = credentialed(secret, { max_bytes });
        for (const url of [body("text/plain"), body("application/octet-stream")]) {
          const result = await mgr.fetch({ url });
          shown.push([result.body, result.truncated]);
        }
        const utf16 = await mgr.fetch({ url: `${servers.main}/echo-as?charset=utf-16le&encoding=utf-16le` });
        shown.push([utf16.body.replace(/"user-agent":"[^"]*"/, ""), utf16.truncated]);
      }
      assert.ok(!JSON.stringify(shown).includes(secret.slice(0, 12)));
      seen.push(shown);
    }
    for (const shown of seen) assert.deepEqual(shown, seen[0]);
    assert.deepEqual(seen[0].slice(0, 2), [
      [`${"a".repeat(50)}[hidden credential]${"z".repeat(51)}`, true],
      ['[body not shown: binary content; more than max_bytes of "application/octet-stream"]', true],
    ]);
  },
});

test({
  name: "Manager.fetch() is no oracle: an echo of candidate starts of the credential comes back as sent, cut or not",
  async fn() {
    // A red team's model recovered a 38-character token in 38 fetches: an echo on an origin never sent the credential
    // returned each candidate start followed by "…", and only the true one came back hidden. Now none is.
    const secret = `secret-${crypto.randomUUID()}`;
    const mgr = credentialed(secret);
    const alphabet = "abcdef0123456789-";
    const probe = (known: string) =>
      [...alphabet].map((c) => `<${known}${c}…>`).join("") +
      [...alphabet].map((c) => `<${encodeURIComponent(`${known}${c}`)}…><${JSON.stringify(known + c)}…>`).join("");
    const seen = servers.requests.length;
    // Up to the last but one character: a candidate that is the whole value is hidden (guessing it whole is no help).
    for (const known of ["", "s", secret.slice(0, 7), secret.slice(0, 20), secret.slice(0, -2)]) {
      const query = probe(known);
      const echoed = await mgr.fetch({ url: `${servers.other}/token-in?body=${encodeURIComponent(query)}` });
      assert.equal(echoed.body, query);
    }
    assert.ok(servers.requests.slice(seen).every((r) => r.headers.authorization === undefined));

    // The cap cuts the echo anywhere in a candidate, a true start of the credential or not: the body comes back cut.
    const pad = "b".repeat(20);
    const wrong = `${secret.slice(0, -2)}z`;
    for (let n = 1; n < secret.length; n += 3) {
      const capped = credentialed(secret, { max_bytes: pad.length + n });
      for (const candidate of [secret.slice(0, -1), wrong]) {
        const body = `${pad}${candidate}`;
        const result = await capped.fetch({ url: `${servers.other}/token-in?body=${body}` });
        assert.deepEqual([result.body, result.truncated], [body.slice(0, pad.length + n), true], body);
      }
    }
  },
});
