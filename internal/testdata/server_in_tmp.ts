// What a test that starts a server process over files in the temporary folder
// may do, for the test files whose line reads
// `--allow-run --allow-read={repo},{tmp} --allow-write={tmp} --allow-env=TMPDIR,{child-env}`.

const tmp: string = Deno.env.get("TMPDIR") ?? "/tmp";

/** Run the server, read the repository and the temporary folder, write the latter, pass the environment on. */
export const SERVER_IN_TMP: Deno.PermissionOptions = {
  run: true,
  read: [new URL("../..", import.meta.url).pathname, tmp],
  write: [tmp],
  env: "inherit",
};
