// The files server: read, list, stat and search inside configured roots, and
// write (atomically) inside writable roots. See README.md.
import { auditTrail, health, run } from "@forge/toolkit";
import { fromSchema, Loader, resolveConfigPath } from "@forge/toolkit/configreload";
import { ConfigSchema } from "./domain/config.ts";
import { Manager } from "./domain/manager.ts";
import { auditFileOf, policyFor } from "./domain/policy.ts";
import { registerAll } from "./tools/register.ts";

if (!health()) {
  const { path, source } = resolveConfigPath("files");
  // Printing the flags grants nothing, so it needs only --allow-read=<config file>; the
  // file-safety check (which must read the config's folder) runs whenever the server serves.
  const printing = Deno.args.includes("--print-permissions");
  const config = new Loader(path, fromSchema(ConfigSchema), {
    name: "files",
    optional: source === "tenant",
    allowUnsafeFile: printing || Deno.args.includes("--allow-unsafe-config"),
    log: printing ? () => {} : undefined,
  });
  let initial;
  try {
    initial = await config.get();
  } catch (err) {
    console.error(`files: ${(err as Error).message}`);
    Deno.exit(1);
  }
  const mgr = new Manager(() => config.get(), path);
  const audit = auditTrail({ server: "files", file: auditFileOf(initial, path) });
  await run("files", (server) => registerAll(server, mgr), {
    version: "0.1.0",
    policy: policyFor(initial, path, config.variables),
    redact: (text) => config.redact(text),
    middleware: [audit],
    onClose: async () => {
      await mgr.close();
      await audit.close();
      await config.close();
    },
  });
}
