/** A text block of a tool result. */
export interface TextContent {
  /** The block kind. */
  type: "text";
  /** The text. */
  text: string;
  /** Audience and priority hints for the client. */
  annotations?: Record<string, unknown>;
  /** Extra metadata. */
  _meta?: Record<string, unknown>;
}

/** An image (base64) block of a tool result. */
export interface ImageContent {
  /** The block kind. */
  type: "image";
  /** The bytes, base64-encoded. */
  data: string;
  /** The media type. */
  mimeType: string;
  /** Audience and priority hints for the client. */
  annotations?: Record<string, unknown>;
  /** Extra metadata. */
  _meta?: Record<string, unknown>;
}

/** An audio (base64) block of a tool result. */
export interface AudioContent {
  /** The block kind. */
  type: "audio";
  /** The bytes, base64-encoded. */
  data: string;
  /** The media type. */
  mimeType: string;
  /** Audience and priority hints for the client. */
  annotations?: Record<string, unknown>;
  /** Extra metadata. */
  _meta?: Record<string, unknown>;
}

/** A link to a resource, returned by a tool. */
export interface ResourceLinkContent {
  /** The block kind. */
  type: "resource_link";
  /** Where the resource is. */
  uri: string;
  /** The resource's name. */
  name: string;
  /** What the resource is. */
  description?: string;
  /** The media type, when known. */
  mimeType?: string;
  /** Extra metadata. */
  _meta?: Record<string, unknown>;
}

/** A content block of a tool result. */
export type Content = TextContent | ImageContent | AudioContent | ResourceLinkContent;

/** What a tool handler returns: MCP's `CallToolResult`. */
export interface ToolResult {
  /** The blocks the model reads. */
  content: Content[];
  /** A JSON object matching the tool's `outputSchema`, when it declares one. */
  structuredContent?: Record<string, unknown>;
  /** True for a domain error the model can fix. */
  isError?: boolean;
  /** Extra metadata. */
  _meta?: Record<string, unknown>;
}

/**
 * A successful result holding one text block.
 *
 * @param message The text.
 * @returns The tool result.
 *
 * @example Answer with text
 * ```ts
 * import { text } from "@forge/toolkit";
 * import assert from "node:assert/strict";
 *
 * assert.deepEqual(text("done"), { content: [{ type: "text", text: "done" }] });
 * ```
 */
export function text(message: string): ToolResult {
  return { content: [{ type: "text", text: message }] };
}

/**
 * A domain error the model can fix (`isError: true`). Same as throwing a
 * {@linkcode ToolError} from the handler.
 *
 * @param message What went wrong and how to fix it. No stack, no host path.
 * @returns The tool result.
 *
 * @example Refuse with an explanation
 * ```ts
 * import { error } from "@forge/toolkit";
 * import assert from "node:assert/strict";
 *
 * assert.equal(error("Table \"x\" not found").isError, true);
 * ```
 */
export function error(message: string): ToolResult {
  return { content: [{ type: "text", text: message }], isError: true };
}

/**
 * A structured result: `structuredContent` holds `value` and, for clients
 * that only read content, a text block holds the same JSON. Pair it with an
 * `outputSchema` on the tool; the toolkit validates the value before sending.
 *
 * @param value A JSON object.
 * @returns The tool result.
 * @throws {TypeError} When `value` is not a plain object or cannot be serialised.
 *
 * @example Return rows
 * ```ts
 * import { json } from "@forge/toolkit";
 * import assert from "node:assert/strict";
 *
 * const result = json({ rows: [{ id: 1 }], truncated: false });
 * assert.equal(result.structuredContent?.truncated, false);
 * assert.equal(result.content[0].type, "text");
 * ```
 */
export function json(value: Record<string, unknown>): ToolResult {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new TypeError("Cannot build a JSON result: the value must be a plain object");
  }
  return { content: [{ type: "text", text: JSON.stringify(value) }], structuredContent: value };
}
