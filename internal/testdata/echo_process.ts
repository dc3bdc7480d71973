// Prints its environment's names, its working directory and whether stdin is
// closed, as one JSON line on stdout, and "stderr" on stderr. Needs
// --allow-env and --allow-read (for the working directory).
const stdin = await Deno.stdin.read(new Uint8Array(1));
console.log(
  JSON.stringify({ env: Object.keys(Deno.env.toObject()).sort(), cwd: Deno.cwd(), stdinEnded: stdin === null }),
);
console.error("stderr");
