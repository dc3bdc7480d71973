// The fixture's tools for the tasks extension (io.modelcontextprotocol/tasks):
// one that never runs as a task, long-running ones, ones that ask, and ones
// that fail as a tool and as a bug.

import { addTool, type ObjectSchema, type Server, text, ToolError } from "@forge/toolkit";
import { NO_ARGS, READS } from "./_fixture_content.ts";

const CONFIRM = {
  type: "object",
  properties: { confirm: { type: "boolean", description: "Delete it?" } },
  required: ["confirm"],
} as ObjectSchema<{ confirm: boolean }>;

/** Registers the task tools. */
export function addTaskTools(server: Server): void {
  addTool(server, {
    name: "greet",
    description: "Greets someone by name, at once",
    inputSchema: { type: "object", properties: { name: { type: "string" } } },
    annotations: READS,
  }, (req) => text(`Hello, ${String(req.arguments.name ?? "world")}!`));

  addTool(server, {
    name: "slow_compute",
    description: "Works for the given number of seconds, then answers",
    inputSchema: { type: "object", properties: { seconds: { type: "number", minimum: 0 } } },
    annotations: READS,
    task: true,
  }, async (req) => {
    const seconds = Number(req.arguments.seconds ?? 0);
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, seconds * 1000);
      req.signal.addEventListener("abort", () => {
        clearTimeout(timer);
        resolve();
      }, { once: true });
    });
    req.signal.throwIfAborted();
    return text(`Computed after ${seconds} s`);
  });

  addTool(server, {
    name: "confirm_delete",
    description: "Asks before deleting, then says what it did",
    inputSchema: NO_ARGS,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    task: true,
  }, async (req) => {
    const answer = await req.elicit({ message: "Delete the item?", requestedSchema: CONFIRM });
    return text(answer.action === "accept" && answer.content.confirm ? "Deleted" : "Kept");
  });

  addTool(server, {
    name: "multi_input",
    description: "Asks two questions at once",
    inputSchema: NO_ARGS,
    annotations: READS,
    task: true,
  }, async (req) => {
    const [first, second] = await Promise.all([
      req.elicit({ message: "First?", requestedSchema: CONFIRM }),
      req.elicit({ message: "Second?", requestedSchema: CONFIRM }),
    ]);
    return text(`first=${first.action}, second=${second.action}`);
  });

  addTool(server, {
    name: "failing_job",
    description: "Works for a second, then reports a tool error",
    inputSchema: NO_ARGS,
    annotations: READS,
    task: { required: true },
  }, async () => {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    throw new ToolError("The job failed, as it always does");
  });

  addTool(server, {
    name: "protocol_error_job",
    description: "Fails with a bug, which becomes a protocol error",
    inputSchema: NO_ARGS,
    annotations: READS,
    task: true,
  }, () => {
    throw new Error("a bug in the job");
  });

  addTool(server, {
    name: "test_tool_with_task",
    description: "Asks the user's name, then works on it as a task",
    inputSchema: NO_ARGS,
    annotations: READS,
    task: { required: true, askFirst: true },
  }, async (req) => {
    const answer = await req.elicit({
      message: "What is your name?",
      requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] } as ObjectSchema<
        { name: string }
      >,
    }, { key: "user_name" });
    return text(`Hello, ${answer.action === "accept" ? answer.content.name : "nobody"}!`);
  });
}
