// Shutdown waits for work with a bound: a call or a client that never finishes
// must not hold the process. The bound is V8's timer (./native_timer.ts), not
// the global `setTimeout`, which in Deno 2.9.6 loads `node:timers` on first
// read: shutdown is no time to pay 5–15 ms for it. V8's timer keeps no process
// alive, so a started MessagePort holds the process while the wait lasts, as
// setTimeout's timer did: a handler that waits only for its signal still gets
// aborted, and answers, when the bound passes.

import { type NativeTimer, startTimer } from "./native_timer.ts";

const ignore = (): void => {};

/** Waits for `promise` at most `ms` milliseconds (1 ms when `ms` is not positive); never rejects. */
export async function within(promise: Promise<unknown>, ms: number): Promise<void> {
  const hold = new MessageChannel();
  hold.port1.onmessage = ignore;
  let timer: NativeTimer | undefined;
  try {
    await new Promise<void>((resolve) => {
      timer = startTimer(resolve, ms);
      promise.then(() => resolve(), () => resolve());
    });
  } finally {
    timer?.cancel();
    hold.port1.close();
    hold.port2.close();
  }
}
