import { type Infer, json, type PatternFn, schema, strProp, type Tool, type ToolHandler } from "@forge/toolkit";
import type { Manager } from "../domain/manager.ts";
import { clientRootsOf } from "./_client_roots.ts";

// An empty file is a legal write, so `content` has no minLength.
const input = schema({
  path: strProp("The file: relative to the first writable root, or absolute inside one", { minLength: 1 }),
  content: strProp("The complete new content (UTF-8 text)"),
}, ["path", "content"]);
type Input = Infer<typeof input>;

/** `write_file {path, content}`: replaces or creates a file inside the writable roots, atomically. */
export const writeFileTool: Tool<Input> = {
  name: "write_file",
  title: "Write a text file",
  description: "Creates or replaces a UTF-8 text file inside the writable folders. `path` is relative to the " +
    "first writable root, or absolute inside one. The file is replaced atomically (readers never see half a " +
    "file). Folders are not created: the file's folder must exist. Content over the server's max_bytes is " +
    "refused. Permission pattern: `write:<absolute path>`.",
  inputSchema: input,
  // No outputSchema: a probe answers without structuredContent, and the official SDK client
  // refuses a result without it for a tool that declares one.
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  timeoutMs: 15_000,
};

/**
 * The permission patterns of a write: `write:<normalised absolute path>`,
 * resolved inside the jail (links inside the root followed), so it names
 * exactly the file that would change. A write the jail would refuse has no
 * pattern: the probe answers with the refusal.
 *
 * @param mgr The manager.
 * @returns The pattern function.
 */
export function writeFilePatterns(mgr: Manager): PatternFn<Input> {
  return async (args) => ({ patterns: [`write:${await mgr.writeTarget(args.path, args.content)}`] });
}

/**
 * The confirmation of a write: replacing an existing file asks the user first
 * (through the client, when it can ask); creating a new file asks nothing.
 *
 * @param mgr The manager.
 * @returns The question for a call, or undefined.
 */
export function writeFileConfirm(mgr: Manager): (args: Input) => Promise<string | undefined> {
  return (args) => mgr.overwriteQuestion(args.path, args.content);
}

/**
 * The handler of {@linkcode writeFileTool}. It runs behind
 * {@linkcode writeFileConfirm}: when that asked nothing (no file to replace),
 * the write creates a new file only.
 *
 * @param mgr The manager.
 * @returns The handler.
 */
export function writeFile(mgr: Manager): ToolHandler<Input> {
  return async (req) => {
    const { path, content } = req.arguments;
    // The confirmation asked nothing when the file did not exist: then only a new file may be
    // made, so a file that appeared after that check is never replaced without the user's say.
    const createNew = req.confirmation === undefined;
    // The file the call was approved for (and the audit trail wrote as its intent), worked out under the config of
    // that moment: a reload since then that reorders the roots must not move a relative path's write elsewhere.
    const target = req.patterns?.find((pattern) => pattern.startsWith("write:"))?.slice("write:".length);
    return json({
      ...await mgr.write(path, content, { signal: req.signal, roots: await clientRootsOf(req), createNew, target }),
    });
  };
}
