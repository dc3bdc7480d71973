// deno task audit:verify [--after=SEQ:HASH] [--head=SEQ:HASH] [--mixed] FILE...
// Checks the hash chain of one audit file, or of rotated files given oldest
// first (each must continue the one before). Prints the last record as
// `last SEQ HASH` (ship that line elsewhere) and the intents with no outcome.
// Exit 0 when every link holds, 1 at the first broken one, 2 on bad usage.

import { type AuditHead, verifyAuditTrail } from "../middleware/mod.ts";

const USAGE = "usage: deno task audit:verify [--after=SEQ:HASH] [--head=SEQ:HASH] [--mixed] FILE...";

function headOf(flag: string): AuditHead | undefined {
  const value = Deno.args.find((a) => a.startsWith(`--${flag}=`))?.slice(flag.length + 3);
  if (value === undefined) return undefined;
  const match = /^(\d+):([0-9a-f]{64})$/.exec(value);
  if (!match) {
    console.error(`Cannot read --${flag}: expected SEQ:HASH (a record number and 64 hex digits)\n${USAGE}`);
    Deno.exit(2);
  }
  return { seq: Number(match[1]), hash: match[2] };
}

const files = Deno.args.filter((a) => !a.startsWith("--"));
const unknown = Deno.args.filter((a) => a.startsWith("--") && !/^--(after|head)=|^--mixed$/.test(a));
if (files.length === 0 || unknown.length > 0) {
  console.error(unknown.length > 0 ? `Cannot use ${unknown.join(" ")}: unknown flag\n${USAGE}` : USAGE);
  Deno.exit(2);
}
const after = headOf("after");
const head = headOf("head");
// One text, so that an outcome in a later file ends an intent in an earlier one.
const texts: string[] = [];
const starts: number[] = [];
let lines = 0;
for (const file of files) {
  let text: string;
  try {
    text = await Deno.readTextFile(file);
  } catch (err) {
    console.error(`Cannot read ${file}: ${err instanceof Error ? err.message : String(err)}`);
    Deno.exit(2);
  }
  if (text !== "" && !text.endsWith("\n") && file !== files.at(-1)) {
    console.log(`broken: ${file}:${text.split("\n").length}: the last line is not complete (no newline)`);
    Deno.exit(1);
  }
  starts.push(lines);
  lines += text.split("\n").length - 1;
  texts.push(text);
}
const verdict = await verifyAuditTrail(texts.join(""), { after, head, skipOtherLines: Deno.args.includes("--mixed") });
if (!verdict.ok) {
  const at = verdict.broken!.line;
  const index = starts.findLastIndex((start) => start < at);
  const file = files[Math.max(index, 0)];
  console.log(`broken: ${file}:${at - (starts[index] ?? 0)}: ${verdict.broken!.reason}`);
  Deno.exit(1);
}
console.log(`ok: ${verdict.records} records in ${files.length} file(s)`);
if (verdict.openIntents.length > 0) {
  console.log(`intents without an outcome (a crash, or calls still running): seq ${verdict.openIntents.join(", ")}`);
}
if (verdict.last) console.log(`last ${verdict.last.seq} ${verdict.last.hash}`);
