import assert from "node:assert/strict";
import { checkCallerPath, refusalFor } from "./_caller_path.ts";
import { PolicyError } from "./policy_error.ts";

Deno.test("checkCallerPath() passes a plain path through", () => {
  assert.equal(checkCallerPath("a/b.txt", 100, "read"), "a/b.txt");
});

Deno.test("checkCallerPath() refuses empty, long, NUL and control characters", () => {
  assert.throws(() => checkCallerPath("", 10, "read"), /^PolicyError: Cannot read: the path is empty$/);
  assert.throws(() => checkCallerPath("x".repeat(11), 10, "read"), /longer than 10 characters/);
  assert.throws(() => checkCallerPath("a\0", 10, "read"), /contains a NUL byte/);
  assert.throws(() => checkCallerPath("a\x7f", 10, "read"), /contains a control character/);
  assert.throws(() => checkCallerPath(null, 10, "read"), /must be a string/);
});

Deno.test("checkCallerPath() refuses C1 controls, line separators, bidi controls, tag and invisible characters, and passes other scripts and emoji", () => {
  for (
    const text of [
      "a\u0085b",
      "a\u009bb",
      "a\u2028b",
      "a\u2029b",
      "bidi\u202etxt.exe",
      "a\u2066b",
      "a\u{e0041}b",
      // Bidi marks, and invisible characters by which two names that look alike differ.
      "a\u200eb",
      "a\u200fb",
      "a\u061cb",
      "passwd\u200b",
      "pass\u00adwd",
      "a\u2060b",
      "a\u2063b",
      "\ufeffa",
      "a\u180eb",
      // The rest of Unicode's default-ignorable characters (red team, seventh round: a.txt\u034f was written beside a.txt).
      "a.txt\u034f",
      "a\u115fb",
      "a\u1160b",
      "a\u17b4b",
      "a\u206ab",
      "a\u3164b",
      "a\uffa0b",
      "a\ufff9b",
      "a\u{1bca0}b",
      "a\u{1d173}b",
      "a\u{e0100}b",
      "a\u{e0fff}b",
    ]
  ) {
    assert.throws(() => checkCallerPath(text, 100, "read"), /contains a control character, a line separator/, text);
  }
  // Joiners that scripts and emoji need, and right-to-left text itself, are names like any other.
  for (
    const text of ["👨\u200d👩\u200d👧.txt", "می\u200cخواهم.txt", "עברית.txt", "café.txt", "❤\ufe0f.txt", "ᠠ\u180b.txt"]
  ) {
    assert.equal(checkCallerPath(text, 100, "read"), text);
  }
});

Deno.test("refusalFor() maps file-system errors without their host paths", () => {
  const hostError = new Deno.errors.NotFound("No such file: /real/host/x");
  const err = (() => {
    try {
      refusalFor(hostError, "read", "x");
    } catch (e) {
      return e;
    }
  })();
  assert.ok(err instanceof PolicyError);
  assert.equal(err.message, 'Cannot read "x": no such file or folder');
  assert.throws(() => refusalFor(new Deno.errors.NotCapable("/real"), "read", "x"), /server's permissions/);
  assert.throws(() => refusalFor(new RangeError("other"), "read", "x"), RangeError);
});

Deno.test("refusalFor() refuses an OS error that Deno gives no code by the errno name of its number, host paths left out", () => {
  // The shapes Deno 2.9.6 throws for EFBIG: node:fs writeSync past `ulimit -f` (SIGXFSZ ignored), and writeFileSync.
  for (const message of ["File too large (os error 27)", "File too large (os error 27): writefile '/real/host/x'"]) {
    assert.throws(
      () => refusalFor(new Error(message), "write", "x"),
      (err: unknown) =>
        err instanceof PolicyError && err.message === 'Cannot write "x": the file is too large for the file system',
    );
  }
  // EIO has no reason of its own: its name alone; a number this platform does not name, its number.
  assert.throws(
    () => refusalFor(new Error("Input/output error (os error 5): write '/real'"), "write", "x"),
    (err: unknown) =>
      err instanceof PolicyError && err.message === 'Cannot write "x": the operating system refused it (EIO)',
  );
  assert.throws(
    () => refusalFor(new Error("Unknown error 4000 (os error 4000)"), "write", "x"),
    (err: unknown) =>
      err instanceof PolicyError && err.message === 'Cannot write "x": the operating system refused it (os error 4000)',
  );
  // Not an OS error: rethrown for stderr.
  assert.throws(
    () => refusalFor(new Error("Reply too large"), "write", "x"),
    (err: unknown) => !(err instanceof PolicyError),
  );
});
