// test-permissions: --allow-read={tmp} --allow-write={tmp} --allow-run=/usr/bin/git,/usr/bin/kill,/usr/bin/setsid
import assert from "node:assert/strict";
import { textWithNotice } from "@forge/toolkit";
import { fixture } from "./fixture.ts";
import { type GitOutput, noticeOf } from "./git.ts";
import { type GitTool, replyBytes } from "./reply_bounds.ts";

const MiB = 1024 * 1024;
/** The smallest max_output_bytes a config may set: git's output is cut many times over. */
const CAP = 1024;

/** The JSON-RPC reply line the server writes for a run (the read tools answer `textWithNotice(text, noticeOf(out))`). */
function replyLine(out: GitOutput): number {
  const result = textWithNotice(out.text, noticeOf(out));
  return new TextEncoder().encode(JSON.stringify({ jsonrpc: "2.0", id: 1, result })).length;
}

Deno.test("replyBytes() covers git_grep's real reply of git's shortest lines, each shown with a 256-character revision (one or three bytes a character); a lone surrogate is refused before git runs", async () => {
  const f = await fixture();
  try {
    const mgr = f.manager({ r: await f.repo("r", { a: "\n".repeat(5000) }) }, { max_output_bytes: CAP });
    // git takes anything after a date it reads in `@{…}`: the current commit, written with 250 three-byte characters
    // on every line (a red team's six-byte version used lone surrogates).
    for (const revision of [`HEAD${"~0".repeat(126)}`, `@{now${"€".repeat(250)}}`]) {
      assert.equal(revision.length, 256);
      const out = await mgr.grep("r", "^", revision);
      assert.ok(out.cut, "git's output was cut at max_output_bytes");
      const bytes = replyLine(out);
      assert.ok(bytes > 5 * CAP, `${bytes}: the revision made the text several times git's output`);
      const bound = replyBytes("git_grep", CAP, { ref: revision });
      assert.ok(bytes <= bound, `${revision}: ${bytes} > ${bound}`);
    }
    await assert.rejects(mgr.grep("r", "^", `@{now${"\ud800".repeat(250)}}`), /must be well-formed Unicode/);
  } finally {
    await f.end();
  }
});

Deno.test("replyBytes() of git_grep reserves by the call's revision: none or one of 86 characters adds nothing and still covers the real reply", async () => {
  const f = await fixture();
  try {
    const mgr = f.manager({ r: await f.repo("r", { a: "\n".repeat(5000) }) }, { max_output_bytes: CAP });
    const revision = `HEAD${"~0".repeat(41)}`;
    assert.equal(revision.length, 86);
    for (const [ref, args] of [[undefined, {}], [revision, { ref: revision }]] as const) {
      const out = await mgr.grep("r", "^", ref);
      assert.ok(out.cut, "git's output was cut at max_output_bytes");
      const bytes = replyLine(out);
      assert.ok(bytes <= replyBytes("git_grep", CAP, args), `${ref}: ${bytes} > ${replyBytes("git_grep", CAP, args)}`);
      assert.equal(replyBytes("git_grep", CAP, args), replyBytes("git_diff", CAP), "the revision added to the bound");
    }
    // A longer one adds, and a ref of the wrong type (refused before the call runs) reserves the longest's.
    assert.ok(replyBytes("git_grep", CAP, { ref: `${revision}~0` }) > replyBytes("git_diff", CAP));
    assert.equal(replyBytes("git_grep", CAP, { ref: 7 }), replyBytes("git_grep", CAP, { ref: "x".repeat(256) }));
  } finally {
    await f.end();
  }
});

Deno.test("replyBytes() covers git_log's and git_show's real replies of a message of control characters", async () => {
  const f = await fixture();
  try {
    const dir = await f.repo("r");
    await f.git(dir, "commit", "-q", "--allow-empty", "--cleanup=verbatim", "-m", "\u0001".repeat(3000));
    const mgr = f.manager({ r: dir }, { max_output_bytes: CAP });
    for (
      const [tool, out] of [["git_log", await mgr.log("r", {})], [
        "git_show",
        await mgr.show("r", "HEAD", undefined),
      ]] as const
    ) {
      const bytes = replyLine(out);
      assert.ok(out.cut && bytes > 5 * CAP, `${tool}: ${bytes}: each control character takes six bytes`);
      assert.ok(bytes <= replyBytes(tool, CAP), `${tool}: ${bytes} > ${replyBytes(tool, CAP)}`);
    }
  } finally {
    await f.end();
  }
});

Deno.test("replyBytes() at the default max_output_bytes: four calls at once of every tool, two of git_grep with a 256-character ref", () => {
  const tools: GitTool[] = ["git_status", "git_log", "git_show", "git_diff", "git_grep", "git_blame", "git_commit"];
  for (const tool of tools) assert.ok(4 * replyBytes(tool, MiB, { ref: "main" }) < 64 * MiB, tool);
  const longest = { ref: "x".repeat(256) };
  assert.ok(2 * replyBytes("git_grep", MiB, longest) < 64 * MiB && 3 * replyBytes("git_grep", MiB, longest) > 64 * MiB);
});
