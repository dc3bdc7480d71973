// The toolkit's server for the benchmark: `echo {text}` and `sleep {ms}`
// through run(), with the toolkit's defaults unless a flag says otherwise.
// `--max-bytes=N` sets maxMessageBytes (the over-limit measurement uses a
// small one); without it run()'s default (64 MiB) applies. `blob {bytes}`
// returns control characters, for the peak-memory rows. Needs no permission.
import { addTool, getInt, health, intProp, requireString, run, schema, strProp, text } from "@forge/toolkit";

const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

if (!health()) {
  const flag = Deno.args.find((arg) => arg.startsWith("--max-bytes="));
  const maxMessageBytes = flag === undefined ? undefined : Number(flag.slice("--max-bytes=".length));
  await run("bench-toolkit", (server) => {
    addTool(server, {
      name: "echo",
      description: "Returns its text",
      inputSchema: schema({ text: strProp("The text to return") }, ["text"]),
      annotations: READ_ONLY,
    }, (req) => text(requireString(req.arguments, "text")));
    addTool(server, {
      name: "sleep",
      description: "Waits ms milliseconds",
      inputSchema: schema({ ms: intProp("How long to wait") }, ["ms"]),
      annotations: READ_ONLY,
    }, async (req) => {
      const ms = getInt(req.arguments, "ms", 0);
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(resolve, ms);
        req.signal.addEventListener("abort", () => (clearTimeout(timer), reject(req.signal.reason)), { once: true });
      });
      return text("slept");
    });
    addTool(server, {
      name: "blob",
      description: "Returns bytes control characters: JSON escapes each to six bytes, as a file of them would be",
      inputSchema: schema({ bytes: intProp("How many") }, ["bytes"]),
      annotations: READ_ONLY,
    }, (req) => text("\u0001".repeat(getInt(req.arguments, "bytes", 0))));
  }, { maxMessageBytes });
}
