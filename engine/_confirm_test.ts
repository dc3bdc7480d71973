import assert from "node:assert/strict";
import { type Asker, missingCapability, NO_ASKER, protocolErrorOf } from "./_asker.ts";
import { confirmCall } from "./_confirm.ts";
import type { ConfirmSpec } from "../toolkit/registry.ts";
import { ToolError } from "../internal/tool_error.ts";

const answering = (action: string): Asker & { asked: unknown[] } => {
  const asked: unknown[] = [];
  return { era: "session", asked, ask: (_m, params) => (asked.push(params), Promise.resolve({ action })) };
};
const spec = (message: ConfirmSpec["message"], whenUnavailable: "run" | "refuse" = "refuse"): ConfirmSpec => ({
  message,
  whenUnavailable,
});

Deno.test("confirmCall() asks one empty form and maps the user's action", async () => {
  for (const [action, expected] of [["accept", "accepted"], ["decline", "declined"], ["cancel", "cancelled"]]) {
    const asker = answering(action);
    assert.equal(await confirmCall("t", spec("Go?"), {}, asker), expected);
    assert.deepEqual(asker.asked, [{
      mode: "form",
      message: "Go?",
      requestedSchema: { type: "object", properties: {} },
    }]);
  }
});

Deno.test("confirmCall() asks nothing when the function returns undefined, and refuses a non-string", async () => {
  const asker = answering("accept");
  assert.equal(
    await confirmCall("t", spec((args) => args.path === "new" ? undefined : "Replace?"), { path: "new" }, asker),
    undefined,
  );
  assert.deepEqual(asker.asked, []);
  await assert.rejects(confirmCall("t", spec(() => 42 as unknown as string), {}, asker), TypeError);
});

Deno.test("confirmCall() without elicitation: 'run' goes on unconfirmed, 'refuse' says why (or stays -32021 in 2026-07-28)", async () => {
  assert.equal(await confirmCall("t", spec("Go?", "run"), {}, NO_ASKER), "unavailable");
  await assert.rejects(confirmCall("t", spec("Go?"), {}, NO_ASKER), (err: Error) => {
    assert.ok(err instanceof ToolError);
    assert.match(
      err.message,
      /^Cannot run tool "t": it asks the user to confirm each call, and this client cannot ask/,
    );
    return true;
  });
  const stateless: Asker = { era: "stateless", ask: (method) => Promise.reject(missingCapability(method)) };
  const err = await confirmCall("t", spec("Go?"), {}, stateless).catch((e) => e);
  assert.equal(protocolErrorOf(err)?.code, -32021);
});
