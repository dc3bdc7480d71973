import { textWithNotice, type ToolResult } from "@forge/toolkit";
import { type GitOutput, noticeOf } from "../domain/git.ts";

/**
 * A read tool's answer: what it shows of git's output, and the server's
 * notice about it (notes, the truncation marker) in a block of its own.
 *
 * @param out The run's output, as the manager shaped it.
 * @returns The tool result.
 *
 * @example A cut log
 * ```ts
 * import { outputResult } from "./_output.ts";
 *
 * const out = { text: "commit 1", stdout: "commit 1", cut: true, code: 0, marker: "[truncated: showed the first 8 bytes]" };
 * console.log(outputResult(out).content.length); // 2
 * ```
 */
export function outputResult(out: GitOutput): ToolResult {
  return textWithNotice(out.text, noticeOf(out));
}
