// One native timer in a process of its own. `pending`: a 5 s timer and
// nothing else, which must not hold the process; `throwing`: a timer whose
// callback throws, the process held open by an interval, which the uncaught
// error must end.
import { startTimer } from "../native_timer.ts";

if (Deno.args[0] === "pending") startTimer(() => console.log("fired"), 5000);
if (Deno.args[0] === "throwing") {
  setInterval(() => {}, 1000);
  startTimer(() => {
    throw new Error("boom from a timer");
  }, 1);
}
