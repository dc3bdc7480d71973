// For the tests that a FIFO must not block: a peer that comes late, so that
// code which (wrongly) opens the FIFO without O_NONBLOCK, and so waits for a
// writer (or, to write, for a reader), is let go after WRITER_LATE_MS and its
// test fails, instead of hanging the gate with no peer ever to come. Code
// that does not wait is done long before; the peer is then ended unused.

/** How long the writer waits before it opens the FIFO: long past any non-blocking open, however loaded the machine. */
const WRITER_LATE_MS = 10_000;

/** A late peer on a FIFO. */
export interface LateWriter {
  /** Whether the peer has opened the FIFO: true means the code under test waited for it. */
  came(): boolean;
  /** Ends the peer (and removes its mark). */
  end(): Promise<void>;
}

/**
 * Starts `sh`, which sleeps WRITER_LATE_MS, then, if a FIFO is at `fifo`,
 * opens it for reading and writing (which never waits on Linux, and lets go
 * an open waiting for either end), leaves a mark beside it and ends. Point it
 * at where the FIFO will be when the code opens it. Needs `--allow-run=sh`
 * and write access to the FIFO's folder.
 */
export function lateFifoWriter(fifo: string): LateWriter {
  const mark = `${fifo}.writer-came`;
  const child = new Deno.Command("sh", {
    args: ["-c", `sleep ${WRITER_LATE_MS / 1000}; [ -p "$0" ] || exit 0; exec 3<>"$0"; : >"$1"`, fifo, mark],
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  return {
    came() {
      try {
        Deno.lstatSync(mark);
        return true;
      } catch {
        return false;
      }
    },
    async end() {
      try {
        child.kill("SIGKILL");
      } catch {
        // It already ended.
      }
      await child.status;
      try {
        Deno.removeSync(mark);
      } catch {
        // It never came.
      }
    },
  };
}
