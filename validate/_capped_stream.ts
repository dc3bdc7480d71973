import { wholeCharacters } from "./_utf8.ts";

/** What {@linkcode collectCapped} kept of a stream. */
export interface Collected {
  /** The first bytes, up to the cap, cut on a whole UTF-8 character when cut. */
  readonly bytes: Uint8Array;
  /** Whether more bytes came than the cap. */
  readonly cut: boolean;
}

/**
 * Reads a child's pipe, keeping at most `cap` bytes. On the first byte past
 * the cap it calls `onOverflow` (the caller stops the program: draining a
 * program that writes without end would cost time without bound) and stops
 * reading. `stop` ends the read early, for a pipe that a process outside
 * the killed group still holds open.
 */
export async function collectCapped(
  stream: ReadableStream<Uint8Array>,
  cap: number,
  onOverflow: () => void,
  stop: AbortSignal,
): Promise<Collected> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  let cut = false;
  const reader = stream.getReader();
  const cancel = () => reader.cancel().catch(() => {});
  stop.addEventListener("abort", cancel, { once: true });
  try {
    while (true) {
      const { value, done } = await reader.read();
      if (done) break;
      if (size + value.length > cap) {
        chunks.push(value.subarray(0, cap - size));
        size = cap;
        cut = true;
        onOverflow();
        break;
      }
      chunks.push(value);
      size += value.length;
    }
  } catch {
    // A cancelled read ends here: what was kept stands.
  } finally {
    stop.removeEventListener("abort", cancel);
    cancel();
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.length;
  }
  return { bytes: cut ? bytes.subarray(0, wholeCharacters(bytes)) : bytes, cut };
}
