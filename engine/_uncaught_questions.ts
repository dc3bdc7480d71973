// A handler may drop a question's promise (`void req.elicit(...)`) or hold
// it unawaited while it works on. Its failure then has no catch, and Deno
// ends the process on an unhandled rejection: a client could end the server
// for every other client's call by answering with an error or a malformed
// answer, by cancelling the call, by letting it time out, or by closing its
// input. So each error a question fails with is known here, and one left
// uncaught is said on stderr instead, once, and the process serves on. A
// rejection with any other reason is left to its default.

/** Says, once, that a question's failure went uncaught; undefined when it was said elsewhere. */
type Say = (() => void) | undefined;

const known = new WeakMap<object, Say>();
let listening = false;

/**
 * Marks `err`, the failure of a question the toolkit handed out: left
 * uncaught, it does not end the process, and `say` (if given) is called the
 * first time. A failure marked before keeps its first `say`. Returns `err`.
 */
export function questionFailure<T>(err: T, say?: () => void): T {
  if (err === null || (typeof err !== "object" && typeof err !== "function")) return err;
  if (!known.has(err)) known.set(err, say);
  if (!listening) {
    listening = true;
    globalThis.addEventListener("unhandledrejection", onUnhandled);
  }
  return err;
}

function onUnhandled(event: PromiseRejectionEvent): void {
  const reason: unknown = event.reason;
  if (reason === null || (typeof reason !== "object" && typeof reason !== "function")) return;
  if (!known.has(reason)) return;
  event.preventDefault();
  const say = known.get(reason);
  if (say === undefined) return;
  known.set(reason, undefined);
  say();
}
