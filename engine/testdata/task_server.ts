// A server with long-running tools, for the tasks tests; needs no Deno
// permission. Flags: --max-tasks=<n>, --task-bytes=<bytes> (maxTaskBytes),
// --max=<bytes> (maxMessageBytes), --ttl=<ms> (taskTtlMs).
// Markers on stderr, for tests to wait on instead of polling on a timer:
// `ABORTED <tool>: <reason>` when a handler's signal fires, `ASKING <tool>`
// as a handler asks its client, and `ENDED <tool>` as an asynchronous handler
// settles. The task table records the outcome before the server reads its next
// message, so a tasks/get sent after the line finds the task ended.
import {
  addTool,
  error,
  getInt,
  health,
  intProp,
  run,
  schema,
  strProp,
  text,
  ToolError,
  type ToolHandler,
  type ToolResult,
} from "../../mod.ts";

const flag = (name: string, fallback: number) => {
  const found = Deno.args.find((a) => a.startsWith(`--${name}=`));
  return found ? Number(found.split("=")[1]) : fallback;
};
const RO = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

/** Waits `ms`, or rejects when `signal` fires, after saying so on stderr. */
function sleep(ms: number, signal: AbortSignal, tool: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(timer);
      console.error(`ABORTED ${tool}: ${signal.reason?.name}: ${signal.reason?.message}`);
      reject(signal.reason);
    });
  });
}

/** `handler`, saying `ENDED <tool>` on stderr as its promise settles. */
function ends(tool: string, handler: (...args: Parameters<ToolHandler>) => Promise<ToolResult>): ToolHandler {
  return (req) => handler(req).finally(() => console.error(`ENDED ${tool}`));
}

if (!health()) {
  await run("tasks", (server) => {
    addTool(
      server,
      {
        name: "slow",
        description: "Sleeps ms, honouring its signal",
        inputSchema: schema({ ms: intProp("ms") }),
        annotations: RO,
        task: true,
      },
      ends("slow", async (req) => {
        const ms = getInt(req.arguments, "ms", 100);
        await sleep(ms, req.signal, "slow");
        return text(`slept ${ms}`);
      }),
    );
    // A task that ends only when the client calls release: tests see it working for as long as they need, however
    // slow the machine (a sleep of a set length may end before the first tasks/get on a busy one).
    let release: (() => void) | undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    addTool(
      server,
      {
        name: "held",
        description: "Works until the client calls release, honouring its signal",
        inputSchema: schema(),
        annotations: RO,
        task: true,
      },
      ends("held", async (req) => {
        await new Promise<void>((resolve, reject) => {
          released.then(resolve);
          req.signal.addEventListener("abort", () => reject(req.signal.reason));
        });
        return text("released");
      }),
    );
    addTool(server, {
      name: "release",
      description: "Lets held end",
      inputSchema: schema(),
      annotations: RO,
    }, () => (release?.(), text("released held")));
    addTool(
      server,
      {
        name: "short_lived",
        description: "Sleeps ms as a task that lives 300 ms",
        inputSchema: schema({ ms: intProp("ms") }),
        annotations: RO,
        task: { ttlMs: 300 },
      },
      ends("short_lived", async (req) => {
        await sleep(getInt(req.arguments, "ms", 100), req.signal, "short_lived");
        return text("done");
      }),
    );
    addTool(server, {
      name: "refuse",
      description: "Fails with a domain error",
      inputSchema: schema(),
      annotations: RO,
      task: true,
    }, ends("refuse", () => Promise.reject(new ToolError("Cannot refuse: nothing to refuse"))));
    addTool(server, {
      name: "crash",
      description: "Throws an infrastructure error",
      inputSchema: schema(),
      annotations: RO,
      task: true,
    }, ends("crash", () => Promise.reject(new Error("disk on fire at /secret/host/path"))));
    addTool(server, {
      name: "huge",
      description: "Returns a text of n bytes",
      inputSchema: schema({ n: intProp("bytes") }),
      annotations: RO,
      task: true,
    }, (req) => text("x".repeat(getInt(req.arguments, "n", 10))));
    addTool(
      server,
      {
        name: "greet",
        description: "Asks the user's name through elicitation, then greets",
        inputSchema: schema(),
        annotations: RO,
        task: true,
      },
      ends("greet", async (req) => {
        console.error("ASKING greet");
        const answer = await req.elicit({
          message: "Please enter your name.",
          requestedSchema: schema({ name: strProp("Your name") }, ["name"]),
        });
        return text(answer.action === "accept" ? `Hello, ${answer.content.name}!` : `no name (${answer.action})`);
      }),
    );
    addTool(
      server,
      {
        name: "ask_cyclic",
        description: "Asks with a message that refers to itself (a handler bug): the task fails, the server lives",
        inputSchema: schema(),
        annotations: RO,
        task: true,
      },
      ends("ask_cyclic", async (req) => {
        const message: Record<string, unknown> = { role: "user", content: { type: "text", text: "loop" } };
        message.self = message;
        try {
          await req.sample({ messages: [message as never], maxTokens: 20 });
        } catch (err) {
          return error(`could not ask: ${(err as Error).name}`);
        }
        return text("asked");
      }),
    );
    addTool(server, {
      name: "quick",
      description: "Not long-running",
      inputSchema: schema(),
      annotations: RO,
    }, () => error("never a task"));
    // A tool that runs only as a task; RAN on stderr proves whether its handler ran.
    addTool(
      server,
      {
        name: "only_task",
        description: "Runs only as a task",
        inputSchema: schema(),
        annotations: RO,
        task: { required: true },
      },
      ends("only_task", () => {
        console.error("RAN only_task");
        return Promise.resolve(text("done as a task"));
      }),
    );
    // Asks a name before the task exists, then, as a task, asks once more.
    addTool(
      server,
      {
        name: "ask_then_task",
        description: "Asks the user's name first, then works as a task",
        inputSchema: schema(),
        annotations: RO,
        task: { required: true, askFirst: true },
      },
      ends("ask_then_task", async (req) => {
        const NAME = schema({ name: strProp("Your name") }, ["name"]);
        const who = await req.elicit({ message: "What is your name?", requestedSchema: NAME }, { key: "user_name" });
        console.error("ASKED-FIRST answered");
        const again = await req.elicit({ message: "And your nickname?", requestedSchema: NAME }, { key: "nickname" });
        const name = (a: typeof who) => a.action === "accept" ? a.content.name : a.action;
        return text(`Hello, ${name(who)} (${name(again)})!`);
      }),
    );
  }, {
    maxTasks: flag("max-tasks", 64),
    maxTaskBytes: flag("task-bytes", 64 * 1024 * 1024),
    maxMessageBytes: flag("max", 64 * 1024 * 1024),
    taskTtlMs: flag("ttl", 600_000),
    shutdownGraceMs: 2_000,
  });
}
