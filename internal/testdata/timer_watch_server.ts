// A real server that notes whether anything read the global setTimeout,
// clearTimeout, setInterval or clearInterval (Deno 2.9.6 loads node:timers on
// that first read) before its toolkit is even imported: `wait` is an
// asynchronous call (its deadline is armed), `big` a reply large enough that
// the next read waits for its write, `timers_read` answers whether any of them
// was read so far, and `until_aborted` runs until its signal fires, so a
// shutdown with it in flight waits out the grace period (internal/within.ts).
// Once the server has shut down, the last stderr line names the globals read.
const names = ["setTimeout", "clearTimeout", "setInterval", "clearInterval"] as const;
const read = new Set<string>();
for (const name of names) {
  const slot = Object.getOwnPropertyDescriptor(globalThis, name)!;
  Object.defineProperty(globalThis, name, {
    configurable: true,
    enumerable: slot.enumerable,
    get() {
      read.add(name);
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
      { name: "until_aborted", description: "Runs until its signal fires", inputSchema: schema({}), annotations: RO },
      async ({ signal }) => {
        console.error("until_aborted started");
        await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
        return text("aborted");
      },
    );
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
      () => text(String(read.size > 0)),
    );
  }, { shutdownGraceMs: 100, exit: false });
  // The guard is off: this goes straight to stderr, after everything shutdown did.
  Deno.stderr.writeSync(new TextEncoder().encode(`global timers read by exit: ${[...read].join(", ") || "none"}\n`));
  Deno.exit(0);
}
