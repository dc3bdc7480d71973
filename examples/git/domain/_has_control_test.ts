import assert from "node:assert/strict";
import { hasControl } from "./_has_control.ts";

Deno.test("hasControl() finds C0 control characters and DEL, and nothing else", () => {
  for (const text of ["a\u0000b", "line\n", "\u001b[31m", "tab\t", "\u007f"]) {
    assert.equal(hasControl(text), true, text);
  }
  for (const text of ["", "plain/path.txt", "é ü ✓", "\u0080", " ~!"]) assert.equal(hasControl(text), false, text);
});
