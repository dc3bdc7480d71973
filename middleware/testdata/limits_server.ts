// A server for the middleware tests. Flags: --audit=<file> (audit to a file,
// else stderr), --rate=<per second> and --burst=<n> for "write",
// --concurrency=<n> for "write", --timeout=<ms> (the per-call deadline),
// --grace=<ms> (how long calls in flight may run on at shutdown).
// The write handler prints `WRITE_STARTED` on stderr as it starts: its audit
// intent is on disk by then, and a test waits for the line, not for time. It
// ignores its signal, and prints `WRITE_DONE` as it ends. With `finish`, it
// waits for its signal to fire (its deadline, a cancellation, the shutdown)
// instead of `ms`, then goes on and ends that way: `ok` returns a result,
// `domain` throws a ToolError, `crash` throws an Error.
import { auditTrail, concurrencyLimit, rateLimit } from "../mod.ts";
import {
  getInt,
  health,
  intProp,
  type Middleware,
  registerPatternTool,
  requireString,
  run,
  schema,
  strProp,
  text,
  ToolError,
} from "../../mod.ts";
import { definePolicy } from "../../validate/mod.ts";

const flag = (name: string) => Deno.args.find((a) => a.startsWith(`--${name}=`))?.split("=")[1];

if (!health()) {
  const audit = auditTrail({ server: "limits", file: flag("audit") });
  const middleware: Middleware[] = [audit];
  if (flag("rate")) {
    middleware.push(rateLimit({ tools: { write: { rate: Number(flag("rate")), burst: Number(flag("burst") ?? 1) } } }));
  }
  if (flag("concurrency")) middleware.push(concurrencyLimit({ tools: { write: Number(flag("concurrency")) } }));
  await run("limits", (server) => {
    registerPatternTool(
      server,
      {
        name: "write",
        description: "Pretends to write, taking ms milliseconds",
        inputSchema: schema({ path: strProp("p"), ms: intProp("ms"), finish: strProp("ok | domain | crash") }, [
          "path",
        ]),
        annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
      },
      (args) => ({ patterns: [`write:${requireString(args, "path")}`] }),
      async (req) => {
        console.error("WRITE_STARTED");
        const finish = req.arguments.finish;
        if (finish === undefined) await new Promise((r) => setTimeout(r, getInt(req.arguments, "ms", 0)));
        else if (!req.signal.aborted) await new Promise((r) => req.signal.addEventListener("abort", r));
        console.error("WRITE_DONE");
        if (finish === "domain") throw new ToolError("refused after the deadline");
        if (finish === "crash") throw new Error("crashed after the deadline");
        return text("written");
      },
    );
  }, {
    middleware,
    timeoutMs: flag("timeout") ? Number(flag("timeout")) : undefined,
    shutdownGraceMs: flag("grace") ? Number(flag("grace")) : undefined,
    onClose: () => audit.close(),
    policy: definePolicy({ tenantConfig: false, writeFiles: flag("audit") ? [flag("audit")!] : [] }),
  });
}
