// Under the flags it was started with, prints what checkPermissions() reports
// for a set that needs nothing, what asking every path and net probe one by
// one finds granted (the probes come as JSON in the first argument, from
// check_permissions_probes_test.ts, which compares the two), and how many
// queries the check made.
import { checkPermissions } from "../check_permissions.ts";

const { paths, hosts } = JSON.parse(Deno.args[0]) as { paths: string[]; hosts: string[] };

const query = Deno.permissions.querySync.bind(Deno.permissions);
let queries = 0;
Deno.permissions.querySync = (descriptor) => {
  queries++;
  return query(descriptor);
};
const reported = await checkPermissions({ read: [], write: [], net: [], denyNet: [], env: [], run: [] });
const asked = queries;

const every: string[] = [];
for (const name of ["read", "write", "ffi"] as const) {
  for (const path of paths) {
    if (query({ name, path }).state === "granted") every.push(`${name} ${JSON.stringify(path)}`);
  }
}
for (const host of hosts) {
  if (query({ name: "net", host }).state === "granted") every.push(`net ${JSON.stringify(host)}`);
}
console.log(JSON.stringify({ reported, every, asked }));
