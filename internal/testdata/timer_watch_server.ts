// A real server that notes whether anything read the global setTimeout or
// clearTimeout (Deno 2.9.6 loads node:timers on that first read) before its
// toolkit is even imported: `wait` is an asynchronous call (its deadline is
// armed), `big` a reply large enough that the next read waits for its write,
// `timers_read` answers whether either global was read so far.
const names = ["setTimeout", "clearTimeout"] as const;
let read = false;
for (const name of names) {
  const slot = Object.getOwnPropertyDescriptor(globalThis, name)!;
  Object.defineProperty(globalThis, name, {
    configurable: true,
    enumerable: slot.enumerable,
    get() {
      read = true;
      return slot.get ? slot.get.call(globalThis) : slot.value;
    },
    set: slot.set,
  });
}
const { addTool, health, run, schema, text } = await import("../../mod.ts");
const RO = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

if (!health()) {
  await run("timer-watch", (server) => {
    addTool(
      server,
      { name: "wait", description: "Answers after a turn", inputSchema: schema({}), annotations: RO },
      async () => {
        await Promise.resolve();
        return text("waited");
      },
    );
    addTool(
      server,
      { name: "big", description: "A 100,000-character reply", inputSchema: schema({}), annotations: RO },
      () => text("x".repeat(100_000)),
    );
    addTool(
      server,
      { name: "timers_read", description: "Whether a global timer was read", inputSchema: schema({}), annotations: RO },
      () => text(String(read)),
    );
  });
}
