/**
 * The Deno runtime flags that every launch line the toolkit writes carries
 * beside the permission flags: `deno task start`, `--print-host-config`,
 * {@linkcode compileArgs} (baked into the binary) and {@linkcode bundleArgs}.
 * They grant nothing.
 *
 * `--v8-flags=--max-semi-space-size=8` caps V8's young generation at two
 * semi-spaces of 8 MiB. By default V8 sizes it from the heap limit, and on a
 * machine of 24 GiB it grew to ~47 MiB while many new objects survived,
 * which is what `JSON.parse` of one large message of many values does:
 * 149,992 strings of 250 bytes with a `€` each (a 36 MiB message) peaked at
 * 213–217 MiB resident without it and 173–175 MiB with it
 * (`deno task bench --memory`). Small calls allocate too little to grow it,
 * and cost the same CPU with or without it (docs/benchmarks.md). A server
 * started by a hand-written `deno run` line without it keeps V8's default.
 * Deno puts `DENO_V8_FLAGS` first and these after, and of one V8 flag given
 * twice the last wins: to choose another size, edit the launch line.
 *
 * @example Start a server the way its launch lines do
 * ```ts
 * import { RUNTIME_FLAGS } from "@forge/toolkit/permissions";
 * import assert from "node:assert/strict";
 *
 * const args = ["run", "--no-prompt", ...RUNTIME_FLAGS, "--allow-read=/srv/data", "main.ts"];
 * assert.deepEqual(args.slice(2, 3), ["--v8-flags=--max-semi-space-size=8"]);
 * ```
 */
export const RUNTIME_FLAGS: readonly string[] = Object.freeze(["--v8-flags=--max-semi-space-size=8"]);
