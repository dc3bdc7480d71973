import assert from "node:assert/strict";
import { numberSources } from "./_number_sources.ts";

Deno.test("numberSources() reads the id, requestId and progressToken as written, wherever they are", () => {
  assert.deepEqual(numberSources('{"jsonrpc":"2.0","id":1.50,"method":"ping"}'), [{ id: "1.50" }]);
  assert.deepEqual(numberSources('{"method":"ping","params":{"a":[1,{"id":2}]},"jsonrpc":"2.0","id":-0}'), [{
    id: "-0",
    requestId: undefined,
    progressToken: undefined,
  }]);
  assert.deepEqual(
    numberSources(
      '{ "params" : { "_meta" : { "progressToken" : 1e400 , "k" : [] } , "requestId" : 9007199254740993 } , "id" : 7 }',
    ),
    [{ id: "7", requestId: "9007199254740993", progressToken: "1e400" }],
  );
});

Deno.test("numberSources() ignores ids nested in other members and inside strings", () => {
  const text =
    '{"jsonrpc":"2.0","method":"x","params":{"arguments":{"id":1,"requestId":2,"_meta":{"progressToken":3}},' +
    '"s":"\\"id\\":4,\\\\","t":"}"},"id":"s"}';
  assert.deepEqual(numberSources(text), [{ id: undefined, requestId: undefined, progressToken: undefined }]);
});

Deno.test("numberSources() takes the last of a repeated key, as JSON.parse does, and reads escaped keys", () => {
  assert.equal(numberSources('{"id":1.0,"id":2.0}')[0].id, "2.0");
  assert.equal(numberSources('{"id":1.0,"id":"x"}')[0].id, undefined);
  assert.equal(numberSources('{"i\\u0064":-0}')[0].id, "-0");
  assert.equal(
    numberSources('{"params":{"requestId":1e2},"params":{"x":1}}')[0].requestId,
    undefined,
    "the last params wins whole",
  );
});

Deno.test("numberSources() reads each item of a batch, skipping items that are not objects", () => {
  assert.deepEqual(numberSources('[{"id":1e400},7,"x",{"params":{"requestId":-0}},[{"id":1}]]'), [
    { id: "1e400" },
    {},
    {},
    { requestId: "-0", progressToken: undefined },
    {},
  ]);
  assert.deepEqual(numberSources("[]"), []);
});
