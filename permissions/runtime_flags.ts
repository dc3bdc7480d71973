/**
 * The Deno runtime flags that every launch line the toolkit writes carries
 * beside the permission flags: `deno task start`, `--print-host-config`,
 * {@linkcode compileArgs} (baked into the binary) and {@linkcode bundleArgs}.
 * They grant nothing. It is one flag, `--v8-flags=` with two V8 flags.
 *
 * `--max-semi-space-size=8` caps V8's young generation at two
 * semi-spaces of 8 MiB. By default V8 sizes it from the heap limit, and on a
 * machine of 24 GiB it grew to ~47 MiB while many new objects survived,
 * which is what `JSON.parse` of one large message of many values does:
 * 149,992 strings of 250 bytes with a `€` each (a 36 MiB message) peaked at
 * 213–217 MiB resident without it and 173–175 MiB with it
 * (`deno task bench --memory`). Small calls allocate too little to grow it,
 * and cost the same CPU with or without it (docs/benchmarks.md).
 *
 * `--no-lazy` is for start-up. Deno stores V8's compiled code of each module
 * in a cache and reuses it at the next start, but by default V8 compiles a
 * function only the first time it is called, and what the cache stores is
 * what had been compiled when the module itself was: the top level, hardly
 * any function bodies. So every start compiled afresh each function it
 * called: the start-up check, the registration of tools, the first request.
 * With `--no-lazy` V8 compiles every function of a module together with the
 * module, the cache stores all of them, and a start from a warm cache
 * compiles nothing. The benchmark's bundled server (`deno bundle
 * --code-splitting` of bench/servers/toolkit_server.ts), from spawn to its
 * `initialize` answer, medians of 21 interleaved runs on 2 cores: pinned to
 * one CPU, 39.0 ms without the flag, 35.2 ms with it, 22.6 ms for the raw
 * floor; on every CPU, as the benchmark times a start, 49.8 and 42.9 against
 * 26.1.
 * It costs the first start after a module changed, when there is no cache
 * yet and every function of every loaded module is compiled: 56.0 ms
 * without, 62.4 ms with (medians of 10 with `--no-code-cache`). Resident
 * memory after `initialize` is the same either way (37.3–37.9 MB). V8 checks
 * the flags a cache entry was written with, so a start with other V8 flags
 * compiles again and rewrites the entry: a host must start a server with the
 * same line every time, never alternating flags.
 *
 * A server started by a hand-written `deno run` line without them keeps
 * V8's defaults. Deno puts `DENO_V8_FLAGS` first and these after, and of one
 * V8 flag given twice the last wins: to choose another size, edit the
 * launch line.
 *
 * @example Start a server the way its launch lines do
 * ```ts
 * import { RUNTIME_FLAGS } from "@forge/toolkit/permissions";
 * import assert from "node:assert/strict";
 *
 * const args = ["run", "--no-prompt", ...RUNTIME_FLAGS, "--allow-read=/srv/data", "main.ts"];
 * assert.deepEqual(args.slice(2, 3), ["--v8-flags=--max-semi-space-size=8,--no-lazy"]);
 * ```
 */
export const RUNTIME_FLAGS: readonly string[] = Object.freeze(["--v8-flags=--max-semi-space-size=8,--no-lazy"]);
