// Why a folder cannot take a new project from `deno task new`.

import { dirname, isAbsolute, join, relative, resolve } from "node:path";

/**
 * Why `target` cannot take a new project, or undefined when it is absent or an empty folder outside `checkout`.
 *
 * Inside the checkout the project's files would join the toolkit's own: its gate would run their tests, and
 * `deno publish` would ship them (publish.exclude names only the checkout's folders). Inside `template/`, the copy
 * would copy itself without end. A comma in the path, which no permission flag can grant, would keep the server from
 * ever starting; a `${`, which hosts expand, from starting in a host. White space is fine: the tasks pass paths as
 * arguments, and the test runner splits a file's declared flags before it puts the project's path in. A symbolic
 * link is judged by where it leads; one that leads nowhere is refused, since making the folder would fail half-way.
 *
 * @param target The folder asked for.
 * @param checkout The toolkit's checkout.
 * @returns The reason, or undefined.
 * @example Refuse a folder inside the checkout
 * ```ts ignore
 * await newTargetProblem("./my-server", repo); // "is inside this checkout (…)…"
 * ```
 */
export async function newTargetProblem(target: string, checkout: string): Promise<string | undefined> {
  const real = await realPathOfMissing(resolve(target));
  const home = await Deno.realPath(checkout);
  const rel = relative(home, real);
  if (rel === "" || (rel !== ".." && !rel.startsWith("../") && !isAbsolute(rel))) {
    return `is inside this checkout (${home}), whose gate and publish would take its files: choose a folder outside it`;
  }
  for (const path of new Set([resolve(target), real])) {
    // Every task puts the project's paths into permission flags, whose lists Deno splits at commas.
    if (path.includes(",")) {
      return `has a comma in its path (${path}), which Deno's permission flags cannot grant: the server could never start`;
    }
    if (path.includes("${")) {
      return `has "\${" in its path (${path}), which Claude Code and VS Code expand as a variable: no host could start the server`;
    }
  }
  try {
    for await (const _ of Deno.readDir(target)) return "exists and is not empty";
    return undefined;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) {
      const link = await Deno.lstat(target).then(() => true, () => false);
      return link ? "is a symbolic link to nothing" : undefined;
    }
    if (err instanceof Deno.errors.NotADirectory) return "exists and is not a folder";
    return `cannot be read (${(err as Error).name})`;
  }
}

/** The real path `path` would have: its deepest existing ancestor's real path, then the rest as written. */
async function realPathOfMissing(path: string): Promise<string> {
  const rest: string[] = [];
  let at = path;
  for (;;) {
    try {
      return join(await Deno.realPath(at), ...rest.reverse());
    } catch (err) {
      // A link that leads nowhere (or a file in the way) is judged by its own place; newTargetProblem refuses it.
      if (!(err instanceof Deno.errors.NotFound) && !(err instanceof Deno.errors.NotADirectory)) throw err;
      const up = dirname(at);
      if (up === at) return path;
      rest.push(at.slice(up.length).replace(/^\//, ""));
      at = up;
    }
  }
}
