// test-permissions: --allow-run=/bin/sh
import assert from "node:assert/strict";
import { shellQuote } from "./shell_quote.ts";

Deno.test("shellQuote() leaves a plain word as it is", () => {
  assert.equal(shellQuote("--allow-read=/srv/a,/srv/b"), "--allow-read=/srv/a,/srv/b");
  assert.equal(shellQuote("--allow-env=FORGE_TENANT_CONFIG"), "--allow-env=FORGE_TENANT_CONFIG");
});

Deno.test("shellQuote() single-quotes a word the shell would interpret", () => {
  assert.equal(shellQuote("--allow-read=/srv/my data"), "'--allow-read=/srv/my data'");
  assert.equal(shellQuote("--deny-net=[::1]"), "'--deny-net=[::1]'");
  assert.equal(shellQuote("${HOME}"), "'${HOME}'");
  assert.equal(shellQuote(""), "''");
  assert.equal(shellQuote("it's"), `'it'\\''s'`);
});

Deno.test("shellQuote() words reach a real shell unchanged", async () => {
  const words = ["plain", "two words", "it's", "$(id)", "`id`", "${HOME}", "a\nb", "[::1]", "*", "\\", "", "é"];
  const script = `printf '%s\\0' ${words.map(shellQuote).join(" ")}`;
  const out = await new Deno.Command("/bin/sh", { args: ["-c", script], env: {}, clearEnv: true }).output();
  assert.equal(out.code, 0);
  assert.deepEqual(new TextDecoder().decode(out.stdout).split("\0").slice(0, -1), words);
});
