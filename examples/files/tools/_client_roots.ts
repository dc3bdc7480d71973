// The client's roots for one call, when it declares any: asked through the
// toolkit in either protocol era (kept per session in the initialize era).
import { MissingCapabilityError, type ToolRequest } from "@forge/toolkit";
import { ClientRoots } from "../domain/client_roots.ts";

/**
 * The roots the calling client declares, or undefined when it declares none
 * (no `roots` capability, or an empty list): then the configured roots apply
 * as they are.
 *
 * @param req The tool call.
 * @returns The client's roots.
 */
export async function clientRootsOf(req: ToolRequest): Promise<ClientRoots | undefined> {
  try {
    const roots = await req.listRoots();
    // An empty list declares no root: the configured roots apply as they are.
    return roots.length === 0 ? undefined : ClientRoots.of(roots.map((root) => root.uri));
  } catch (err) {
    if (err instanceof MissingCapabilityError) return undefined;
    throw err;
  }
}
