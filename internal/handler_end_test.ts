import assert from "node:assert/strict";
import { endOf, HANDLER_END, handlerEndOf } from "./handler_end.ts";

Deno.test("handlerEndOf() reads the engine's offer from a context, and nothing from a context without one", async () => {
  assert.equal(handlerEndOf({ tool: "t" }), undefined);
  assert.equal(await handlerEndOf({ [HANDLER_END]: () => Promise.resolve("error") }), "error");
  assert.equal(await handlerEndOf({ [HANDLER_END]: () => Promise.resolve(undefined) }), undefined);
});

Deno.test("endOf() tells a returned isError result from any other return, even a hostile one", () => {
  assert.equal(endOf({ content: [], isError: true }), "isError");
  assert.equal(endOf({ content: [] }), "ok");
  assert.equal(endOf("a string"), "ok");
  assert.equal(endOf(null), "ok");
  const hostile = new Proxy({}, {
    get() {
      throw new Error("trap");
    },
  });
  assert.equal(endOf(hostile), "ok");
});
