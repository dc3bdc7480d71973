// A server for the lifecycle tests: needs no Deno permission. Flags:
// --grace=<ms> (shutdownGraceMs), --timeout=<ms> (default per-call deadline),
// --max=<bytes> (maxMessageBytes), --inflight=<n> (maxInFlight), --move=<n> (moveStdioAfter).
// Readiness markers on stderr, for tests to wait on: `SLEEP_STARTED <ms>`,
// `HANG_STARTED`, `LATE_FAILED` (the late tool throws), and `SIGNAL <name>`
// as each shutdown signal arrives (run() hears it in the same turn).
import { addTool, getInt, health, intProp, requireString, run, schema, strProp, text } from "../../mod.ts";
import { addSleepTool, RO } from "./sleep_tool.ts";

const flag = (name: string, fallback: number) => {
  const found = Deno.args.find((a) => a.startsWith(`--${name}=`));
  return found ? Number(found.split("=")[1]) : fallback;
};

if (!health()) {
  await run("fixture", (server) => {
    // Added before run()'s own listeners, so each signal reaches this one first, in the same turn.
    for (const signal of ["SIGINT", "SIGTERM"] as const) {
      Deno.addSignalListener(signal, () => console.error(`SIGNAL ${signal}`));
    }
    addSleepTool(server);
    addTool(server, {
      name: "memory",
      description: "Reports the live heap in bytes, after a full GC when --expose-gc is on",
      inputSchema: schema(),
      annotations: RO,
    }, () => {
      (globalThis as { gc?: () => void }).gc?.();
      return text(String(Deno.memoryUsage().heapUsed));
    });
    addTool(server, {
      name: "echo",
      description: "Echoes text",
      inputSchema: schema({ text: strProp("t") }, ["text"]),
      annotations: RO,
    }, (req) => text(requireString(req.arguments, "text")));
    addTool(server, {
      name: "steps",
      description: "Reports progress for each of n steps",
      inputSchema: schema({ n: intProp("steps") }),
      annotations: RO,
    }, async (req) => {
      const n = getInt(req.arguments, "n", 3);
      for (let i = 1; i <= n; i++) {
        req.progress(i, n, `step ${i}`);
        await new Promise((r) => setTimeout(r, 5));
      }
      return text(`${n} steps`);
    });
    // Reports step i of n, then waits for a call to `next` before going on (and before answering), so a
    // client acts on each report before the next message leaves: its reports and reply never share a read.
    let next: (() => void) | undefined;
    addTool(server, {
      name: "gated_steps",
      description: "Reports progress for each of n steps, each once `next` is called",
      inputSchema: schema({ n: intProp("steps") }),
      annotations: RO,
    }, async (req) => {
      const n = getInt(req.arguments, "n", 3);
      for (let i = 1; i <= n; i++) {
        const called = new Promise<void>((resolve) => (next = resolve));
        req.progress(i, n, `step ${i}`);
        await called;
      }
      return text(`${n} steps`);
    });
    addTool(server, {
      name: "next",
      description: "Lets gated_steps go on",
      inputSchema: schema(),
      annotations: RO,
    }, () => {
      next?.();
      return text("next");
    });
    addTool(server, {
      name: "late",
      description: "Ignores its signal and fails after ms",
      inputSchema: schema({ ms: intProp("ms") }),
      annotations: RO,
    }, async (req) => {
      await new Promise((r) => setTimeout(r, getInt(req.arguments, "ms", 300)));
      console.error("LATE_FAILED");
      throw new Error("failed after the deadline");
    });
    addTool(server, {
      name: "hang",
      description: "Never settles and ignores its signal",
      inputSchema: schema(),
      annotations: RO,
    }, () => {
      console.error("HANG_STARTED");
      return new Promise(() => {});
    });
    addTool(server, {
      name: "noisy",
      description: "Logs to console and writes to stdout directly",
      inputSchema: schema({ text: strProp("t") }),
      annotations: RO,
    }, async (req) => {
      console.log("console.log from a handler", req.arguments.text);
      console.info("console.info from a handler");
      console.table([{ a: 1 }]);
      await Deno.stdout.write(new TextEncoder().encode("raw stdout write from a handler\n"));
      Deno.stdout.writeSync(new TextEncoder().encode("raw stdout writeSync from a handler\n"));
      const writer = Deno.stdout.writable.getWriter();
      await writer.write(new TextEncoder().encode("raw stdout stream write from a handler\n"));
      writer.releaseLock();
      return text("noisy done");
    });
    addTool(server, {
      name: "crash",
      description: "Throws an infrastructure error",
      inputSchema: schema(),
      annotations: RO,
    }, () => {
      throw new Error("disk on fire at /secret/host/path");
    });
  }, {
    shutdownGraceMs: flag("grace", 2_000),
    timeoutMs: flag("timeout", 30_000),
    maxMessageBytes: flag("max", 64 * 1024 * 1024),
    maxInFlight: flag("inflight", 1024),
    moveStdioAfter: flag("move", 256),
    onClose: () => console.error("ON_CLOSE_RAN"),
  });
}
