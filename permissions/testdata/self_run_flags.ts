// A stand-in for a server that starts its own executable (as the sqlite
// example starts its database processes): asked for its flags, it names this
// deno and git, the way printed flags do.
if (Deno.args.includes("--print-permissions")) {
  console.log(`--allow-read=/srv/data --allow-run=/usr/bin/git,${Deno.execPath()}`);
}
