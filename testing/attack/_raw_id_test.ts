import assert from "node:assert/strict";
import { rawId, sameId } from "./_raw_id.ts";

Deno.test("rawId() reads the id as written, wherever it sits among the members", () => {
  assert.equal(
    rawId('{"jsonrpc":"2.0","id":123456789012345678901234567890,"result":{}}'),
    "123456789012345678901234567890",
  );
  assert.equal(rawId('{"result":{"id":5,"x":"}"},"id":"a\\nb"}'), '"a\\nb"');
  assert.equal(rawId('{"jsonrpc":"2.0","method":"x"}'), undefined);
});

Deno.test("sameId() keeps the digits of unsafe numbers and equates notations of safe ones", () => {
  assert.equal(sameId("1e3", "1000"), true);
  assert.equal(sameId("-0", "0"), true);
  assert.equal(sameId("9007199254740993", "9007199254740992"), false);
  assert.equal(sameId("1e400", "null"), false);
  assert.equal(sameId('"7"', "7"), false);
});
