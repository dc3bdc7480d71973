// test-permissions: --allow-env=CFGS_TOKEN,CFGS_DIR
import assert from "node:assert/strict";
import { z } from "zod";
import { quote } from "../internal/quote.ts";
import { ConfigError } from "./config_error.ts";
import { expand } from "./expand.ts";
import { fromSchema } from "./from_schema.ts";

const env = (entries: Record<string, string>) => new Map(Object.entries(entries));
const schema = z.strictObject({
  roots: z.array(z.string().startsWith("/")).default([]),
  port: z.number().int().optional(),
  db: z.object({ password: z.string().optional() }).optional(),
});

function refusal(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  assert.fail("expected a ConfigError");
}

Deno.test("fromSchema() returns the schema's output for a valid document", () => {
  const parse = fromSchema(schema);
  assert.deepEqual(parse(expand({ roots: ["${D}/a"] }, { env: env({ D: "/srv" }) })), { roots: ["/srv/a"] });
  assert.deepEqual(parse(expand({}, { env: env({}) })), { roots: [] });
});

Deno.test("fromSchema() refuses a field that used a missing variable even when the result validates", () => {
  const err = refusal(() => fromSchema(schema)(expand({ roots: ["${DATA_DIR}/reports"] }, { env: env({}) })));
  assert.equal(err.message, "Cannot load config: 1 invalid field: roots[0]: uses ${DATA_DIR}, which is not set");
});

Deno.test("fromSchema() refuses a field that used an empty variable, naming the field and variable", () => {
  const err = refusal(() => fromSchema(schema)(expand({ roots: ["/a", "${D}"] }, { env: env({ D: "" }) })));
  assert.deepEqual(err.issues, [{ path: ["roots", 1], message: "uses ${D}, which is empty" }]);
});

Deno.test("fromSchema() refuses a field that referenced a variable the process may not read", () => {
  const denied = {
    get(): string {
      throw new Deno.errors.NotCapable("no");
    },
  };
  const err = refusal(() => fromSchema(schema)(expand({ roots: ["${SECRET_DIR}/x"] }, { env: denied })));
  assert.match(
    err.message,
    /roots\[0\]: uses \$\{SECRET_DIR\}, which this process may not read \(grant --allow-env=SECRET_DIR\)/,
  );
});

Deno.test("fromSchema() refuses malformed expansion syntax", () => {
  const err = refusal(() => fromSchema(schema)(expand({ roots: ["${D:-/tmp}"] }, { env: env({ D: "/srv" }) })));
  assert.match(err.message, /roots\[0\]: "\$\{" at character 1 does not start a \$\{NAME\} reference/);
});

Deno.test("fromSchema() lists every bad field in one message", () => {
  const doc = { roots: ["relative", "${MISSING}"], port: "80", extra: 1 };
  const err = refusal(() => fromSchema(schema)(expand(doc, { env: env({}) })));
  assert.equal(err.issues.length, 4);
  for (
    const needle of [
      "roots[1]: uses ${MISSING}",
      "roots[0]: Invalid string",
      "port: Invalid input",
      '(root): unknown key (not in the schema): "extra"',
    ]
  ) {
    assert.ok(err.message.includes(needle), `${needle} in ${err.message}`);
  }
});

Deno.test("fromSchema() reports one issue for a field refused for its variable, not the schema's too", () => {
  const strict = z.object({ name: z.string().min(1) });
  const err = refusal(() => fromSchema(strict)(expand({ name: "${N}" }, { env: env({}) })));
  assert.equal(err.issues.length, 1);
});

Deno.test("fromSchema() never echoes an environment value, even from the author's own message", () => {
  const secret = "tok-5f2a9c7e-very-secret";
  const custom = z.object({
    token: z.string().refine((v) => v.startsWith("ghp_"), { error: (issue) => `bad token ${String(issue.input)}` }),
    port: z.number().optional(),
  });
  const err = refusal(() =>
    fromSchema(custom)(expand({ token: "${TOKEN}", port: "${TOKEN}" }, { env: env({ TOKEN: secret }) }))
  );
  assert.ok(!err.message.includes(secret), err.message);
  assert.ok(err.message.includes("token: bad token ${TOKEN} (value from ${TOKEN})"), err.message);
  assert.ok(
    err.message.includes("port: Invalid input: expected number, received string (value from ${TOKEN})"),
    err.message,
  );
});

Deno.test("fromSchema() hides an environment value that a message escaped or cut, wherever the issue points", () => {
  const url = `https://user:${"sgjPjgJxaJZeoOpL0yx7".repeat(18)}@api.example.com`;
  const host = "example.com\n";
  const dir = `/srv/${"x".repeat(60)},secret-part`;
  // As a policy's refusals word them: the value quoted, cut to 100 or 64 characters, about the document as a whole.
  const custom = z.object({ origin: z.string(), hosts: z.array(z.string()), roots: z.array(z.string()) })
    .superRefine((doc, ctx) => {
      ctx.addIssue({ code: "custom", path: ["origin"], message: `Cannot use origin ${quote(doc.origin, 100)}` });
      ctx.addIssue({ code: "custom", path: ["hosts"], message: `host ${quote(doc.hosts[0])} is not canonical` });
      ctx.addIssue({ code: "custom", path: [], message: `path ${quote(doc.roots[0])} contains a comma` });
    });
  const doc = { origin: "${API_URL}", hosts: ["${H}"], roots: ["${DATA_DIR}"] };
  const err = refusal(() => fromSchema(custom)(expand(doc, { env: env({ API_URL: url, H: host, DATA_DIR: dir }) })));
  for (const leak of ["sgjP", "example.com", "/srv/xxx"]) assert.ok(!err.message.includes(leak), err.message);
  assert.deepEqual(err.issues.map((issue) => issue.message), [
    'Cannot use origin "${API_URL}…" (value from ${API_URL})',
    'host "${H}" is not canonical',
    'path "${DATA_DIR}…" contains a comma',
  ]);
});

Deno.test("fromSchema() refuses a literal secret where an environment reference belongs", () => {
  const parse = fromSchema(schema, { secretFields: ["db.password"] });
  const err = refusal(() => parse(expand({ db: { password: "hunter2hunter2" } }, { env: env({}) })));
  assert.equal(
    err.message,
    'Cannot load config: 1 invalid field: db.password: holds a literal secret; write "${NAME}" here and set NAME in the environment',
  );
  assert.throws(() => parse(expand({ db: { password: "pre-${P}" } }, { env: env({ P: "x" }) })), /literal secret/);
  assert.deepEqual(parse(expand({ db: { password: "${P}" } }, { env: env({ P: "pw-value" }) })), {
    roots: [],
    db: { password: "pw-value" },
  });
  assert.deepEqual(parse(expand({}, { env: env({}) })), { roots: [] });
});

Deno.test("fromSchema() matches secret patterns with * over keys and array indexes", () => {
  const upstreams = z.object({ upstreams: z.array(z.object({ token: z.string() })) });
  const parse = fromSchema(upstreams, { secretFields: ["upstreams.*.token"] });
  const doc = { upstreams: [{ token: "${T}" }, { token: "literal-token" }, { token: 42 }] };
  const err = refusal(() => parse(expand(doc, { env: env({ T: "t-value" }) })));
  assert.deepEqual(err.issues.map((i) => i.path), [["upstreams", 1, "token"], ["upstreams", 2, "token"]]);
});

Deno.test("fromSchema() reports every one of twenty thousand bad fields", () => {
  const doc = { roots: Array.from({ length: 20_000 }, (_, i) => (i % 2 ? "${GONE}" : i)) };
  const err = refusal(() => fromSchema(schema)(expand(doc, { env: env({}) })));
  assert.equal(err.issues.length, 20_000);
  assert.match(err.message, /^Cannot load config: 20000 invalid fields: .*; and 19950 more$/);
});

Deno.test("fromSchema() refuses a secret pattern with an empty segment", () => {
  assert.throws(() => fromSchema(schema, { secretFields: ["db..password"] }), TypeError);
  assert.throws(() => fromSchema(schema, { secretFields: [""] }), TypeError);
});

Deno.test({
  name: "fromSchema() with real environment variables: set ones validate, secrets stay hidden",
  permissions: { env: ["CFGS_TOKEN", "CFGS_DIR"] },
  fn() {
    Deno.env.set("CFGS_TOKEN", "real-secret-value-123");
    Deno.env.delete("CFGS_DIR");
    try {
      const parse = fromSchema(z.object({ token: z.string(), dir: z.string() }), { secretFields: ["token"] });
      const err = refusal(() => parse(expand({ token: "${CFGS_TOKEN}", dir: "${CFGS_DIR}/x" })));
      assert.equal(err.message, "Cannot load config: 1 invalid field: dir: uses ${CFGS_DIR}, which is not set");
      Deno.env.set("CFGS_DIR", "/srv");
      assert.deepEqual(parse(expand({ token: "${CFGS_TOKEN}", dir: "${CFGS_DIR}/x" })), {
        token: "real-secret-value-123",
        dir: "/srv/x",
      });
      assert.throws(() => Deno.env.get("HOME"), Deno.errors.NotCapable);
    } finally {
      Deno.env.delete("CFGS_TOKEN");
      Deno.env.delete("CFGS_DIR");
    }
  },
});

Deno.test("fromSchema() names unknown keys as written, never redacted: a key that guesses a variable's value or its start answers nothing", () => {
  const doc = { roots: ["/${TOK}"], "sk-li…": 1, "sk-lx…": 1, "sk-live-9f3a77": 1, "sk-live-9f…": 1 };
  const err = refusal(() => fromSchema(schema)(expand(doc, { env: env({ TOK: "sk-live-9f3a77" }) })));
  assert.equal(err.issues.length, 1);
  // A right guess and a wrong one read alike; a key's own … is written \u2026 (only a cut of quote()'s is a …).
  assert.equal(
    err.issues[0].message,
    'unknown keys (not in the schema): "sk-li\\u2026", "sk-lx\\u2026", "sk-live-9f3a77", "sk-live-9f\\u2026"',
  );
  assert.ok(!err.message.includes("${TOK}"), err.message);
});

Deno.test("fromSchema() names at most 5 unknown keys, a long one by its length, so a file of keys makes a short message", () => {
  const doc: Record<string, number> = { ["k".repeat(65)]: 1 };
  for (let i = 0; i < 99_990; i++) doc[`key${i}`] = i;
  const err = refusal(() => fromSchema(schema)(expand(doc, { env: env({}) })));
  assert.equal(
    err.issues[0].message,
    'unknown keys (not in the schema): a key of 65 characters, "key0", "key1", "key2", "key3" and 99986 more',
  );
  assert.ok(err.message.length < 200, err.message);
});
