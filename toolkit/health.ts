/**
 * A liveness check a host or supervisor can run without starting the server:
 * when the process was started with `--health` (before any `--`), prints `ok` and returns true,
 * so `main` can return at once.
 * It imports nothing, touches no disk or network, and needs no Deno
 * permission, so `deno run main.ts --health` works under any flags.
 *
 * @param args The command-line arguments.
 * @returns True when `--health` was given (and `ok` was printed).
 *
 * @example The first line of every main.ts
 * ```ts
 * import { health } from "@forge/toolkit";
 *
 * if (!health()) {
 *   // start the Manager and run() the server here
 * }
 * ```
 */
export function health(args: readonly string[] = Deno.args): boolean {
  // An option only before `--`: what follows it is an operand (internal/option_args.ts, not imported here).
  const end = args.indexOf("--");
  if (!(end === -1 ? args : args.slice(0, end)).includes("--health")) return false;
  console.log("ok");
  return true;
}
