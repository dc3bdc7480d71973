// Splits a byte stream into newline-delimited frames. Pure (no I/O), linear in
// the input, and bounded in memory: a line longer than the limit is dropped as
// it streams, keeping only its first and last bytes so the caller can still
// name the request in its error reply. The limit is the message's: the `\r` of
// a `\r\n` line ending does not count against it.

const LF = 0x0a;
const CR = 0x0d;
const ascii = new TextDecoder();

/** How many bytes of an oversize line are kept from its start. */
export const OVERSIZE_HEAD_BYTES = 4096;
/** How many bytes of an oversize line are kept from its end. */
export const OVERSIZE_TAIL_BYTES = 512;
/** An unfinished-line buffer up to this size keeps its pages between lines (a line's bytes outlive its release). */
export const KEEP_BYTES = 1024 * 1024;
const MAX_LINE_BYTES = 2 ** 32;

/** A complete line, without its `\n` or `\r\n`. */
export interface LineFrame {
  kind: "line";
  /** How many bytes the line has. */
  size: number;
  /**
   * Its bytes. A line with `text` makes them when this is first read: most
   * are parsed from their text and never need them.
   */
  readonly bytes: Uint8Array;
  /**
   * The line as text, when it came out of an all-ASCII run of lines that was
   * decoded at once (one decoder call per read instead of one per line).
   * Absent otherwise: decode `bytes`.
   */
  text?: string;
  /**
   * Set on a line gathered over several reads: gives its bytes back at once
   * (a large line's pages are returned before the sink returns). `bytes` must
   * not be read after it.
   */
  release?: () => void;
}

/** A line that went over the limit; only its size, head and tail remain. */
export interface OversizeFrame {
  kind: "oversize";
  size: number;
  head: Uint8Array;
  tail: Uint8Array;
}

/** What the framer hands out. */
export type Frame = LineFrame | OversizeFrame;

/** Receives frames in order. The bytes are only valid during the call. */
export type FrameSink = (frame: Frame) => void;

/**
 * Incremental newline framer. Feed it chunks with `push()` and call `end()`
 * at end of input; a final line without `\n` is still delivered.
 */
export class LineFramer {
  readonly #max: number;
  // The unfinished line, in one buffer that grows in place up to the limit
  // (a resizable ArrayBuffer reserves the address space and commits pages as
  // it grows): a line spread over many reads is never copied twice, and
  // shrinking it after a large line gives the pages back at once, without
  // waiting for a garbage collection.
  #pending: ArrayBuffer | undefined;
  #size = 0;
  #oversize = false;
  #head: Uint8Array = new Uint8Array(0);
  #tail: Uint8Array = new Uint8Array(0);

  constructor(maxMessageBytes: number) {
    // No JavaScript string can hold a longer line, and reserving more address space can fail (the `\r` of a line
    // ending takes one byte more).
    this.#max = Math.min(maxMessageBytes, MAX_LINE_BYTES - 1);
  }

  /** Frames every complete line in `chunk`; keeps the rest for later. */
  push(chunk: Uint8Array, sink: FrameSink): void {
    const end = chunk.lastIndexOf(LF);
    if (end === -1) {
      this.#append(chunk);
      return;
    }
    // The usual read: all its complete lines found at once in their text.
    let start = this.#pushAsciiRun(chunk, 0, end, sink);
    // Else line by line in the bytes, the lines from the first one that fits tried once more as a run.
    let triedRun = false;
    while (start <= end) {
      const nl = chunk.indexOf(LF, start);
      const piece = chunk.subarray(start, nl);
      if (this.#size === 0 && !this.#oversize) {
        const line = trimCr(piece);
        if (line.length <= this.#max) {
          if (!triedRun) {
            triedRun = true;
            const after = this.#pushAsciiRun(chunk, start, end, sink);
            if (after !== start) {
              start = after;
              continue;
            }
          }
          start = nl + 1;
          emitTrimmed(line, sink);
          continue;
        }
      }
      start = nl + 1;
      this.#append(piece);
      this.#flush(sink);
    }
    this.#append(chunk.subarray(end + 1));
  }

  /**
   * Frames the lines of `chunk` from `start` to the newline at `end` when
   * they are all ASCII and together no longer than one message (so none of
   * them can be over the limit, but for a line begun in an earlier read, which
   * `#append` measures): decoded at once, with each newline found in the text
   * (a string search runs ~10× faster than `indexOf` on bytes). Returns where
   * the lines it framed end: `start` when it framed none.
   */
  #pushAsciiRun(chunk: Uint8Array, start: number, end: number, sink: FrameSink): number {
    if (end - start > this.#max) return start;
    const run = asciiRun(chunk.subarray(start, end));
    if (run === undefined) return start;
    let from = 0;
    if (this.#size > 0 || this.#oversize) {
      // The line begun in an earlier read ends at the first newline.
      let nl = run.indexOf("\n");
      if (nl === -1) nl = run.length;
      this.#append(chunk.subarray(start, start + nl));
      this.#flush(sink);
      from = nl + 1;
    }
    while (from <= run.length) {
      let nl = run.indexOf("\n", from);
      if (nl === -1) nl = run.length;
      const to = nl > from && run.charCodeAt(nl - 1) === CR ? nl - 1 : nl;
      if (to > from && !isBlankText(run, from, to)) sink(new AsciiLine(chunk, start + from, run.slice(from, to)));
      from = nl + 1;
    }
    return end + 1;
  }

  /** Delivers a final unterminated line, if any, and resets. */
  end(sink: FrameSink): void {
    if (this.#size > 0 || this.#oversize) this.#flush(sink);
  }

  /** Bytes buffered for the current unfinished line. */
  get pending(): number {
    return this.#size;
  }

  #append(piece: Uint8Array): void {
    if (piece.length === 0) return;
    if (this.#oversize) {
      this.#size += piece.length;
      // The head is the line's first bytes however it was cut: a line that went over a small limit early fills it on.
      if (this.#head.length < OVERSIZE_HEAD_BYTES) this.#head = keepHead(this.#head, piece);
      this.#tail = keepTail(this.#tail, piece);
      return;
    }
    // One byte past the limit is held: it may be the `\r` of the line ending, known only once the `\n` comes.
    if (this.#size + piece.length > this.#max + 1) {
      // The line's first and last bytes, those held before this piece with it: the tail too, when the piece is
      // shorter than a tail (a request's id at the end of a line that went over in its last few bytes).
      const held = this.#size > 0 ? new Uint8Array(this.#pending!, 0, this.#size) : new Uint8Array(0);
      this.#head = keepHead(held.subarray(0, OVERSIZE_HEAD_BYTES), piece);
      this.#tail = keepTail(held, piece);
      this.#size += piece.length;
      this.#release();
      this.#oversize = true;
      return;
    }
    // Copy: the caller may reuse its read buffer for the next chunk.
    const buffer = this.#pending ??= new ArrayBuffer(0, { maxByteLength: this.#max + 1 });
    if (buffer.byteLength < this.#size + piece.length) buffer.resize(this.#size + piece.length);
    new Uint8Array(buffer, this.#size, piece.length).set(piece);
    this.#size += piece.length;
  }

  readonly #releaser = () => this.#release();

  /** Gives the pages of a large unfinished-line buffer back; a small one is kept for the next line. */
  #release(): void {
    if (this.#pending !== undefined && this.#pending.byteLength > KEEP_BYTES) this.#pending.resize(0);
  }

  #flush(sink: FrameSink): void {
    if (this.#oversize) {
      const tail = trimCr(this.#tail);
      const size = this.#size - (this.#tail.length - tail.length);
      // A head that holds the whole line holds its `\r` too.
      const head = this.#head.length > size ? this.#head.subarray(0, size) : this.#head;
      const frame: OversizeFrame = { kind: "oversize", size, head, tail };
      this.#reset();
      sink(frame);
      return;
    }
    const line = new Uint8Array(this.#pending!, 0, this.#size);
    this.#size = 0;
    try {
      const trimmed = trimCr(line);
      // The byte held past the limit was not a `\r`: the line is one byte too long.
      if (trimmed.length > this.#max) sink(oversize(trimmed));
      else if (trimmed.length > 0 && !isBlank(trimmed)) {
        sink({ kind: "line", size: trimmed.length, bytes: trimmed, release: this.#releaser });
      }
    } finally {
      // The line was only lent to the sink: its buffer is reused or shrunk now.
      this.#release();
    }
  }

  #reset(): void {
    this.#size = 0;
    this.#oversize = false;
    this.#head = new Uint8Array(0);
    this.#tail = new Uint8Array(0);
  }
}

/** Emits a line whose `\r` is already gone. */
function emitTrimmed(line: Uint8Array, sink: FrameSink): void {
  if (line.length === 0 || isBlank(line)) return;
  sink({ kind: "line", size: line.length, bytes: line });
}

/**
 * A line of an all-ASCII run: its text is at hand, and its bytes (a view of
 * the read's chunk, lent like any line's) are made only if they are read.
 */
class AsciiLine implements LineFrame {
  readonly kind = "line";
  readonly size: number;
  readonly text: string;
  readonly #chunk: Uint8Array;
  readonly #start: number;

  constructor(chunk: Uint8Array, start: number, text: string) {
    this.#chunk = chunk;
    this.#start = start;
    this.size = text.length;
    this.text = text;
  }

  get bytes(): Uint8Array {
    return this.#chunk.subarray(this.#start, this.#start + this.size);
  }
}

/**
 * `bytes` as a string when every byte is ASCII, else undefined. A decoded
 * string as long as its bytes with no U+FFFD in it can only come from ASCII:
 * a multi-byte character decodes to fewer units than its bytes, a bad byte to
 * U+FFFD.
 */
function asciiRun(bytes: Uint8Array): string | undefined {
  const text = ascii.decode(bytes);
  return text.length === bytes.length && !text.includes("\uFFFD") ? text : undefined;
}

/** A line held whole that is over the limit, as the framer reports one it dropped as it streamed. */
function oversize(line: Uint8Array): OversizeFrame {
  return {
    kind: "oversize",
    size: line.length,
    head: line.slice(0, OVERSIZE_HEAD_BYTES),
    tail: line.slice(Math.max(0, line.length - OVERSIZE_TAIL_BYTES)),
  };
}

function trimCr(bytes: Uint8Array): Uint8Array {
  return bytes.length > 0 && bytes[bytes.length - 1] === CR ? bytes.subarray(0, bytes.length - 1) : bytes;
}

/** Whether a line holds only white space, after a UTF-8 byte order mark if it starts with one (the decoder drops it). */
function isBlank(bytes: Uint8Array): boolean {
  // Only lines that start with white space or a BOM can be blank; checking the
  // first byte keeps the common path free of a scan.
  const first = bytes[0];
  let from = 0;
  if (first === 0xef) {
    if (bytes[1] !== 0xbb || bytes[2] !== 0xbf) return false;
    from = 3;
  } else if (first !== 0x20 && first !== 0x09 && first !== CR) return false;
  for (let i = from; i < bytes.length; i++) {
    const b = bytes[i];
    if (b !== 0x20 && b !== 0x09 && b !== CR) return false;
  }
  return true;
}

/** Whether `text` holds only white space from `from` to `to`, as {@linkcode isBlank} reads bytes (ASCII text has no BOM). */
function isBlankText(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x09 && c !== CR) return false;
  }
  return true;
}

/** `head` (at most OVERSIZE_HEAD_BYTES) with the first bytes of `piece` after it, up to OVERSIZE_HEAD_BYTES in all. */
function keepHead(head: Uint8Array, piece: Uint8Array): Uint8Array {
  const out = new Uint8Array(Math.min(OVERSIZE_HEAD_BYTES, head.length + piece.length));
  out.set(head, 0);
  out.set(piece.subarray(0, out.length - head.length), head.length);
  return out;
}

function keepTail(previous: Uint8Array, piece: Uint8Array): Uint8Array {
  if (piece.length >= OVERSIZE_TAIL_BYTES) return piece.slice(piece.length - OVERSIZE_TAIL_BYTES);
  const keepOld = Math.min(previous.length, OVERSIZE_TAIL_BYTES - piece.length);
  const out = new Uint8Array(keepOld + piece.length);
  out.set(previous.subarray(previous.length - keepOld), 0);
  out.set(piece, keepOld);
  return out;
}
