// The fixture's tools whose scenarios check what a result holds: each content
// type, a tool error, progress, and a 2020-12 input schema.

import { addTool, error, type JsonSchema, type ObjectSchema, type Server, text } from "@forge/toolkit";
import { redPixelPng, silentWav } from "./_media.ts";
import { SCENARIO_SCHEMA_2020_12 } from "./scenario_schema.ts";

/** The hints of a tool that only reads. */
export const READS = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
/** An object schema with no arguments. */
export const NO_ARGS: ObjectSchema = { type: "object", properties: {} };

/** Registers the content tools; the media are built first. */
export async function addContentTools(server: Server): Promise<void> {
  const png = await redPixelPng();
  const wav = silentWav();
  const plain = (name: string, description: string, result: () => ReturnType<typeof text>) =>
    addTool(server, { name, description, inputSchema: NO_ARGS, annotations: READS }, result);

  plain("test_simple_text", "Returns one text block", () => text("This is a simple text response for testing."));
  plain("test_image_content", "Returns one image block", () => ({
    content: [{ type: "image", data: png, mimeType: "image/png" }],
  }));
  plain("test_audio_content", "Returns one audio block", () => ({
    content: [{ type: "audio", data: wav, mimeType: "audio/wav" }],
  }));
  plain("test_embedded_resource", "Returns one embedded resource", () => ({
    content: [{
      type: "resource",
      resource: {
        uri: "test://embedded-resource",
        mimeType: "text/plain",
        text: "This is an embedded resource content.",
      },
    }],
  }));
  plain("test_multiple_content_types", "Returns text, an image and a resource", () => ({
    content: [
      { type: "text", text: "Multiple content types test:" },
      { type: "image", data: png, mimeType: "image/png" },
      {
        type: "resource",
        resource: {
          uri: "test://mixed-content-resource",
          mimeType: "application/json",
          text: JSON.stringify({ test: "data", value: 123 }),
        },
      },
    ],
  }));
  plain(
    "test_error_handling",
    "Always reports a tool error",
    () => error("This tool intentionally returns an error for testing"),
  );
  // The toolkit declares no logging capability: its log goes to stderr, never to the client.
  plain(
    "test_tool_with_logging",
    "Would log to the client; the toolkit logs to stderr",
    () => text("Logged to stderr"),
  );
  plain("test_logging_tool", "Runs without logging to the client", () => text("No log sent"));
  plain("test_reconnection", "Answers at once", () => text("Reconnection test completed successfully"));

  addTool(server, {
    name: "test_tool_with_progress",
    description: "Reports 0, 50 and 100 of 100",
    inputSchema: NO_ARGS,
    annotations: READS,
  }, async (req) => {
    for (const step of [0, 50, 100]) {
      req.progress(step, 100);
      if (step < 100) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return text("Progress test completed");
  });

  addTool(server, {
    name: "json_schema_2020_12_tool",
    description: "Tool with JSON Schema 2020-12 features",
    inputSchema: SCENARIO_SCHEMA_2020_12,
    annotations: READS,
  }, (req) => text(`Received: ${JSON.stringify(req.arguments)}`));
}

export type { JsonSchema };
