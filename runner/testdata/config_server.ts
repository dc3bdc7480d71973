// A config-driven server started by runWithConfig: `root` (read) and `token`
// (a secret) come from its config; the Manager says on stderr when it closes.
import { z } from "zod";
import { addTool, health, registerPatternTool, runWithConfig, schema, text } from "../../mod.ts";
import { definePolicy } from "../../validate/mod.ts";

const ConfigSchema = z.strictObject({
  root: z.string().optional(),
  token: z.string().optional(),
  audit_file: z.string().optional(),
  fixed: z.string().optional(),
});
const RO = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
const SIDE = { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false };

if (!health()) {
  await runWithConfig("fixture", {
    schema: ConfigSchema,
    secretFields: ["token"],
    // Far below the loader's default, so a test can pass it with a small file.
    configLimits: { maxValues: 20 },
    // The config file and the audit file are runWithConfig's own: it grants them, the policy need not.
    policy: (config, source) => {
      return definePolicy({ readRoots: config.root === undefined ? [] : [config.root], env: source.variables });
    },
    auditFile: (config) => config.audit_file,
    // `fixed` is fixed at start, as a program or an anchor would be.
    refuseReload: (next, first) => next.fixed === first.fixed ? undefined : "it changes fixed, which needs a restart",
    manager: (config) => ({
      root: async () => (await config.get()).root ?? "(none)",
      close: () => console.error("fixture: manager closed"),
    }),
    register: (server, mgr) => {
      addTool(
        server,
        { name: "root", description: "Names the root", inputSchema: schema(), annotations: RO },
        async () => text(await mgr.root()),
      );
      const mark = { name: "mark", description: "Marks nothing", inputSchema: schema(), annotations: SIDE };
      registerPatternTool(server, mark, () => ({ patterns: ["mark:x"] }), () => text("marked"));
    },
  });
}
