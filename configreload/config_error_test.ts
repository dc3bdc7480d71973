import assert from "node:assert/strict";
import { ConfigError } from "./config_error.ts";

Deno.test("ConfigError lists every issue with its path on one line", () => {
  const err = new ConfigError([
    { path: [], message: 'Unrecognized key: "x"' },
    { path: ["a", 1], message: "multi\nline\r\n  message" },
  ]);
  assert.equal(err.name, "ConfigError");
  assert.equal(
    err.message,
    'Cannot load config: 2 invalid fields: (root): Unrecognized key: "x"; a[1]: multi line message',
  );
});

Deno.test("ConfigError names the file when given", () => {
  const err = new ConfigError([{ path: ["port"], message: "bad" }], { file: "/etc/forge/files.json" });
  assert.equal(err.message, 'Cannot load config "/etc/forge/files.json": 1 invalid field: port: bad');
});

Deno.test("ConfigError lists fifty issues and counts the rest, keeping them all", () => {
  const issues = Array.from({ length: 1000 }, (_, i) => ({ path: ["f", i], message: "bad" }));
  const err = new ConfigError(issues);
  assert.equal(err.issues.length, 1000);
  assert.match(err.message, /^Cannot load config: 1000 invalid fields: f\[0\]: bad;/);
  assert.match(err.message, /f\[49\]: bad; and 950 more$/);
});

Deno.test("ConfigError takes a plain message for a problem that is not about fields", () => {
  const err = new ConfigError("Cannot load config: the file does not exist");
  assert.equal(err.message, "Cannot load config: the file does not exist");
  assert.deepEqual(err.issues, []);
});

Deno.test("ConfigError shows each issue on one printable line of at most 300 characters, saying how much it left out", () => {
  const err = new ConfigError([
    { path: ["a"], message: "bell\u0007 esc\u001b[31m rtl\u202e" },
    { path: ["b"], message: "x".repeat(1_000_000) },
  ]);
  assert.equal(
    err.message,
    `Cannot load config: 2 invalid fields: a: bell\\u0007 esc\\u001b[31m rtl\\u202e; b: ${
      "x".repeat(300)
    } (+999700 characters)`,
  );
  assert.equal(err.issues[1].message.length, 1_000_000, "issues keep the whole message");
});
