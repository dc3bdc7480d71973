import assert from "node:assert/strict";
import { rpcErrorText } from "./_rpc_error_text.ts";
import type { RpcError } from "./jsonrpc.ts";

Deno.test("rpcErrorText() names the code and at most 200 characters of the message, and what is not a number or text", () => {
  assert.equal(rpcErrorText({ code: -32700, message: 'say "hi"\n' }), 'error -32700 "say \\"hi\\"\\n"');
  assert.equal(rpcErrorText({ code: 1, message: "x".repeat(500) }), `error 1 "${"x".repeat(200)}"`);
  assert.equal(rpcErrorText({ code: "1", message: 7 } as unknown as RpcError), 'error ? ""');
  assert.equal(rpcErrorText(undefined), 'error ? ""');
});
