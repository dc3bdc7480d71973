import assert from "node:assert/strict";
import { assertScopedInputs } from "./_scoped_flags.ts";

Deno.test("assertScopedInputs() lets scoped allow and deny flags and an absolute config through", () => {
  assertScopedInputs("bundle", ["--allow-read=/a,/b", "--deny-net=10.0.0.0/8", "--allow-run=/usr/bin/git"], "/c.json");
  assertScopedInputs("bundle", []);
});

Deno.test("assertScopedInputs() refuses each unscoped or non-permission flag, naming the action and the flag", () => {
  for (const flag of ["-A", "--allow-all", "--allow-read", "--allow-net=", "--unstable", "--v8-flags=--x", "x"]) {
    assert.throws(
      () => assertScopedInputs("bundle", ["--allow-env=A", flag]),
      (err) =>
        err instanceof TypeError &&
        err.message === `Cannot bundle: ${JSON.stringify(flag)} is not a scoped permission flag`,
    );
  }
});

Deno.test("assertScopedInputs() refuses a relative config path", () => {
  assert.throws(
    () => assertScopedInputs("compile", [], "config/c.json"),
    (err) =>
      err instanceof TypeError && err.message === 'Cannot compile: the config path "config/c.json" is not absolute',
  );
});
