import { definePolicy, type Policy } from "../validate/policy.ts";

/**
 * `policy` with the files runWithConfig itself uses added: its config files
 * (read: the file loaded, and the tenant file looked for at start) and the
 * audit trail's file (write). A server's policy function need
 * not name them (one that forgot printed flags that could not start it), and
 * the jail never serves a file the policy lists as the server's own. The paths
 * are checked as `definePolicy` checks any (absolute, no comma or NUL).
 */
export function withOwnFiles(
  policy: Policy,
  configFiles: readonly string[],
  auditFile: string | undefined,
): Policy {
  const own = definePolicy({
    readFiles: configFiles,
    writeFiles: auditFile === undefined ? [] : [auditFile],
    tenantConfig: false,
    defaultDeny: false,
  });
  const readFiles = [...policy.readFiles, ...own.readFiles.filter((file) => !policy.readFiles.includes(file))];
  const writeFiles = [...policy.writeFiles, ...own.writeFiles.filter((file) => !policy.writeFiles.includes(file))];
  if (readFiles.length === policy.readFiles.length && writeFiles.length === policy.writeFiles.length) return policy;
  return Object.freeze({ ...policy, readFiles: Object.freeze(readFiles), writeFiles: Object.freeze(writeFiles) });
}
