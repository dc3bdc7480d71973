// V8's timer (../native_timer.ts), on which deadlines, an audit record's
// timeout, the read loop's wait and a round of questions run, keeps no
// process alive: in a server, a pending read of stdin or write of stdout
// does. A unit test whose I/O is promises has neither, so it holds its
// process while such a timer is to fire, as that read or write would.

/**
 * Holds the process (an interval that does nothing) until disposed.
 *
 * @example
 * ```ts
 * import { holdProcess } from "./hold_process.ts";
 * {
 *   using _held = holdProcess();
 *   await new Promise((resolve) => queueMicrotask(() => resolve(undefined)));
 * }
 * ```
 */
export function holdProcess(): Disposable {
  const interval = setInterval(() => {}, 1000);
  return { [Symbol.dispose]: () => clearInterval(interval) };
}
