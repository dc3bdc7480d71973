import assert from "node:assert/strict";
import { ConfigError, expand, fromSchema } from "@forge/toolkit/configreload";
import { type Config, ConfigSchema, MAX_BYTES_LIMIT, SECRET_FIELDS } from "./config.ts";
import { MAX_CREDENTIAL_LENGTH, MAX_CREDENTIALS_TOTAL, SecretFilter } from "./secret_filter.ts";

const SECRET = "s3cret-token-value";
const env = { get: (name: string) => (name === "HTTP_TOKEN" ? SECRET : undefined) };
const parse = (doc: unknown): Config => fromSchema(ConfigSchema, { secretFields: SECRET_FIELDS })(expand(doc, { env }));

function refused(doc: unknown, pattern: RegExp): void {
  assert.throws(() => parse(doc), (err: Error) => {
    assert.ok(err instanceof ConfigError, `${err}`);
    assert.match(err.message, pattern);
    assert.ok(!err.message.includes(SECRET), "the secret is never in the message");
    return true;
  });
}

Deno.test("an empty config allows nothing: no hosts, https only, no private hosts, no credentials", () => {
  const config = parse({});
  assert.deepEqual(config.allow_hosts, []);
  assert.deepEqual(config.allow_schemes, ["https"]);
  assert.deepEqual(config.allow_private_hosts, []);
  assert.deepEqual(config.auth, []);
  assert.equal(config.timeout_ms, 10_000);
  assert.equal(config.max_bytes, 1024 * 1024);
  assert.equal(config.max_redirects, 5);
});

Deno.test("the config refuses unknown keys, so a typo is an error rather than an ignored rule", () => {
  refused({ allow_host: ["a.example"] }, /allow_host/);
});

Deno.test("the config refuses a malformed host entry and names it", () => {
  refused(
    { allow_hosts: ["ok.example", "bad.example:99999"] },
    /allow_hosts\[1\]: Cannot use host "bad.example:99999"/,
  );
  refused({ allow_hosts: ["0177.0.0.1"] }, /allow_hosts\[0\]: Cannot use host "0177.0.0.1": is not a canonical/);
  refused({ allow_schemes: ["ftp"] }, /allow_schemes\[0\]/);
});

Deno.test("the config refuses a private host that is not an allowed host", () => {
  const message = /allow_private_hosts\[0\]: must be an exact host that allow_hosts lists too/;
  refused({ allow_hosts: ["a.example"], allow_private_hosts: ["127.0.0.1"] }, message);
  refused({ allow_hosts: ["*.a.example"], allow_private_hosts: ["*.a.example"] }, message);
  refused({ allow_hosts: ["127.0.0.1:8080"], allow_private_hosts: ["127.0.0.1:8080"] }, message);
  assert.deepEqual(parse({ allow_hosts: ["127.0.0.1:8080"], allow_private_hosts: ["127.0.0.1"] }).allow_private_hosts, [
    "127.0.0.1",
  ]);
});

Deno.test("the config keeps limits in range", () => {
  refused({ timeout_ms: 0 }, /timeout_ms/);
  refused({ timeout_ms: 1.5 }, /timeout_ms/);
  refused({ max_bytes: MAX_BYTES_LIMIT + 1 }, /max_bytes/);
  refused({ max_redirects: 11 }, /max_redirects/);
  assert.equal(parse({ max_redirects: 0 }).max_redirects, 0);
});

Deno.test("credentials must come from ${NAME}: a literal secret is refused and not echoed", () => {
  const doc = (credentials: string) => ({
    allow_hosts: ["api.example.com"],
    auth: [{ origins: ["https://api.example.com"], scheme: "Bearer", credentials }],
  });
  assert.equal(parse(doc("${HTTP_TOKEN}")).auth[0].credentials, SECRET);
  assert.throws(() => parse(doc("literal-token")), (err: Error) => {
    assert.match(err.message, /auth\[0\]\.credentials: holds a literal secret/);
    assert.ok(!err.message.includes("literal-token"));
    return true;
  });
  refused(doc("Bearer ${HTTP_TOKEN}"), /holds a literal secret/);
  refused(doc("${HTTP_MISSING}"), /uses \$\{HTTP_MISSING\}, which is not set/);
});

Deno.test("credentials go only to origins the config allows, each listed once", () => {
  const auth = (origins: string[]) => ({
    allow_hosts: ["api.example.com", "127.0.0.1:8080"],
    allow_schemes: ["https", "http"],
    allow_private_hosts: ["127.0.0.1"],
    auth: [{ origins, credentials: "${HTTP_TOKEN}" }],
  });
  assert.deepEqual(parse(auth(["https://api.example.com", "http://127.0.0.1:8080"])).auth[0].origins, [
    "https://api.example.com",
    "http://127.0.0.1:8080",
  ]);
  refused(
    auth(["https://evil.example"]),
    /auth\[0\]\.origins\[0\]: Cannot use origin "https:\/\/evil.example": its host/,
  );
  refused(auth(["https://api.example.com:8443"]), /auth\[0\]\.origins\[0\]: .*its port is not allowed for its host/);
  refused(auth(["https://api.example.com/v1"]), /auth\[0\]\.origins\[0\]: Cannot use origin/);
  refused(auth(["https://api.example.com", "HTTPS://API.example.com"]), /auth\[0\]\.origins\[1\]: .*listed twice/);
});

Deno.test("a value from ${NAME} in allow_hosts or auth origins is never printed, not even lower-cased or cut", () => {
  // The refinement used to hand on the host as parseHostEntry made it (lower-cased, without its port) and the
  // origin as URL parsing wrote it: forms of the value the loader's redaction did not know (it now knows one
  // lower-cased, still not one without its port), printed on stderr.
  const values: Record<string, string> = {
    HTTP_HOST: "Bad!Host.Internal-X7Q.Example:8080",
    HTTP_WILD: "*.Bad!Wild.Internal-X7Q.Example",
    HTTP_ORIGIN: "https://Billing.Internal-X7Q.Example",
    HTTP_PORTED: "HTTPS://API.Example.com:8443",
    HTTP_TWICE: "HTTPS://API.Example.com:443",
    HTTP_TOKEN: SECRET,
  };
  const named = { get: (name: string) => values[name] };
  const load = (doc: unknown) => fromSchema(ConfigSchema, { secretFields: SECRET_FIELDS })(expand(doc, { env: named }));
  const docs = [
    { allow_hosts: ["${HTTP_HOST}", "${HTTP_WILD}"] },
    {
      allow_hosts: ["api.example.com"],
      auth: [{
        origins: ["https://api.example.com", "${HTTP_ORIGIN}", "${HTTP_PORTED}", "${HTTP_TWICE}"],
        credentials: "${HTTP_TOKEN}",
      }],
    },
  ];
  const expected = [
    [
      /allow_hosts\[0\]: Cannot use host "\$\{HTTP_HOST\}": is not a canonical host name/,
      /allow_hosts\[1\]: Cannot use host "\$\{HTTP_WILD\}"/,
    ],
    [
      /auth\[0\]\.origins\[1\]: Cannot use origin "\$\{HTTP_ORIGIN\}": its host is not in allow_hosts/,
      /auth\[0\]\.origins\[2\]: Cannot use origin "\$\{HTTP_PORTED\}": its port is not allowed for its host/,
      /auth\[0\]\.origins\[3\]: Cannot use origin "\$\{HTTP_TWICE\}": it is listed twice/,
    ],
  ];
  docs.forEach((doc, i) => {
    assert.throws(() => load(doc), (err: Error) => {
      assert.ok(err instanceof ConfigError, `${err}`);
      for (const pattern of expected[i]) assert.match(err.message, pattern);
      const text = err.message.toLowerCase();
      for (const value of Object.values(values)) {
        const host = value.replace(/^\*\.|^https:\/\//i, "").replace(/:\d+$/, "").toLowerCase();
        assert.ok(!text.includes(host), `${host} is not in ${err.message}`);
      }
      return true;
    });
  });
});

Deno.test("a host from ${NAME} that the policy refuses gets the policy's reason with no form of its value in it", () => {
  // Each value reaches a different refusal of definePolicy(); its reason is read from the error's fields, so a
  // reason that quoted the host (as the message does) would print the value where the entry names only the variable.
  const values: Record<string, [string, string]> = {
    HTTP_NAME: ["Bad!Name.Internal-K4Z.Example:8443", "is not a canonical host name or IP literal"],
    HTTP_SUFFIX: ["*.Internal-K4Z..Example", "is not a valid `*.suffix`"],
    HTTP_V6: ["[2001:DB8::0:42]:8443", "is not a canonical IPv6 literal"],
    HTTP_OCTAL: ["0177.0.0.1", "is not a canonical host name or IP literal"],
  };
  const named = { get: (name: string) => values[name]?.[0] };
  const names = Object.keys(values);
  const doc = { allow_hosts: ["api.example.com", ...names.map((name) => `\${${name}}`)] };
  assert.throws(() => fromSchema(ConfigSchema, { secretFields: SECRET_FIELDS })(expand(doc, { env: named })), (err) => {
    assert.ok(err instanceof ConfigError, `${err}`);
    assert.equal(err.message.split("allow_hosts[").length - 1, names.length, err.message);
    names.forEach((name, i) => {
      const issue = `allow_hosts[${i + 1}]: Cannot use host "\${${name}}": ${values[name][1]} (value from \${${name}})`;
      assert.ok(err.message.includes(issue), `${issue} is not in ${err.message}`);
    });
    const text = err.message.toLowerCase();
    for (const [value] of Object.values(values)) {
      for (const form of [value, value.replace(/:\d+$/, ""), value.replace(/^\*\./, "")]) {
        assert.ok(!text.includes(form.toLowerCase()), `${form} is in ${err.message}`);
      }
    }
    assert.ok(!text.includes("k4z") && !text.includes("db8") && !text.includes("0177"), err.message);
    return true;
  });
});

Deno.test("credentials must be one token of visible ASCII, and the scheme one HTTP token", () => {
  const doc = {
    allow_hosts: ["api.example.com"],
    auth: [{ origins: ["https://api.example.com"], credentials: "${HTTP_TOKEN}" }],
  };
  const spaced = { get: (name: string) => (name === "HTTP_TOKEN" ? "two words" : undefined) };
  assert.throws(
    () => fromSchema(ConfigSchema, { secretFields: SECRET_FIELDS })(expand(doc, { env: spaced })),
    (err: Error) =>
      /auth\[0\]\.credentials: must be visible ASCII/.test(err.message) && !err.message.includes("two words"),
  );
  refused({ ...doc, auth: [{ ...doc.auth[0], scheme: "Bearer token" }] }, /auth\[0\]\.scheme: must be one HTTP token/);
});

Deno.test("credentials longer than MAX_CREDENTIAL_LENGTH are refused at load, naming the field and the cap", () => {
  // How far past max_bytes a body is read follows from this cap, never from a configured credential's length.
  const doc = {
    allow_hosts: ["api.example.com"],
    auth: [{ origins: ["https://api.example.com"], credentials: "${HTTP_TOKEN}" }],
  };
  const withToken = (token: string) =>
    fromSchema(ConfigSchema, { secretFields: SECRET_FIELDS })(
      expand(doc, { env: { get: (name: string) => (name === "HTTP_TOKEN" ? token : undefined) } }),
    );
  const longest = "k".repeat(MAX_CREDENTIAL_LENGTH);
  assert.equal(withToken(longest).auth[0].credentials, longest);
  assert.throws(() => withToken(`${longest}k`), (err: Error) => {
    assert.ok(err instanceof ConfigError, `${err}`);
    assert.match(
      err.message,
      new RegExp(`auth\\[0\\]\\.credentials: must be at most ${MAX_CREDENTIAL_LENGTH} characters`),
    );
    assert.ok(!err.message.includes("kkkk"), "the secret is never in the message");
    return true;
  });
});

Deno.test("credentials over MAX_CREDENTIALS_TOTAL in all are refused at load; as many as it allows load and are hidden", () => {
  // Each within its own cap, nine of 4,096 characters made one regular expression too large to build: every fetch
  // failed. The total is bounded, and the filter is built once at load, so a config that loads always filters.
  const count = MAX_CREDENTIALS_TOTAL / MAX_CREDENTIAL_LENGTH;
  const tokens = Array.from({ length: count + 1 }, (_, i) => `${i}`.padStart(4, "t").repeat(MAX_CREDENTIAL_LENGTH / 4));
  const docFor = (n: number) => ({
    allow_hosts: tokens.slice(0, n).map((_, i) => `h${i}.example.com`),
    auth: tokens.slice(0, n).map((_, i) => ({ origins: [`https://h${i}.example.com`], credentials: `\${T${i}}` })),
  });
  const load = (n: number) =>
    fromSchema(ConfigSchema, { secretFields: SECRET_FIELDS })(
      expand(docFor(n), { env: { get: (name: string) => tokens[Number(name.slice(1))] } }),
    );
  const loaded = load(count);
  const filter = new SecretFilter(loaded.auth.map((entry) => entry.credentials));
  for (const token of tokens.slice(0, count)) assert.equal(filter.text(`<${token}>`), "<[hidden credential]>");
  assert.throws(() => load(count + 1), (err: Error) => {
    assert.ok(err instanceof ConfigError, `${err}`);
    assert.match(err.message, new RegExp(`auth: must have at most ${MAX_CREDENTIALS_TOTAL} characters of credentials`));
    assert.ok(!err.message.includes("ttt"), "no secret is in the message");
    return true;
  });
});
