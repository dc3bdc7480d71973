import assert from "node:assert/strict";
import { configVariables } from "./config_variables.ts";

Deno.test("configVariables() lists referenced names without reading the environment", () => {
  // No env permission here: reading any variable would throw.
  const text = '// c\n{ "a": "${B_VAR}/x${A_VAR}", "b": ["${B_VAR}"], "esc": "$${NOT_A_VAR}", "bad": "${x:-y}", }';
  assert.deepEqual(configVariables(text), ["A_VAR", "B_VAR"]);
  assert.throws(() => Deno.env.get("A_VAR"), Deno.errors.NotCapable);
});

Deno.test("configVariables() accepts bytes with a BOM and refuses junk", () => {
  const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode('{"a": "${X}"}')]);
  assert.deepEqual(configVariables(bytes), ["X"]);
  assert.throws(() => configVariables(new Uint8Array([0xff, 0x00])), SyntaxError);
});

Deno.test("configVariables() refuses a file past expand()'s references limit", () => {
  assert.throws(() => configVariables(`[${Array(10_001).fill('"${X}"').join(",")}]`), {
    name: "RangeError",
    message: "Cannot expand config: it holds more than 10000 ${NAME} references (maxReferences)",
  });
});
