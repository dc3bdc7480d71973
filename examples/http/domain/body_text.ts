import { quote } from "@forge/toolkit/validate";

/** A response body as the model gets it. */
export interface BodyText {
  /** The decoded text, or a bracketed note when the body is not text. */
  text: string;
  /** True when the body was not decoded (binary content, or a charset the runtime does not know). */
  binary: boolean;
  /** The text of {@linkcode BodyTextOptions.after}, decoded on from the body's (when given and the body is text). */
  after?: string;
  /** The encoding it was decoded from (its WHATWG name), when it is text. */
  encoding?: string;
}

/** Options of {@linkcode bodyText}. */
export interface BodyTextOptions {
  /**
   * Bytes read after the body's, decoded on from them into
   * {@linkcode BodyText.after}: not shown, read to look past a cut.
   * @default {none}
   */
  after?: Uint8Array;
  /**
   * Whether the body ends with `after` (or with `bytes` when no `after` is
   * given): its last bytes are then decoded to the end, an incomplete
   * character at the end showing as U+FFFD, never dropped.
   * @default {false}
   */
  whole?: boolean;
  /**
   * The size a note gives for a body that is not text.
   * @default {"<N> bytes", the length of `bytes`}
   */
  size?: string;
}

const TEXT_TYPES = new Set([
  "application/json",
  "application/xml",
  "application/javascript",
  "application/ecmascript",
  "application/x-javascript",
  "application/x-www-form-urlencoded",
  "application/x-ndjson",
  "application/yaml",
  "application/x-yaml",
  "application/toml",
  "application/graphql",
  "application/sql",
]);
const BINARY_PREFIXES = ["image/", "audio/", "video/", "font/"];
const BINARY_TYPES = new Set([
  "application/octet-stream",
  "application/pdf",
  "application/zip",
  "application/gzip",
  "application/x-tar",
  "application/wasm",
  "application/x-protobuf",
  "application/vnd.ms-excel",
  "application/msword",
]);

/**
 * Decodes a response body for the model. The `charset` of the
 * `Content-Type` decides (UTF-8 when absent, any label the WHATWG Encoding
 * standard knows); text types, `+json`, `+xml` and `+yaml` types and any
 * type with a charset are text; images, audio, video, fonts and known binary
 * formats are not; anything else (or no type at all) is text only when it
 * is valid UTF-8 without NUL bytes (judged on `bytes` alone). A body that is
 * not text becomes a note with its type and size instead of mojibake. A body
 * cut at the byte cap is decoded without its last incomplete character,
 * which then starts the text of `after`.
 *
 * @param bytes The body bytes (possibly cut at the cap).
 * @param contentType The response's `Content-Type`, if any.
 * @param options Bytes read after `bytes`, to be decoded on from them.
 * @returns The text, or a note and `binary: true`; with `after` given, its text too.
 *
 * @example Text in a declared charset, and an image
 * ```ts
 * import { bodyText } from "./body_text.ts";
 * import assert from "node:assert/strict";
 *
 * const latin1 = bodyText(new Uint8Array([0x63, 0x61, 0x66, 0xe9]), "text/plain; charset=iso-8859-1");
 * assert.deepEqual(latin1, { text: "café", binary: false, encoding: "windows-1252" });
 * assert.equal(bodyText(new Uint8Array([0x89, 0x50, 0x4e, 0x47]), "image/png").binary, true);
 * ```
 */
export function bodyText(bytes: Uint8Array, contentType: string | null, options: BodyTextOptions = {}): BodyText {
  const { after, size = `${bytes.length} bytes`, whole = false } = options;
  const { essence, charset } = parseContentType(contentType ?? "");
  const note = (why: string): BodyText => ({
    text: `[body not shown: ${why}; ${size} of ${essence === "" ? "an unknown type" : quote(essence, 100)}]`,
    binary: true,
  });
  if (charset !== undefined || isText(essence)) {
    let decoder: TextDecoder;
    try {
      decoder = new TextDecoder(charset ?? "utf-8");
    } catch {
      return note(`the charset ${quote(charset, 40)} is not supported`);
    }
    return decoded(decoder, bytes, after, whole);
  }
  if (isBinary(essence) || bytes.includes(0)) return note("binary content");
  // Decoded once, strictly: bytes that are not UTF-8 are binary. What was read after them is decoded on from them,
  // and only if that part is not UTF-8 is the whole decoded again, leniently.
  const strict = new TextDecoder("utf-8", { fatal: true });
  let text: string;
  try {
    text = strict.decode(bytes, { stream: true });
  } catch {
    return note("binary content");
  }
  // A whole body's end is decoded to the end: a character it ends inside shows as U+FFFD, not dropped.
  const end = () => (whole ? flushed(strict) : "");
  if (after === undefined) return { text: text + end(), binary: false, encoding: "utf-8" };
  try {
    return { text, binary: false, after: strict.decode(after, { stream: true }) + end(), encoding: "utf-8" };
  } catch {
    return decoded(new TextDecoder("utf-8"), bytes, after, whole);
  }
}

/** What a strict decoder still holds: nothing, or U+FFFD for a character its input ended inside. */
function flushed(decoder: TextDecoder): string {
  try {
    return decoder.decode();
  } catch {
    return "\ufffd";
  }
}

/**
 * The text of `bytes`, and of `after` decoded on from them when given. A body cut at the byte cap holds back a
 * character the cut split (it starts `after`); a whole body's last bytes are decoded to the end.
 */
function decoded(decoder: TextDecoder, bytes: Uint8Array, after: Uint8Array | undefined, whole: boolean): BodyText {
  const text = decoder.decode(bytes, { stream: after !== undefined || !whole });
  const { encoding } = decoder;
  if (after === undefined) return { text, binary: false, encoding };
  return { text, binary: false, after: decoder.decode(after, { stream: !whole }), encoding };
}

/** The lower-cased `type/subtype` and the `charset` parameter of a Content-Type. */
function parseContentType(value: string): { essence: string; charset: string | undefined } {
  const [type, ...params] = value.split(";");
  let charset: string | undefined;
  for (const param of params) {
    const eq = param.indexOf("=");
    if (eq === -1 || param.slice(0, eq).trim().toLowerCase() !== "charset") continue;
    charset = param.slice(eq + 1).trim().replace(/^"(.*)"$/, "$1");
    if (charset === "") charset = undefined;
  }
  return { essence: type.trim().toLowerCase(), charset };
}

function isText(essence: string): boolean {
  if (essence.startsWith("text/") || TEXT_TYPES.has(essence)) return true;
  return /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+\+(json|xml|yaml)$/.test(essence);
}

function isBinary(essence: string): boolean {
  return BINARY_PREFIXES.some((prefix) => essence.startsWith(prefix)) || BINARY_TYPES.has(essence);
}
