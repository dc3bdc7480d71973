import assert from "node:assert/strict";
import { holdProcess } from "./testdata/hold_process.ts";
import { systemClock } from "./clock.ts";
import { DeadlineTimer } from "./deadline_timer.ts";
import { ManualClock } from "./manual_clock.ts";

/** A table of deadlines swept as the call table sweeps its calls: what is due goes, the soonest left is returned. */
function table(): { deadlines: Set<number>; swept: number[]; sweep: (now: number) => number } {
  const deadlines = new Set<number>();
  const swept: number[] = [];
  return {
    deadlines,
    swept,
    sweep(now) {
      swept.push(now);
      let next = Infinity;
      for (const at of deadlines) {
        if (at <= now) deadlines.delete(at);
        else if (at < next) next = at;
      }
      return next;
    },
  };
}

Deno.test("DeadlineTimer arms one timer, for the soonest deadline it was given; a later, NaN or infinite one is ignored", () => {
  const clock = new ManualClock(100);
  const { swept, sweep } = table();
  const timer = new DeadlineTimer(clock, sweep);
  assert.equal(timer.armedFor, Infinity);
  timer.arm(Infinity);
  timer.arm(NaN);
  assert.equal(clock.pending, 0);
  timer.arm(130);
  timer.arm(110);
  timer.arm(120);
  assert.equal(timer.armedFor, 110);
  assert.equal(clock.pending, 1, "the timer for 130 was cleared when 110 was armed");
  clock.advance(9);
  assert.deepEqual(swept, []);
  clock.advance(1);
  assert.deepEqual(swept, [110]);
});

Deno.test("DeadlineTimer re-arms for the deadline its sweep returns, and stays unarmed when the sweep returns Infinity", () => {
  const clock = new ManualClock();
  const { deadlines, swept, sweep } = table();
  const timer = new DeadlineTimer(clock, sweep);
  for (const at of [10, 25, 40]) deadlines.add(at);
  timer.arm(10);
  clock.advance(10);
  assert.deepEqual(swept, [10]);
  assert.equal(timer.armedFor, 25);
  clock.advance(100);
  assert.deepEqual(swept, [10, 25, 40]);
  assert.equal(deadlines.size, 0);
  assert.equal(timer.armedFor, Infinity);
  assert.equal(clock.pending, 0);
});

Deno.test("DeadlineTimer: a sooner deadline armed during a sweep is kept; a later one gives way to what the sweep returns", () => {
  const clock = new ManualClock();
  const swept: number[] = [];
  let armDuringSweep = 0;
  const timer = new DeadlineTimer(clock, (now) => {
    swept.push(now);
    if (armDuringSweep > 0) timer.arm(armDuringSweep);
    armDuringSweep = 0;
    return now + 50;
  });
  armDuringSweep = 15;
  timer.arm(10);
  clock.advance(10);
  assert.equal(timer.armedFor, 15, "armed during the sweep, sooner than the 60 it returned");
  assert.equal(clock.pending, 1);
  armDuringSweep = 100;
  clock.advance(5);
  assert.deepEqual(swept, [10, 15]);
  assert.equal(timer.armedFor, 65, "the 65 the sweep returned, sooner than the 100 armed during it");
  assert.equal(clock.pending, 1);
});

Deno.test("DeadlineTimer.stop() disarms: no sweep runs, and any deadline, even a later one, arms it again", () => {
  const clock = new ManualClock();
  const { swept, sweep } = table();
  const timer = new DeadlineTimer(clock, sweep);
  timer.arm(10);
  timer.stop();
  timer.stop();
  assert.equal(timer.armedFor, Infinity);
  assert.equal(clock.pending, 0);
  clock.advance(20);
  assert.deepEqual(swept, []);
  timer.arm(50);
  assert.equal(timer.armedFor, 50);
  clock.advance(30);
  assert.deepEqual(swept, [50]);
});

Deno.test("DeadlineTimer.sweepNow() sweeps at once, leaves the armed timer alone, and arms a sooner deadline it returns", () => {
  const clock = new ManualClock();
  const { deadlines, swept, sweep } = table();
  const timer = new DeadlineTimer(clock, sweep);
  deadlines.add(100);
  timer.arm(100);
  timer.sweepNow();
  assert.deepEqual(swept, [0]);
  assert.equal(timer.armedFor, 100);
  assert.equal(clock.pending, 1);
  deadlines.add(5);
  deadlines.add(30);
  clock.advance(5);
  timer.sweepNow();
  assert.deepEqual(swept, [0, 5], "the timer for 100 did not fire");
  assert.equal(timer.armedFor, 30);
  assert.equal(clock.pending, 1);
  assert.deepEqual([...deadlines], [100, 30]);
});

Deno.test("DeadlineTimer on the system clock fires on V8's timer, and re-arms for the next deadline", async () => {
  using _held = holdProcess();
  const start = systemClock.now();
  const fired = Promise.withResolvers<void>();
  const seen: number[] = [];
  const deadlines = [start + 5, start + 15];
  const timer = new DeadlineTimer(systemClock, (now) => {
    seen.push(now);
    while (deadlines.length > 0 && deadlines[0] <= now + 1) deadlines.shift();
    if (deadlines.length === 0) fired.resolve();
    return deadlines[0] ?? Infinity;
  });
  timer.arm(deadlines[0]);
  await fired.promise;
  assert.ok(seen.length >= 2, "one sweep for each deadline, at least");
  assert.ok(seen.at(-1)! >= start + 14, "the last sweep not before the last deadline");
  assert.equal(timer.armedFor, Infinity);
});

Deno.test("DeadlineTimer runs a sweep that threw again soon, so the table's deadlines are still enforced, and throws its error on", () => {
  const clock = new ManualClock();
  const { deadlines, swept, sweep } = table();
  let throws = 2;
  const timer = new DeadlineTimer(clock, (now) => {
    if (throws-- > 0) throw new Error(`sweep bug at ${now}`);
    return sweep(now);
  });
  deadlines.add(10);
  deadlines.add(500);
  timer.arm(10);
  assert.throws(() => clock.advance(10), /sweep bug at 10/);
  assert.equal(timer.armedFor, 20, "re-armed 10 ms later");
  assert.equal(clock.pending, 1);
  assert.throws(() => clock.advance(10), /sweep bug at 20/);
  assert.equal(timer.armedFor, 40, "the wait doubles while the sweep throws");
  clock.advance(20);
  assert.deepEqual(swept, [40]);
  assert.deepEqual([...deadlines], [500]);
  assert.equal(timer.armedFor, 500);
  clock.advance(460);
  assert.deepEqual(swept, [40, 500]);
  assert.equal(deadlines.size, 0);
});

Deno.test("DeadlineTimer: deadlines that come ever sooner hold at most 8 timers, none more than a second ahead, and each is still enforced", () => {
  const clock = new ManualClock();
  const { deadlines, swept, sweep } = table();
  const timer = new DeadlineTimer(clock, sweep);
  // Far deadlines, each sooner than the last: one timer, a second ahead.
  for (let i = 0; i < 1_000; i++) {
    deadlines.add(1e9 - i);
    timer.arm(1e9 - i);
  }
  assert.equal(clock.held, 1);
  // Near deadlines, each sooner than the last, as a client alternating tools of different timeouts makes them.
  for (let i = 0; i < 1_000; i++) {
    deadlines.add(999 - i);
    timer.arm(999 - i);
  }
  assert.equal(clock.held, 8, "the live timer and 7 cancelled ones, where each sooner deadline cancelled one before");
  assert.equal(timer.armedFor, 0);
  clock.advance(993);
  assert.deepEqual(swept, [993], "the cap's last timer, at most a second after the soonest deadline");
  assert.equal(deadlines.size, 1_000 + 6, "all but 994–999 swept");
  clock.advance(6);
  assert.deepEqual(swept, [993, 994, 995, 996, 997, 998, 999], "then a timer for each deadline itself");
  // The far ones are reached by wake-ups a second apart.
  assert.equal(timer.armedFor, 1e9 - 999);
  assert.equal(clock.held, 2, "the wake-up at 1,999, and the first timer, cancelled, till 1,000");
  clock.advance(3_000);
  assert.deepEqual(swept.slice(7), [1_999, 2_999, 3_999]);
  assert.equal(deadlines.size, 1_000);
});
