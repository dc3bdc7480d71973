// The attacker of the race tests: a separate process that swaps each given
// folder for a symbolic link to an outside folder and back, as fast as it
// can, until the stop file exists. It prints "ready", then the number of
// swaps when it stops.
// Usage: deno run --allow-read --allow-write _swapper.ts <stop file> <outside> <folder>...
// (Deno.symlink needs unscoped read and write.)
const [stop, outside, ...folders] = Deno.args;
let swaps = 0;
console.log("ready");
for (let round = 1;; round++) {
  // A synchronous loop with no await is the fastest a Deno process can swap; the stop file ends it.
  if (round % 64 === 0 && exists(stop)) break;
  for (const folder of folders) {
    try {
      Deno.renameSync(folder, `${folder}.real`);
      Deno.symlinkSync(outside, folder);
      Deno.removeSync(folder);
      Deno.renameSync(`${folder}.real`, folder);
      swaps++;
    } catch {
      restore(folder);
    }
  }
}
for (const folder of folders) restore(folder);
console.log(String(swaps));

/** Puts a folder back after a step failed half-way. */
function restore(folder: string): void {
  try {
    if (Deno.lstatSync(folder).isSymlink) Deno.removeSync(folder);
  } catch {
    // Not there.
  }
  try {
    Deno.renameSync(`${folder}.real`, folder);
  } catch {
    // Already back.
  }
}

function exists(path: string): boolean {
  try {
    Deno.lstatSync(path);
    return true;
  } catch {
    return false;
  }
}
