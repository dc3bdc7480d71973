// A server for the hostile-client tests: needs no Deno permission. Flags:
// --grace=<ms> (shutdownGraceMs), --max=<bytes> (maxMessageBytes),
// --queue=<bytes> (maxQueuedBytes), --depth=<n> (maxDepth), --containers=<n> (maxContainers),
// --values=<n> (maxValues), --keys=<n> (maxKeyBytes), --move=<n> (moveStdioAfter). Readiness markers on stderr, for tests to wait on:
// `SLEEP_STARTED <ms>` (the sleep tool) and `BLOB <bytes>` as a blob is made.
import process from "node:process";
import { addTool, getInt, getString, health, intProp, run, schema, strProp, text } from "../../mod.ts";
import { addSleepTool, RO } from "../../engine/testdata/sleep_tool.ts";

const flag = (name: string) => {
  const found = Deno.args.find((a) => a.startsWith(`--${name}=`));
  return found ? Number(found.split("=")[1]) : undefined;
};

if (!health()) {
  await run("stream", (server) => {
    addTool(server, {
      name: "shout",
      description: "Writes n lines of size bytes through console.log, console.error and a direct stdout write",
      inputSchema: schema({ n: intProp("lines"), size: intProp("bytes per line") }),
      annotations: RO,
    }, (req) => {
      const n = getInt(req.arguments, "n", 1);
      const line = "x".repeat(getInt(req.arguments, "size", 100));
      for (let i = 0; i < n; i++) {
        if (i % 3 === 0) console.log(line);
        else if (i % 3 === 1) console.error(line);
        else Deno.stdout.writeSync(new TextEncoder().encode(line + "\n"));
      }
      return text(`shouted ${n}`);
    });
    addTool(server, {
      name: "murmur",
      description: "Writes n short lines to stderr itself: via console.error, Deno.stderr.writeSync or process.stderr",
      inputSchema: schema({ n: intProp("lines"), via: strProp("console, writeSync or process") }),
      annotations: RO,
    }, (req) => {
      const n = getInt(req.arguments, "n", 1);
      const bytes = new TextEncoder().encode("murmur from a handler\n");
      const via = getString(req.arguments, "via", "console");
      for (let i = 0; i < n; i++) {
        if (via === "writeSync") Deno.stderr.writeSync(bytes);
        else if (via === "process") process.stderr.write("murmur from a handler\n");
        else console.error("murmur from a handler", i);
      }
      return text(`murmured ${n}`);
    });
    addTool(server, {
      name: "steps",
      description: "Reports progress for each of n steps, each with a message of size bytes when size is given",
      inputSchema: schema({ n: intProp("steps"), size: intProp("message bytes") }),
      annotations: RO,
    }, (req) => {
      const n = getInt(req.arguments, "n", 2);
      const size = getInt(req.arguments, "size", 0);
      const message = size > 0 ? "m".repeat(size) : undefined;
      for (let i = 1; i <= n; i++) req.progress(i, n, message);
      return text(`${n} steps`);
    });
    addTool(server, {
      name: "crash",
      description: "Throws, so the toolkit logs the detail",
      inputSchema: schema(),
      annotations: RO,
    }, () => {
      throw new Error("crash detail");
    });
    addTool(server, {
      name: "blob",
      description: "Returns a text of the given size",
      inputSchema: schema({ bytes: intProp("bytes") }),
      annotations: RO,
    }, (req) => {
      const bytes = getInt(req.arguments, "bytes", 10);
      console.error(`BLOB ${bytes}`);
      return text("b".repeat(bytes));
    });
    addTool(server, {
      name: "rows",
      description: "Returns n empty rows: a sparse array whose JSON is far larger than the array",
      inputSchema: schema({ n: intProp("rows") }),
      annotations: RO,
    }, (req) => ({ ...text("rows"), rows: new Array(getInt(req.arguments, "n", 1)) }));
    addSleepTool(server);
  }, {
    shutdownGraceMs: flag("grace") ?? 2_000,
    maxMessageBytes: flag("max"),
    maxQueuedBytes: flag("queue"),
    maxDepth: flag("depth"),
    maxContainers: flag("containers"),
    maxValues: flag("values"),
    maxKeyBytes: flag("keys"),
    moveStdioAfter: flag("move"),
    onClose: () => console.error("ON_CLOSE_RAN"),
  });
}
