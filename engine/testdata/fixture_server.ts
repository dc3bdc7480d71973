// A server for the lifecycle tests: needs no Deno permission. Flags:
// --grace=<ms> (shutdownGraceMs), --timeout=<ms> (default per-call deadline),
// --max=<bytes> (maxMessageBytes), --inflight=<n> (maxInFlight).
import { addTool, getInt, health, intProp, requireString, run, schema, strProp, text } from "../../mod.ts";
import { addSleepTool, RO } from "./sleep_tool.ts";

const flag = (name: string, fallback: number) => {
  const found = Deno.args.find((a) => a.startsWith(`--${name}=`));
  return found ? Number(found.split("=")[1]) : fallback;
};

if (!health()) {
  await run("fixture", (server) => {
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
    addTool(server, {
      name: "late",
      description: "Ignores its signal and fails after ms",
      inputSchema: schema({ ms: intProp("ms") }),
      annotations: RO,
    }, async (req) => {
      await new Promise((r) => setTimeout(r, getInt(req.arguments, "ms", 300)));
      throw new Error("failed after the deadline");
    });
    addTool(server, {
      name: "hang",
      description: "Never settles and ignores its signal",
      inputSchema: schema(),
      annotations: RO,
    }, () => new Promise(() => {}));
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
    onClose: () => console.error("ON_CLOSE_RAN"),
  });
}
