// Queries run on their own threads so that a call can answer at its deadline
// while SQLite is still working. node:sqlite in Deno 2.9.6 cannot interrupt a
// statement and Worker.terminate() does not stop one (see deno_facts_test.ts):
// a thread past its deadline keeps its core until SQLite returns. Such
// threads are counted, and past a limit new queries are refused until one
// ends, so runaway work is bounded too.
import { type PlannedRows, PolicyError, type ReadPlan } from "@forge/toolkit/validate";
import { THREAD_SOURCE, type ThreadCost, type ThreadJob, type ThreadOpen, type ThreadReply } from "./_query_worker.ts";

/** Options of {@linkcode QueryThreads}. */
export interface QueryThreadsOptions {
  /**
   * How many threads may still be running past their deadline before new queries are refused.
   * @default {2}
   */
  maxLate?: number;
  /**
   * How many queries may run at once (late ones included).
   * @default {4}
   */
  maxThreads?: number;
}

/** What one query needs besides its plan. */
export interface ThreadRun {
  /** The authorizer calls approved while compiling the plan on the main thread. */
  approved: string[];
  /** The authorizer's result codes. */
  auth: { ok: number; deny: number };
  /** The price check to make before reading. */
  cost?: ThreadCost;
  /** How long the query may run, in milliseconds. */
  timeoutMs: number;
  /** Aborts the wait (cancellation, shutdown); the thread is then treated as late. */
  signal?: AbortSignal;
}

/** Runs read plans on worker threads, one query per thread at a time. */
export class QueryThreads {
  readonly #open: ThreadOpen;
  readonly #maxLate: number;
  readonly #maxThreads: number;
  readonly #idle: Worker[] = [];
  /** Each running thread, with what ends its call when the pool closes. */
  readonly #running = new Map<Worker, () => void>();
  #late = 0;
  #url: string | undefined;
  #closed = false;

  /**
   * Makes the pool; no thread starts until the first query.
   *
   * @param open How each thread opens the database (read-only).
   * @param options The limits on threads.
   */
  constructor(open: ThreadOpen, options: QueryThreadsOptions = {}) {
    this.#open = open;
    this.#maxLate = options.maxLate ?? 2;
    this.#maxThreads = options.maxThreads ?? 4;
  }

  /** How many threads are still running past their deadline. */
  get late(): number {
    return this.#late;
  }

  /**
   * Runs one plan on a thread and answers by its deadline.
   *
   * @param plan What to read.
   * @param run The approved authorizer calls, the deadline and the signal.
   * @returns The rows.
   * @throws {PolicyError} When the query failed, ran past its deadline, or cannot start (too many late or running).
   */
  run(plan: ReadPlan, run: ThreadRun): Promise<PlannedRows> {
    if (this.#closed) return Promise.reject(new PolicyError("sql", "Cannot run query: the server is shutting down"));
    if (run.signal?.aborted) return Promise.reject(new PolicyError("sql", "Cannot run query: the call was cancelled"));
    if (this.#late >= this.#maxLate) {
      return Promise.reject(
        new PolicyError(
          "sql",
          `Cannot run query: ${this.#late} earlier queries are still running past their deadline and none can be ` +
            "stopped; no new query starts until one ends. Try again later, with a cheaper query",
        ),
      );
    }
    if (this.#running.size >= this.#maxThreads) {
      return Promise.reject(
        new PolicyError("sql", `Cannot run query: ${this.#maxThreads} queries are already running; try again shortly`),
      );
    }
    const worker = this.#idle.pop() ?? this.#spawn();
    const cancel = new SharedArrayBuffer(4);
    const job: ThreadJob = { open: this.#open, plan, cost: run.cost, approved: run.approved, auth: run.auth, cancel };
    return new Promise<PlannedRows>((resolve, reject) => {
      let late = false;
      const giveUp = (error: Error): void => {
        if (late) return;
        late = true;
        this.#late++;
        // Stops a query that is between rows; one inside SQLite runs on until SQLite returns.
        Atomics.store(new Int32Array(cancel), 0, 1);
        cleanup();
        reject(error);
      };
      const onTimeout = (): void =>
        giveUp(
          new PolicyError(
            "sql",
            `Cannot run query: it ran past its deadline of ${run.timeoutMs} ms (query_timeout_ms); ` +
              "narrow it (a WHERE on an indexed column, fewer joined tables, a LIMIT)",
          ),
        );
      const onAbort = (): void => giveUp(new PolicyError("sql", "Cannot run query: the call was cancelled"));
      this.#running.set(worker, () => giveUp(new PolicyError("sql", "Cannot run query: the server is shutting down")));
      const timer = setTimeout(onTimeout, run.timeoutMs);
      run.signal?.addEventListener("abort", onAbort, { once: true });
      const cleanup = (): void => {
        clearTimeout(timer);
        run.signal?.removeEventListener("abort", onAbort);
      };
      const settle = (reply: ThreadReply | undefined): void => {
        this.#running.delete(worker);
        if (late) {
          this.#late--;
          worker.terminate();
          return;
        }
        cleanup();
        // One idle thread is kept warm; a burst of parallel queries does not leave a crowd of them behind.
        if (reply === undefined || this.#closed || this.#idle.length > 0) worker.terminate();
        else this.#idle.push(worker);
        if (reply?.kind === "rows") resolve(reply.result);
        else reject(new PolicyError("sql", `Cannot run query: ${reply?.message ?? "its thread failed"}`));
      };
      worker.onmessage = (event: MessageEvent<ThreadReply>) => settle(event.data);
      worker.onerror = (event: ErrorEvent) => {
        event.preventDefault();
        settle(undefined);
      };
      worker.postMessage(job);
    });
  }

  /**
   * Stops every idle thread and refuses new queries. Threads still inside
   * SQLite are asked to stop; the process's exit ends them.
   */
  close(): void {
    this.#closed = true;
    for (const end of [...this.#running.values()]) end();
    // Nothing will report their end any more; the process's exit ends them.
    this.#late = 0;
    for (const worker of [...this.#idle, ...this.#running.keys()]) worker.terminate();
    this.#idle.length = 0;
    this.#running.clear();
    if (this.#url !== undefined) URL.revokeObjectURL(this.#url);
  }

  #spawn(): Worker {
    this.#url ??= URL.createObjectURL(new Blob([THREAD_SOURCE], { type: "text/javascript" }));
    return new Worker(this.#url, { type: "module", name: "sqlite-query" });
  }
}
