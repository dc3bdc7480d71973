// Under the flags it was started with, prints what checkPermissions() reports
// for a set that needs nothing, what asking every path and net probe one by
// one finds granted, and how many queries the check made against how many
// probes there are: check_permissions_probes_test.ts compares them.
import { checkPermissions } from "../check_permissions.ts";
import { ENV_PROBES, netProbes, pathProbes, runProbes, SYS_KINDS } from "../_probes.ts";

const query = Deno.permissions.querySync.bind(Deno.permissions);
let queries = 0;
Deno.permissions.querySync = (descriptor) => {
  queries++;
  return query(descriptor);
};
const reported = await checkPermissions({ read: [], write: [], net: [], denyNet: [], env: [], run: [] });
const asked = queries;

const paths = pathProbes([]);
const hosts = netProbes([]);
const every: string[] = [];
for (const name of ["read", "write", "ffi"] as const) {
  for (const path of paths) {
    if (query({ name, path }).state === "granted") every.push(`${name} ${JSON.stringify(path)}`);
  }
}
for (const host of hosts) {
  if (query({ name: "net", host }).state === "granted") every.push(`net ${JSON.stringify(host)}`);
}
// The eight unscoped kinds, HOME (whether the home folder's secrets are probed), then each probe once.
const probes = 8 + 1 + 3 * paths.length + hosts.length + ENV_PROBES.length + runProbes().length + SYS_KINDS.length;
console.log(JSON.stringify({ reported, every, asked, probes }));
