// A server whose tools ask their client: for the input-required tests of both
// eras. With --audit=<file> it keeps an audit trail there (needs read and
// write on that file); otherwise it needs no permission. --timeout=<ms>,
// --max-in-flight=<n>, --max-message-bytes=<n> and --grace=<ms> (shutdownGraceMs) set run()'s options of those names. `deletions` counts
// what the confirmed `delete` tool really ran, so a test can prove a declined
// call ran nothing.
import {
  addTool,
  boolProp,
  health,
  intProp,
  json,
  MissingCapabilityError,
  registerPatternTool,
  requireString,
  run,
  schema,
  strProp,
  text,
} from "../../mod.ts";
import { auditTrail } from "../../middleware/mod.ts";
import { definePolicy } from "../../validate/mod.ts";

const RO = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
const auditFile = Deno.args.find((a) => a.startsWith("--audit="))?.slice("--audit=".length);
const timeoutMs = Number(Deno.args.find((a) => a.startsWith("--timeout="))?.slice("--timeout=".length) ?? 30_000);
const maxInFlight = Number(
  Deno.args.find((a) => a.startsWith("--max-in-flight="))?.slice("--max-in-flight=".length) ?? 1024,
);
const maxMessageBytes = Number(
  Deno.args.find((a) => a.startsWith("--max-message-bytes="))?.slice("--max-message-bytes=".length) ?? 64 * 1024 * 1024,
);
const graceFlag = Deno.args.find((a) => a.startsWith("--grace="))?.slice("--grace=".length);
const shutdownGraceMs = graceFlag === undefined ? undefined : Number(graceFlag);
let deletions = 0;
let greetRuns = 0;

if (!health()) {
  const audit = auditFile === undefined ? undefined : auditTrail({ server: "ask", file: auditFile });
  await run(
    "ask",
    (server) => {
      addTool(server, {
        name: "greet",
        description: "Asks the user's name, then greets them",
        inputSchema: schema({ greeting: strProp("The greeting") }, ["greeting"]),
        annotations: RO,
      }, async (req) => {
        greetRuns++;
        const answer = await req.elicit({
          message: "What is your name?",
          requestedSchema: schema({ name: strProp("Your name") }, ["name"]),
        });
        if (answer.action !== "accept") return text(`no name (${answer.action})`);
        return text(`${requireString(req.arguments, "greeting")}, ${answer.content.name}`);
      });
      addTool(server, {
        name: "survey",
        description: "Asks two questions at once, then a third",
        inputSchema: schema(),
        annotations: RO,
      }, async (req) => {
        const [color, sure] = await Promise.all([
          req.elicit({ message: "Colour?", requestedSchema: schema({ color: strProp("Colour") }, ["color"]) }),
          req.elicit({ message: "Sure?", requestedSchema: schema({ sure: boolProp("Sure") }, ["sure"]) }),
        ]);
        const last = await req.elicit({
          message: "Last?",
          requestedSchema: schema({ last: strProp("Last") }, ["last"]),
        });
        return json({ color: color.content?.color, sure: sure.content?.sure, last: last.content?.last });
      });
      addTool(server, {
        name: "roots",
        description: "Lists the client's roots",
        inputSchema: schema(),
        annotations: RO,
      }, async (req) => json({ roots: (await req.listRoots()).map((r) => r.uri) }));
      addTool(server, {
        name: "haiku",
        description: "Asks the client's model for a line",
        inputSchema: schema(),
        annotations: RO,
      }, async (req) => {
        const answer = await req.sample({
          messages: [{ role: "user", content: { type: "text", text: "One line, please" } }],
          maxTokens: 20,
        });
        return text(`${answer.model}: ${(answer.content as { text?: string }).text}`);
      });
      addTool(server, {
        name: "ask_cyclic",
        description: "Asks with a message that refers to itself (a handler bug): the call fails, the server lives",
        inputSchema: schema(),
        annotations: RO,
      }, async (req) => {
        const message: Record<string, unknown> = { role: "user", content: { type: "text", text: "loop" } };
        message.self = message;
        await req.sample({ messages: [message as never], maxTokens: 20 });
        return text("asked");
      });
      addTool(server, {
        name: "many",
        description: "Asks n questions one after the other",
        inputSchema: schema({ n: intProp("How many") }, ["n"]),
        annotations: RO,
      }, async (req) => {
        for (let i = 1; i <= req.arguments.n; i++) {
          await req.elicit({ message: `Question ${i}?`, requestedSchema: schema({}) });
        }
        return text(`asked ${req.arguments.n}`);
      });
      addTool(server, {
        name: "maybe_ask",
        description: "Asks when it can, else goes on without",
        inputSchema: schema(),
        annotations: RO,
      }, async (req) => {
        try {
          const answer = await req.elicit({ message: "Go?", requestedSchema: schema({}) });
          return text(`asked: ${answer.action}`);
        } catch (err) {
          if (err instanceof MissingCapabilityError) return text(`not asked: no ${err.capability}`);
          throw err;
        }
      });
      addTool(server, {
        name: "ask_after_failure",
        description: "Asks; when that question fails, asks again (a question begun after whatever failed the first)",
        inputSchema: schema(),
        annotations: RO,
      }, async (req) => {
        const outcomes: string[] = [];
        for (let i = 1; i <= 2; i++) {
          try {
            const answer = await req.elicit({ message: `Question ${i}?`, requestedSchema: schema({}) });
            outcomes.push(`answered: ${answer.action}`);
            break;
          } catch (err) {
            outcomes.push(`failed: ${err instanceof Error ? err.message : String(err)}`);
          }
        }
        return json({ outcomes });
      });
      addTool(server, {
        name: "counts",
        description: "How many times greet's handler and delete's action ran",
        inputSchema: schema(),
        annotations: RO,
      }, () => json({ greetRuns, deletions }));
      registerPatternTool(
        server,
        {
          name: "delete",
          description: "Pretends to delete a path, after the user confirms",
          inputSchema: schema({ path: strProp("The path") }, ["path"]),
          annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
        },
        (args) => ({ patterns: [`delete:${args.path}`] }),
        (req) => {
          deletions++;
          // The handler sees what was confirmed; a scratch path asks nothing.
          return text(`deleted ${req.arguments.path}${req.confirmation ? ` (${req.confirmation})` : ""}`);
        },
        { confirm: (args) => args.path === "scratch" ? undefined : `Delete ${args.path}?` },
      );
    },
    audit === undefined ? { timeoutMs, maxInFlight, maxMessageBytes, shutdownGraceMs } : {
      timeoutMs,
      shutdownGraceMs,
      maxInFlight,
      maxMessageBytes,
      middleware: [audit],
      onClose: () => audit.close(),
      // The process may touch its audit file, and nothing else.
      policy: definePolicy({ tenantConfig: false, writeFiles: [auditFile!] }),
    },
  );
}
