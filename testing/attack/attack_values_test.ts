import assert from "node:assert/strict";
import { fill } from "./_fill.ts";
import { ATTACK_VALUES } from "./attack_values.ts";

const VALUES: Record<string, string> = Object.fromEntries(
  [
    "canary_file",
    "canary_dir",
    "canary_db",
    "up",
    "up_backslash",
    "up_encoded",
    "up_double_encoded",
    "up_fullwidth",
    "secret_head",
    "secret_tail",
    "sibling",
    "sibling_name",
    "link_file",
    "link_dir",
    "listener",
    "port",
    "allowed_url",
    "marker",
    "tag",
  ].map((
    k,
  ) => [k, k === "port" ? "1" : `x${k}`]),
);

Deno.test("every built-in value is JSON once filled, and its name is unique in its category", () => {
  const seen = new Set<string>();
  for (const value of ATTACK_VALUES) {
    const key = `${value.category}/${value.name}/${value.for ?? "string"}`;
    assert.ok(!seen.has(key), key);
    seen.add(key);
    JSON.parse(fill(value.json, VALUES, 10));
  }
  for (const category of ["path", "link", "url", "sql", "option", "command", "log", "unicode", "size", "number"]) {
    assert.ok(ATTACK_VALUES.some((v) => v.category === category), category);
  }
});

Deno.test("the advisories' classes are in the corpus: private addresses in every encoding, COMMIT;, --output=, -c", () => {
  const json = ATTACK_VALUES.map((v) => v.json).join("\n");
  for (
    const needle of [
      "0x7f.1",
      "2130706433",
      "[::ffff:127.0.0.1]",
      "169.254.169.254",
      "COMMIT;",
      "--output=",
      "--no-index",
      '"-c"',
      "ATTACH",
      "sibling",
    ]
  ) {
    assert.ok(json.includes(needle), needle);
  }
});
