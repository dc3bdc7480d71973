import assert from "node:assert/strict";
import { listFlag } from "./_flag_list.ts";

Deno.test("listFlag() joins a list by commas and refuses a value that holds one or a NUL byte", () => {
  assert.equal(listFlag("compile", "--allow-read", ["/a b", "/c"]), "--allow-read=/a b,/c");
  assert.throws(
    () => listFlag("bundle", "--allow-run", ["/out/srv,/usr/bin/python3"]),
    /^TypeError: Cannot bundle: --allow-run value "\/out\/srv,\/usr\/bin\/python3" contains a NUL byte or a comma$/,
  );
  assert.throws(() => listFlag("compile", "--allow-env", ["A\0B"]), /contains a NUL byte or a comma/);
});
