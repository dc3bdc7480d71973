// A real server that notes whether anything read the global setTimeout,
// clearTimeout, setInterval or clearInterval (Deno 2.9.6 loads node:timers on
// that first read) before its toolkit is even imported: `wait` is an
// asynchronous call (its deadline is armed), `big` a reply large enough that
// the next read waits for its write, `timers_read` answers whether any of them
// was read so far, and `until_aborted` runs until its signal fires, so a
// shutdown with it in flight waits out the grace period (internal/within.ts),
// and `flood` logs 400 KB, more than a stderr pipe holds, so a shutdown while
// nobody reads stderr finds a write to it pending (its flush waits on a timer).
// Once the server has shut down, the last stderr line names the globals read;
// with the argument `report-on-stdout`, the last stdout line does, so a test
// can learn that shutdown is over before it reads stderr at all; with
// `on-close-hangs`, its onClose never ends (run() bounds it).
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
      { name: "flood", description: "Logs 400 lines of 1,000 bytes", inputSchema: schema({}), annotations: RO },
      () => {
        for (let i = 0; i < 400; i++) console.error(`flood ${String(i).padStart(4, "0")} ${"x".repeat(989)}`);
        return text("flooded");
      },
    );
    addTool(
      server,
      { name: "timers_read", description: "Whether a global timer was read", inputSchema: schema({}), annotations: RO },
      () => text(String(read.size > 0)),
    );
  }, {
    shutdownGraceMs: 100,
    exit: false,
    // A close that never ends and holds nothing: only its bound ends it.
    onClose: Deno.args.includes("on-close-hangs") ? () => new Promise<void>(() => {}) : undefined,
  });
  // The guard is off: this goes straight out, after everything shutdown did.
  const report = new TextEncoder().encode(`global timers read by exit: ${[...read].join(", ") || "none"}\n`);
  (Deno.args.includes("report-on-stdout") ? Deno.stdout : Deno.stderr).writeSync(report);
  Deno.exit(0);
}
