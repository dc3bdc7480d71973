// The defaults of a served stream, shared by serve() and StdioTransport so
// that both read, cap and buffer the same way, and the one check every numeric
// setting goes through.

/** The largest message accepted unless the caller says otherwise, in bytes. */
export const DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024 * 1024;
/** The deepest nesting of arrays and objects accepted in a message unless the caller says otherwise (`maxDepth`). */
export const DEFAULT_MAX_DEPTH = 1000;
/**
 * The most arrays and objects one message may hold unless the caller says
 * otherwise (`maxContainers`). Each costs the parsed message tens of bytes for
 * two or three bytes of text, so this bounds what `JSON.parse` can build from
 * one message (docs/benchmarks.md, "Figures behind the code").
 */
export const DEFAULT_MAX_CONTAINERS = 100_000;
/**
 * How long calls in flight may finish at shutdown, and messages held back
 * under backpressure may wait for the peer to drain once its input ended,
 * unless the caller says otherwise, in milliseconds (`shutdownGraceMs`).
 */
export const DEFAULT_SHUTDOWN_GRACE_MS = 5_000;
/**
 * The most values one message may hold unless the caller says otherwise
 * (`maxValues`): array items, object keys and object values, counted by the
 * commas and colons between them. Each costs the parsed message from a few
 * bytes (a small number) to some ninety (an object key) for a few bytes of
 * text, so this bounds what `JSON.parse` can build from one message
 * (docs/benchmarks.md, "Figures behind the code").
 */
export const DEFAULT_MAX_VALUES = 150_000;
/**
 * The longest object key one message may hold unless the caller says
 * otherwise, in bytes as sent (`maxKeyBytes`): 16,383, the longest string V8
 * hashes by its content. A longer one it hashes by its length alone, so
 * `JSON.parse` compares each such key with every other key of its length it
 * has made: 2,000 keys of 16,400 bytes in one message took 2.9 s to parse,
 * 4,000 12.2 s, where keys of 16,383 bytes took 0.2 s (docs/reliability.md).
 * And V8 copies a key whole to make it a property name: one 60 MiB key with
 * a `€` in it peaked at 354 MiB.
 */
export const DEFAULT_MAX_KEY_BYTES = 16_383;
/** A call's deadline unless its tool or the caller says otherwise, in milliseconds (`timeoutMs`). */
export const DEFAULT_TIMEOUT_MS = 30_000;
/** The most calls in flight unless the caller says otherwise (`maxInFlight`). */
export const DEFAULT_MAX_IN_FLIGHT = 1024;
/**
 * The most bytes of requests the calls in flight may hold together unless the
 * caller says otherwise (`maxInFlightBytes`): one message's worth, counted as
 * parsed. A call holds its parsed request while it waits; 1024 calls of 64 MiB
 * each were otherwise allowed, and 25 calls with 20 MB ids held 565 MB.
 */
export const DEFAULT_MAX_IN_FLIGHT_BYTES = 64 * 1024 * 1024;
/** The most tasks held at once unless the caller says otherwise (`maxTasks`). */
export const DEFAULT_MAX_TASKS = 64;
/** A task's TTL unless its tool or the caller says otherwise, in milliseconds (`taskTtlMs`). */
export const DEFAULT_TASK_TTL_MS = 600_000;
/** The poll interval suggested to clients in every task unless the caller says otherwise, in milliseconds. */
export const DEFAULT_TASK_POLL_INTERVAL_MS = 1_000;
/** How long the last replies may take to reach stdout once calls are settled at shutdown, in milliseconds. */
export const FLUSH_MS = 1_000;
/**
 * The end of {@linkcode FLUSH_MS} kept for stderr, in milliseconds: the line
 * that names replies not delivered is written only once stdout has had its
 * time, and must still reach stderr before the process exits.
 */
export const LAST_LOG_MS = 100;
/** How many bytes of replies may wait for the peer to read them before no new message is taken (`maxQueuedBytes`). */
export const WRITE_HIGH_WATER = 64 * 1024 * 1024;
