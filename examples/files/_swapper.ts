// The attacker of the race tests: a separate process that swaps each given
// folder for a symbolic link to an outside folder and back, as fast as it
// can, until the stop file exists. Where libc's renameat2 can be called
// (Linux, glibc), it swaps atomically with RENAME_EXCHANGE, so the name is
// never missing, only ever the folder or the link; otherwise it renames the
// folder away, puts a link in its place, and renames it back. It prints
// "ready <how>", then the number of swaps when it stops.
// Usage: deno run --allow-read --allow-write --allow-ffi _swapper.ts <stop file> <outside> <folder>...
// (Deno.symlink needs unscoped read and write.)
const [stop, outside, ...folders] = Deno.args;
const RENAME_EXCHANGE = 2;
const AT_FDCWD = -100;
const exchange = openExchange();
const links = folders.map((folder) => `${folder}.link`);
if (exchange !== undefined) { for (const link of links) Deno.symlinkSync(outside, link); }
let swaps = 0;
console.log(`ready ${exchange === undefined ? "rename" : "exchange"}`);
for (let round = 1;; round++) {
  // A synchronous loop with no await is the fastest a Deno process can swap; the stop file ends it.
  if (round % 64 === 0 && exists(stop)) break;
  for (let i = 0; i < folders.length; i++) {
    if (exchange !== undefined) {
      exchange(folders[i], links[i]);
      exchange(folders[i], links[i]);
      swaps += 2;
      continue;
    }
    try {
      Deno.renameSync(folders[i], `${folders[i]}.real`);
      Deno.symlinkSync(outside, folders[i]);
      Deno.removeSync(folders[i]);
      Deno.renameSync(`${folders[i]}.real`, folders[i]);
      swaps++;
    } catch {
      restore(folders[i]);
    }
  }
}
for (let i = 0; i < folders.length; i++) {
  if (exchange !== undefined && Deno.lstatSync(folders[i]).isSymlink) exchange(folders[i], links[i]);
  restore(folders[i]);
  if (exchange !== undefined) Deno.removeSync(links[i]);
}
console.log(String(swaps));

/** renameat2(RENAME_EXCHANGE) through libc, or undefined where it cannot be called. */
function openExchange(): ((a: string, b: string) => void) | undefined {
  let lib;
  try {
    lib = Deno.dlopen("libc.so.6", {
      renameat2: { parameters: ["i32", "buffer", "i32", "buffer", "u32"], result: "i32" },
    });
  } catch {
    return undefined;
  }
  const cString = (text: string) => new TextEncoder().encode(`${text}\0`);
  return (a, b) => {
    if (lib.symbols.renameat2(AT_FDCWD, cString(a), AT_FDCWD, cString(b), RENAME_EXCHANGE) !== 0) {
      throw new Error(`Cannot exchange ${a} and ${b}`);
    }
  };
}

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
