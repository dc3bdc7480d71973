// The roots a client declares (MCP roots: file:// URIs) as one more input of
// the policy: they narrow the configured roots and never widen them. A client
// root is used only as far as the configured jail resolves it (so a link
// inside a root that points elsewhere narrows to nothing, never to its
// target); a path is served only when its real path lies inside one of them.
import { isAbsolute } from "node:path";
import { fileURLToPath } from "node:url";
import { PolicyError, quote } from "@forge/toolkit/validate";
import { inside, type Mode, type Workspace } from "./workspace.ts";

/** The most roots of a client taken into account; more is a client bug or an attack. */
export const MAX_CLIENT_ROOTS = 64;

/** What a client declared, kept as it said it (for messages) and as local paths. */
export class ClientRoots {
  /** The URIs as the client sent them (for messages), at most {@linkcode MAX_CLIENT_ROOTS}. */
  readonly uris: readonly string[];
  /** Their absolute local paths; non-`file://` URIs have none and narrow to nothing. */
  readonly paths: readonly string[];

  private constructor(uris: readonly string[], paths: readonly string[]) {
    this.uris = uris;
    this.paths = paths;
  }

  /**
   * Reads a client's root URIs. Only `file://` URIs on this host name a
   * folder; any other is kept for messages but admits nothing.
   *
   * @param uris The URIs the client declared.
   * @returns The roots.
   */
  static of(uris: readonly string[]): ClientRoots {
    const kept = uris.slice(0, MAX_CLIENT_ROOTS);
    const paths: string[] = [];
    for (const uri of kept) {
      try {
        const url = new URL(uri);
        if (url.protocol !== "file:" || (url.host !== "" && url.host !== "localhost")) continue;
        const path = fileURLToPath(url);
        if (isAbsolute(path)) paths.push(path);
      } catch {
        // Not a URL: it names no folder.
      }
    }
    return new ClientRoots(kept, paths);
  }

  /**
   * Checks a caller's path for `mode` against the configured jail and the
   * client's roots. A relative path still starts at the first configured
   * root, so it names the same file as the call's permission pattern (which
   * is computed without the client's roots).
   *
   * @param ws The configured workspace.
   * @param path The caller's path.
   * @param mode `read` or `write`.
   * @param configured The configured roots (absolute): a client root that contains one admits that one whole.
   * @returns The path, unchanged, once it is admitted.
   * @throws {PolicyError} When the path lies outside every client root (code `outside-roots`).
   */
  async narrow(ws: Workspace, path: string, mode: Mode, configured: readonly string[]): Promise<string> {
    const usable = await this.#usable(ws, configured);
    // Resolved first: a path the configured jail refuses gets the jail's own reason.
    const { real } = await ws.resolve(path, mode);
    if (usable.some((root) => inside(root.real, real))) return path;
    const declared = this.uris.length === 0 ? "none" : this.uris.map((u) => quote(u, 120)).join(", ");
    const why = usable.length === 0 ? "; none of them lies inside this server's configured folders" : "";
    throw new PolicyError(
      "outside-roots",
      `Cannot use ${quote(path)}: it is outside the roots the client declared (${declared})${why}`,
    );
  }

  /**
   * The intersection of the client's roots with the configured ones, as real
   * paths: a client root inside a configured root (as the jail resolves it),
   * or a configured root inside a client root.
   */
  async #usable(ws: Workspace, configured: readonly string[]): Promise<{ path: string; real: string }[]> {
    const found: { path: string; real: string }[] = [];
    const admit = async (path: string) => {
      try {
        found.push({ path, real: (await ws.resolve(path, "read")).real });
        return true;
      } catch {
        // Outside every configured root, missing, or denied: it admits nothing.
        return false;
      }
    };
    for (const path of this.paths) {
      if (await admit(path)) continue;
      for (const root of configured) if (inside(path, root)) await admit(root);
    }
    return found;
  }
}
