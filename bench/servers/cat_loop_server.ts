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

/** The reply to an echo call written as the driver writes it, or undefined for any other line. */
const echoBytes: FastPath = (line) => {
  if (!startsWith(line, HEAD, 0)) return undefined;
  const idEnd = line.indexOf(COMMA, HEAD.length);
  if (idEnd === -1 || !startsWith(line, CALL, idEnd + 1)) return undefined;
  const textStart = idEnd + 1 + CALL.length;
  let textEnd = line.indexOf(QUOTE, textStart);
  while (textEnd !== -1 && line[textEnd - 1] === BACKSLASH) textEnd = line.indexOf(QUOTE, textEnd + 1);
  if (textEnd === -1) return undefined;
  // The 2026-07-28 envelope follows the arguments: `"},"_meta":…` instead of `"}}}`.
  const end = line[textEnd + 2] === COMMA ? END_MODERN : END;
  const id = line.subarray(HEAD.length, idEnd);
  const text = line.subarray(textStart, textEnd);
  const reply = new Uint8Array(HEAD.length + id.length + MIDDLE.length + text.length + end.length);
  let at = 0;
  for (const part of [HEAD, id, MIDDLE, text, end]) (reply.set(part, at), at += part.length);
  return reply;
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
