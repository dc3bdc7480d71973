// test-permissions: --allow-read={repo}
// What the repository does in more than one place has one home: bytes are
// joined by internal/concat_bytes.ts, base64 is the runtime's
// Uint8Array.prototype.toBase64 / Uint8Array.fromBase64, and "the path is not
// there" is internal/missing_path.ts. This test reads the source for the
// hand-written shapes of all three, which were copied before.

import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const repo = dirname(fileURLToPath(import.meta.url));

/** Every TypeScript file of the repository, relative to it, with its text. */
async function sources(dir = ""): Promise<[string, string][]> {
  const found: [string, string][] = [];
  for await (const entry of Deno.readDir(join(repo, dir))) {
    const path = dir === "" ? entry.name : `${dir}/${entry.name}`;
    if (entry.name.startsWith(".") || entry.name === "node_modules" || path === "bench/results") continue;
    if (entry.isDirectory) found.push(...await sources(path));
    else if (entry.name.endsWith(".ts")) found.push([path, await Deno.readTextFile(join(repo, path))]);
  }
  return found;
}

const files = await sources();
const withoutComments = (text: string) => text.replaceAll(/\/\*[\s\S]*?\*\//g, "").replaceAll(/^\s*\/\/.*$/gm, "");

/** `out.set(part, at); at += part.length` and its comma form: a loop that joins byte arrays. */
const JOIN_LOOP = /\.set\((\w+),\s*(\w+)\)\s*[;,]\s*\2\s*\+=\s*\1\.length/;
/**
 * Folders that may keep their own joiner: examples and the template import
 * only the public entry points, and none of them exports one; the benchmark's
 * floor servers and driver are written without the library on purpose, so
 * that what they measure is not the library.
 */
const OWN_JOINER = ["examples/", "template/", "bench/"];

Deno.test("the source was read: the joiner's home and a base64 user are among the files", () => {
  const paths = files.map(([path]) => path);
  assert.ok(paths.includes("internal/concat_bytes.ts") && paths.includes("engine/_request_state.ts"));
  assert.ok(JOIN_LOOP.test(files.find(([path]) => path === "internal/concat_bytes.ts")![1]));
});

Deno.test("no library, script, test or test-data file joins byte arrays by hand: concatBytes() does", () => {
  const copies = files
    .filter(([path]) => path !== "internal/concat_bytes.ts" && !OWN_JOINER.some((folder) => path.startsWith(folder)))
    .filter(([, text]) => JOIN_LOOP.test(withoutComments(text)))
    .map(([path]) => path);
  assert.deepEqual(copies, [], `byte joiners besides internal/concat_bytes.ts:\n${copies.join("\n")}`);
});

Deno.test("no source file codes base64 with btoa()/atob(): the runtime's Uint8Array codec does", () => {
  const copies = files
    .filter(([path, text]) => !path.endsWith("_test.ts") && /\b(?:btoa|atob)\(/.test(withoutComments(text)))
    .map(([path]) => path);
  assert.deepEqual(copies, [], `hand-made base64 outside tests:\n${copies.join("\n")}`);
});

/** `NotFound || NotADirectory` in either order: the test for a missing path. */
const MISSING_PATH =
  /errors\.(?:NotFound|NotADirectory)\s*\|\|\s*\w+\s+instanceof\s+Deno\.errors\.(?:NotFound|NotADirectory)\b/;

Deno.test("no library or script file tests for a missing path by hand: isMissingPath() does", () => {
  assert.ok(MISSING_PATH.test(files.find(([path]) => path === "internal/missing_path.ts")![1]));
  const copies = files
    .filter(([path]) => path !== "internal/missing_path.ts" && !OWN_JOINER.some((folder) => path.startsWith(folder)))
    .filter(([path, text]) => !path.endsWith("_test.ts") && MISSING_PATH.test(withoutComments(text)))
    .map(([path]) => path);
  assert.deepEqual(copies, [], `missing-path tests besides internal/missing_path.ts:\n${copies.join("\n")}`);
});
