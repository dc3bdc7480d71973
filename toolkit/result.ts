/**
 * Who a content block is for, how much it matters, and when it last changed:
 * MCP's `Annotations`. Hints for the client, never instructions to the model.
 */
export interface ContentAnnotations {
  /** Who the block is meant for. */
  audience?: ("user" | "assistant")[];
  /** How important it is, from 0 (least) to 1 (most). */
  priority?: number;
  /** When the underlying data last changed, as an ISO 8601 timestamp. */
  lastModified?: string;
}

/** A text block of a tool result. */
export interface TextContent {
  /** The block kind. */
  type: "text";
  /** The text. */
  text: string;
  /** Audience and priority hints for the client. */
  annotations?: ContentAnnotations;
  /** Extra metadata. */
  _meta?: Record<string, unknown>;
}

/** An image (base64) block of a tool result. */
export interface ImageContent {
  /** The block kind. */
  type: "image";
  /** The bytes, base64-encoded. */
  data: string;
  /** The media type, e.g. `image/png`. */
  mimeType: string;
  /** Audience and priority hints for the client. */
  annotations?: ContentAnnotations;
  /** Extra metadata. */
  _meta?: Record<string, unknown>;
}

/** An audio (base64) block of a tool result. */
export interface AudioContent {
  /** The block kind. */
  type: "audio";
  /** The bytes, base64-encoded. */
  data: string;
  /** The media type, e.g. `audio/wav`. */
  mimeType: string;
  /** Audience and priority hints for the client. */
  annotations?: ContentAnnotations;
  /** Extra metadata. */
  _meta?: Record<string, unknown>;
}

/** An icon a client may show for a resource. */
export interface Icon {
  /** An `https:` or `data:` URI of the image. */
  src: string;
  /** The image's media type. */
  mimeType?: string;
  /** Sizes it fits, e.g. `["48x48"]` or `["any"]`. */
  sizes?: string[];
  /** The theme it is drawn for. */
  theme?: "light" | "dark";
}

/** A link to a resource, returned by a tool: MCP's `ResourceLink`. */
export interface ResourceLinkContent {
  /** The block kind. */
  type: "resource_link";
  /** Where the resource is. */
  uri: string;
  /** The resource's name. */
  name: string;
  /** A display title. */
  title?: string;
  /** What the resource is. */
  description?: string;
  /** The media type, when known. */
  mimeType?: string;
  /** Its size in bytes, when known. */
  size?: number;
  /** Audience and priority hints for the client. */
  annotations?: ContentAnnotations;
  /** Icons a client may show. */
  icons?: Icon[];
  /** Extra metadata. */
  _meta?: Record<string, unknown>;
}

/** The text of a resource, embedded in a result. */
export interface TextResourceContents {
  /** The resource's URI. */
  uri: string;
  /** The media type, when known. */
  mimeType?: string;
  /** The text. */
  text: string;
  /** Extra metadata. */
  _meta?: Record<string, unknown>;
}

/** The bytes of a resource, embedded in a result. */
export interface BlobResourceContents {
  /** The resource's URI. */
  uri: string;
  /** The media type, when known. */
  mimeType?: string;
  /** The bytes, base64-encoded. */
  blob: string;
  /** Extra metadata. */
  _meta?: Record<string, unknown>;
}

/** A resource's contents embedded in a tool result: MCP's `EmbeddedResource`. */
export interface EmbeddedResource {
  /** The block kind. */
  type: "resource";
  /** The resource: its text or its bytes. */
  resource: TextResourceContents | BlobResourceContents;
  /** Audience and priority hints for the client. */
  annotations?: ContentAnnotations;
  /** Extra metadata. */
  _meta?: Record<string, unknown>;
}

/** A content block of a tool result: every kind of MCP's `ContentBlock`. */
export type ContentBlock = TextContent | ImageContent | AudioContent | ResourceLinkContent | EmbeddedResource;

/** A content block of a tool result (the same as {@linkcode ContentBlock}). */
export type Content = ContentBlock;

/** What a tool handler returns: MCP's `CallToolResult`. */
export interface ToolResult {
  /** The blocks the model reads. */
  content: ContentBlock[];
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
 * A successful result holding `message` and, when given, the server's
 * `notice` about it in a text block of its own — a truncation marker, say.
 * Appended to the text, a notice can be forged by what the text holds (a
 * file that ends with `[truncated: …]`); in a block of its own, nothing the
 * text holds can make a second block.
 *
 * @param message The text: a file's, a command's output.
 * @param notice What the server says about it; no second block when absent.
 * @returns The tool result.
 *
 * @example Answer with a cut file and its marker apart
 * ```ts
 * import { textWithNotice } from "@forge/toolkit";
 * import assert from "node:assert/strict";
 *
 * assert.deepEqual(textWithNotice("hello", "[truncated: showed 5 of 11 bytes]").content, [
 *   { type: "text", text: "hello" },
 *   { type: "text", text: "[truncated: showed 5 of 11 bytes]" },
 * ]);
 * assert.deepEqual(textWithNotice("whole"), { content: [{ type: "text", text: "whole" }] });
 * ```
 */
export function textWithNotice(message: string, notice?: string): ToolResult {
  if (notice === undefined) return text(message);
  return { content: [{ type: "text", text: message }, { type: "text", text: notice }] };
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
 * Any object type is accepted, an interface included (it need not have an
 * index signature); an array is refused.
 *
 * @typeParam T The value's type.
 * @param value A JSON object.
 * @returns The tool result.
 * @throws {TypeError} When `value` is not a plain object or cannot be serialised.
 *
 * @example Return rows
 * ```ts
 * import { json } from "@forge/toolkit";
 * import assert from "node:assert/strict";
 *
 * interface Page {
 *   rows: { id: number }[];
 *   truncated: boolean;
 * }
 * const page: Page = { rows: [{ id: 1 }], truncated: false };
 * const result = json(page);
 * assert.equal(result.structuredContent?.truncated, false);
 * assert.equal(result.content[0].type, "text");
 * ```
 */
export function json<T extends object>(value: T extends readonly unknown[] ? never : T): ToolResult {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new TypeError("Cannot build a JSON result: the value must be a plain object");
  }
  return {
    content: [{ type: "text", text: JSON.stringify(value) }],
    structuredContent: value as unknown as Record<string, unknown>,
  };
}
