// Test setup for the tool tests: real repositories in a temp folder (from the
// domain's fixture) and a Manager over them, served in memory through the
// toolkit's real framer to the official SDK client. Imported only by
// *_test.ts files in this folder.
import { Server } from "@forge/toolkit";
import { connectInMemory, type InMemorySession } from "@forge/toolkit/testing";
import { type Fixture, fixture } from "../domain/fixture.ts";
import { registerAll } from "./register.ts";

/** A served git server over repo `r` (read-only) and `w` (writable). */
export interface Session extends InMemorySession {
  /** The fixture: its `git` runs plain git in a repository. */
  fixture: Fixture;
  /** The read-only repository's work tree. */
  r: string;
  /** The writable repository's work tree. */
  w: string;
  /** Closes the session and removes the folder. */
  end(): Promise<void>;
}

/** Makes the repositories and connects the SDK client in memory. */
export async function session(): Promise<Session> {
  const f = await fixture();
  const files = { "README.md": "# hello\n", "src/a.ts": "export const a = 1;\n" };
  const [r, w] = [await f.repo("r", files), await f.repo("w", files)];
  const server = new Server({ name: "git" });
  registerAll(server, f.manager({ r, w }));
  const connected = await connectInMemory(server);
  return {
    ...connected,
    fixture: f,
    r,
    w,
    async end() {
      await connected.close();
      await f.end();
    },
  };
}

export { textOf } from "../../served.ts";
