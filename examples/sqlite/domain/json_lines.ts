// The server and its database processes talk in JSON, one value per line,
// over pipes. Each side reads the other's lines with a cap, so a process that
// misbehaves costs the reader at most that many bytes.

/**
 * The JSON values of a byte stream that holds one per line. Each chunk is
 * scanned once for line ends, and a line split across chunks is joined once.
 *
 * @param stream The bytes, e.g. a child's stdout.
 * @param maxLineBytes The longest line accepted, in bytes.
 * @returns The values, in order; the iteration ends with the stream.
 * @throws {RangeError} When a line passes `maxLineBytes`.
 * @throws {SyntaxError} When a line is not JSON.
 */
export async function* readJsonLines(
  stream: ReadableStream<Uint8Array>,
  maxLineBytes: number,
): AsyncGenerator<unknown> {
  const decoder = new TextDecoder();
  let parts: Uint8Array[] = [];
  let held = 0;
  const take = (tail: Uint8Array): unknown => {
    parts.push(tail);
    const line = parts.length === 1 ? parts[0] : join(parts, held + tail.length);
    parts = [];
    held = 0;
    return JSON.parse(decoder.decode(line));
  };
  for await (const chunk of stream) {
    let start = 0;
    for (let end = chunk.indexOf(10); end !== -1; end = chunk.indexOf(10, start)) {
      if (held + end - start > maxLineBytes) throw tooLong(maxLineBytes);
      yield take(chunk.subarray(start, end));
      start = end + 1;
    }
    if (start < chunk.length) {
      held += chunk.length - start;
      if (held > maxLineBytes) throw tooLong(maxLineBytes);
      // Copied: a stream may reuse its chunk's memory once we return.
      parts.push(chunk.slice(start));
    }
  }
}

/**
 * One value as a line for {@linkcode readJsonLines}: its JSON and a line end.
 *
 * @param value A JSON value.
 * @returns The line's bytes.
 */
export function jsonLine(value: unknown): Uint8Array {
  return new TextEncoder().encode(`${JSON.stringify(value)}\n`);
}

function join(parts: readonly Uint8Array[], length: number): Uint8Array {
  const out = new Uint8Array(length);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

function tooLong(max: number): RangeError {
  return new RangeError(`Cannot read a line: it is longer than ${max} bytes`);
}
