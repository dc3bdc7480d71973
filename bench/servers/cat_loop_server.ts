// The driver's own ceiling: the floor's loop, except that an `echo` call as
// the benchmark writes it is answered without JSON at all — the reply is the
// request's id and text bytes copied between constant bytes, as close to
// `cat` as a loop can be and still answer. Every other line (initialize,
// tools/list, sleep) goes through the floor. It is not a server anyone should
// write: it shows what is left for the driver, the pipes and Deno's I/O when a
// call costs nothing.

import { type FastPath, serveFloor } from "./raw_floor_server.ts";

const encoder = new TextEncoder();
const HEAD = encoder.encode('{"jsonrpc":"2.0","id":');
const CALL = encoder.encode('"method":"tools/call","params":{"name":"echo","arguments":{"text":"');
const MIDDLE = encoder.encode(',"result":{"content":[{"type":"text","text":"');
const END = encoder.encode('"}]}}\n');
const END_MODERN = encoder.encode('"}],"resultType":"complete"}}\n');
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;

/** Appends the reply to an echo call written as the driver writes it; false for any other line. */
const echoBytes: FastPath = (line, out) => {
  if (!startsWith(line, HEAD, 0)) return false;
  const idEnd = line.indexOf(COMMA, HEAD.length);
  if (idEnd === -1 || !startsWith(line, CALL, idEnd + 1)) return false;
  const textStart = idEnd + 1 + CALL.length;
  let textEnd = line.indexOf(QUOTE, textStart);
  while (textEnd !== -1 && line[textEnd - 1] === BACKSLASH) textEnd = line.indexOf(QUOTE, textEnd + 1);
  if (textEnd === -1) return false;
  // The 2026-07-28 envelope follows the arguments: `"},"_meta":…` instead of `"}}}`.
  out.append(HEAD);
  out.append(line.subarray(HEAD.length, idEnd));
  out.append(MIDDLE);
  out.append(line.subarray(textStart, textEnd));
  out.append(line[textEnd + 2] === COMMA ? END_MODERN : END);
  return true;
};

function startsWith(line: Uint8Array, prefix: Uint8Array, at: number): boolean {
  if (line.length < at + prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (line[at + i] !== prefix[i]) return false;
  return true;
}

if (Deno.args.includes("--health")) console.log("ok");
else {
  await serveFloor(
    { read: (buffer) => Deno.stdin.read(buffer), write: (bytes) => Deno.stdout.write(bytes) },
    echoBytes,
  );
}
