import assert from "node:assert/strict";
import { ancestorsOf, pathCovered } from "./_path_probes.ts";

Deno.test("ancestorsOf() lists every folder above each anchor, without the anchor and without repeats", () => {
  assert.deepEqual(ancestorsOf(["/srv/data/a", "/srv/other"]).sort(), ["/srv", "/srv/data"]);
  assert.deepEqual(ancestorsOf(["/top"]), []);
});

Deno.test("pathCovered() compares segments, not prefixes", () => {
  assert.equal(pathCovered(["/data"], "/data"), true);
  assert.equal(pathCovered(["/data"], "/data/x"), true);
  assert.equal(pathCovered(["/data"], "/data2"), false);
  assert.equal(pathCovered(["/data"], "/"), false);
});
