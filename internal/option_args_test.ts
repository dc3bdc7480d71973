import assert from "node:assert/strict";
import { hasOption } from "./option_args.ts";

Deno.test("hasOption() finds a flag only before the first --, never after it or as a prefix", () => {
  assert.equal(hasOption(["--health"], "--health"), true);
  assert.equal(hasOption(["-config", "x.json", "--health", "--", "y"], "--health"), true);
  assert.equal(hasOption(["--", "--health"], "--health"), false);
  assert.equal(hasOption(["a", "--", "--", "--health"], "--health"), false);
  assert.equal(hasOption(["--healthy", "--health=1"], "--health"), false);
  assert.equal(hasOption([], "--health"), false);
});
