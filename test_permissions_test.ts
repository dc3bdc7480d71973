// test-permissions: --allow-read={repo}
// A test file states what it may do once, on its `// test-permissions:` line:
// the gate runs the file with exactly those flags, and a Deno.test's
// `permissions:` only narrows them (Deno refuses a test that asks for more
// than its process holds, "Can't escalate parent thread permissions"). This
// test keeps the two from drifting apart, kind by kind (read, write, net,
// env, run, sys, ffi, import), for every test file: no test asks for a kind
// the line does not grant, and the line grants no kind that neither a test
// nor the file's own code outside its tests (module fixtures, helpers) can
// use. A test without `permissions:`, or with "inherit", uses the whole line;
// code outside the tests uses a kind when it names one of its APIs (USES
// below). docs/testing.md explains the rule.

import assert from "node:assert/strict";
import { dirname, join, normalize, relative } from "node:path";
import { fileURLToPath } from "node:url";

const repo = dirname(fileURLToPath(import.meta.url));
const KINDS = ["read", "write", "net", "env", "run", "sys", "ffi", "import"] as const;
type Kind = typeof KINDS[number];

/** The APIs through which code outside a file's tests (run at import, or helpers) uses each kind. */
const USES: Record<Kind, RegExp> = {
  read: /Deno\.(readTextFile|readFile|realPath|stat|lstat|readDir|open|readLink)|TMPDIR/,
  write: /Deno\.(makeTempDir|writeTextFile|writeFile|mkdir|remove|rename|symlink|chmod|create|copyFile|truncate)/,
  net: /Deno\.(serve|listen|connect)|\bfetch\(|testServersForFile/,
  env: /Deno\.env|makeTempDir|childEnv|TMPDIR/,
  run: /Deno\.(Command|kill)|spawnServer|spawnRaw|runDeno|printedPermissions/,
  sys: /Deno\.(hostname|osRelease|loadavg|networkInterfaces|systemMemoryInfo|uid|gid)\(/,
  ffi: /Deno\.dlopen/,
  import: /\bimport\(/,
};

/** What one test's `permissions:` amounts to, kind by kind. */
export interface Asked {
  /** Kinds it asks a value of (true, a list, a string other than "inherit"). */
  own: Set<Kind>;
  /** Kinds it may use: `own`, and those it inherits. */
  uses: Set<Kind>;
}

/** The kinds a `// test-permissions:` line grants. */
export function grantedKinds(text: string): Set<Kind> {
  const line = text.match(/^\/\/ test-permissions:(.*)$/m)?.[1] ?? "";
  const kinds = new Set<Kind>();
  for (const [, kind] of line.matchAll(/--allow-([a-z]+)/g)) {
    if ((KINDS as readonly string[]).includes(kind)) kinds.add(kind as Kind);
  }
  return kinds;
}

/** The text from `open` (an opening bracket) to its closing one, strings and comments skipped. */
function balanced(text: string, open: number): string {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const c = text[i];
    if (c === '"' || c === "'" || c === "`") {
      for (i++; i < text.length && text[i] !== c; i++) if (text[i] === "\\") i++;
    } else if (c === "/" && text[i + 1] === "/") {
      while (i < text.length && text[i] !== "\n") i++;
    } else if ("([{".includes(c)) depth++;
    else if (")]}".includes(c) && --depth === 0) return text.slice(open, i + 1);
  }
  return text.slice(open);
}

/** The top-level entries of an object literal's text: `key: value`, `...spread`, or a method. */
function entries(object: string): string[] {
  const body = object.slice(1, -1);
  const parts: string[] = [];
  let start = 0;
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c === '"' || c === "'" || c === "`") {
      for (i++; i < body.length && body[i] !== c; i++) if (body[i] === "\\") i++;
    } else if ("([{".includes(c)) i += balanced(body, i).length - 1;
    else if (c === "/" && body[i + 1] === "/") { while (i < body.length && body[i] !== "\n") i++; }
    else if (c === ",") (parts.push(body.slice(start, i).trim()), start = i + 1);
  }
  parts.push(body.slice(start).trim());
  return parts.filter((part) => part !== "");
}

/** Reads source files and finds what a name is bound to in one of them. */
class Sources {
  readonly #texts: Map<string, string>;

  /** Reads from disk what `texts` (path → text) does not hold. */
  constructor(texts: Map<string, string> = new Map()) {
    this.#texts = texts;
  }

  async text(path: string): Promise<string> {
    if (!this.#texts.has(path)) this.#texts.set(path, await Deno.readTextFile(path));
    return this.#texts.get(path)!;
  }

  /** The expression `name` is bound to in `path`, or in the relative module it is imported from. */
  async binding(path: string, name: string): Promise<{ path: string; expression: string } | undefined> {
    const text = await this.text(path);
    const declared = new RegExp(`^(?:export )?const ${name}(?:: [^=]+)? = `, "m").exec(text);
    if (declared) {
      const at = declared.index + declared[0].length;
      const expression = "{[(".includes(text[at]) ? balanced(text, at) : text.slice(at).match(/^[^;\n]+/)![0];
      return { path, expression };
    }
    const imported = new RegExp(`import \\{[^}]*\\b${name}\\b[^}]*\\} from "(\\.[^"]+)"`).exec(text);
    if (imported) return await this.binding(normalize(join(dirname(path), imported[1])), name).catch(() => undefined);
    return undefined;
  }
}

/** What a `permissions:` value asks; undefined when it cannot be read from the source (a parameter, a call). */
async function asked(sources: Sources, path: string, value: string): Promise<Asked | undefined> {
  const all = { own: new Set<Kind>(), uses: new Set<Kind>(KINDS) };
  if (value === '"inherit"') return all;
  if (value === '"none"') return { own: new Set(), uses: new Set() };
  if (/^[A-Za-z_$][\w$]*$/.test(value)) {
    const bound = await sources.binding(path, value);
    return bound && await asked(sources, bound.path, bound.expression);
  }
  if (!value.startsWith("{")) return undefined;
  const result: Asked = { own: new Set(), uses: new Set() };
  for (const entry of entries(value)) {
    if (entry.startsWith("...")) {
      const spread = await asked(sources, path, entry.slice(3).trim());
      if (spread === undefined) return undefined;
      spread.own.forEach((kind) => result.own.add(kind));
      spread.uses.forEach((kind) => result.uses.add(kind));
      continue;
    }
    const [, key, rest] = entry.match(/^(\w+)\s*:\s*([\s\S]*)$/) ?? [];
    if (!(KINDS as readonly string[]).includes(key)) continue;
    const kind = key as Kind;
    result.own.delete(kind);
    result.uses.delete(kind);
    if (rest === "false" || rest === '"none"') continue;
    result.uses.add(kind);
    if (rest !== '"inherit"') result.own.add(kind);
  }
  return result;
}

/** What each `Deno.test(…)` in `path` asks (undefined: cannot be read), and the file's text outside them. */
export async function testPermissions(
  sources: Sources,
  path: string,
): Promise<{ tests: (Asked | undefined)[]; outside: string }> {
  const text = await sources.text(path);
  const found: (Asked | undefined)[] = [];
  let outside = "";
  let from = 0;
  for (const match of text.matchAll(/\bDeno\.test\(/g)) {
    const before = text.slice(text.lastIndexOf("\n", match.index!) + 1, match.index!);
    if (['"', "'", "`"].some((quote) => before.split(quote).length % 2 === 0)) continue; // inside a string
    const call = balanced(text, match.index! + match[0].length - 1);
    outside += text.slice(from, match.index!);
    from = match.index! + match[0].length - 1 + call.length;
    const args = call.slice(1, -1).trim();
    if (!args.startsWith("{")) {
      found.push({ own: new Set(), uses: new Set(KINDS) });
      continue;
    }
    // The last `permissions` wins, whether written out or spread in from a shared object.
    let value: Asked | undefined = { own: new Set(), uses: new Set(KINDS) };
    for (const entry of entries(balanced(args, 0))) {
      if (entry.startsWith("...")) {
        const bound = await sources.binding(path, entry.slice(3).trim());
        const shared = bound?.expression.startsWith("{")
          ? entries(bound.expression).find((e) => /^permissions\s*:/.test(e))
          : undefined;
        if (shared) value = await asked(sources, bound!.path, shared.replace(/^permissions\s*:\s*/, ""));
      } else if (/^permissions\s*:/.test(entry)) {
        value = await asked(sources, path, entry.replace(/^permissions\s*:\s*/, ""));
      } else if (entry === "permissions") {
        value = await asked(sources, path, "permissions");
      }
    }
    found.push(value);
  }
  return { tests: found, outside: outside + text.slice(from) };
}

async function testFiles(dir: string): Promise<string[]> {
  const files: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory && ![".git", "node_modules", "testdata", "results"].includes(entry.name)) {
      files.push(...await testFiles(path));
    } else if (entry.isFile && entry.name.endsWith("_test.ts")) files.push(path);
  }
  return files;
}

Deno.test("grantedKinds() reads the kinds of a test-permissions line; a file without one is granted none", () => {
  const line = "// test-permissions: --allow-run=ln --allow-read={tmp} --allow-env={child-env},HOME\nimport x;";
  assert.deepEqual([...grantedKinds(line)].sort(), ["env", "read", "run"]);
  assert.deepEqual([...grantedKinds("import x;")], []);
});

Deno.test("testPermissions() reads written, shared, spread and imported permissions, and knows what it cannot read", async () => {
  const file = "/virtual/a_test.ts";
  const sources = new Sources(
    new Map([
      ["/virtual/files.ts", "export const FILES = { read: [root], write: [root] };\n"],
      [
        file,
        [
          'import { FILES } from "./files.ts";',
          'const perms: Deno.PermissionOptions = { run: [Deno.execPath()], read: [dir, "a,b"], env: "inherit" };',
          "const SHARED = { sanitizeOps: false, permissions: { net: NET } };",
          'Deno.test("inherits the line", () => {});',
          'Deno.test({ name: "narrows, { tricky: 1 }", permissions: perms, fn() {} });',
          'Deno.test({ ...SHARED, name: "shares", fn() {} });',
          'Deno.test({ name: "drops write", permissions: { ...FILES, write: false }, fn() {} });',
          'Deno.test({ name: "none", permissions: "none", fn() {} });',
          "function wrap(permissions) {",
          '  Deno.test({ name: "wrapped", permissions, fn() {} });',
          "}",
        ].join("\n"),
      ],
    ]),
  );
  const { tests: found, outside } = await testPermissions(sources, file);
  assert.match(outside, /function wrap\(permissions\) \{\n {2};\n\}/, "the tests are cut out of the rest");
  const show = (a: Asked | undefined) => a && `${[...a.own].sort().join(",")} / ${[...a.uses].sort().join(",")}`;
  assert.deepEqual(found.map(show), [
    ` / ${[...KINDS].sort().join(",")}`,
    "read,run / env,read,run",
    "net / net",
    "read / read",
    " / ",
    undefined,
  ]);
});

Deno.test("problemsOf() names a kind a test asks beyond its line, and a kind the line grants that nothing uses", async () => {
  const file = "/virtual/b_test.ts";
  const sources = new Sources(
    new Map([[
      file,
      [
        "// test-permissions: --allow-read={tmp} --allow-net=127.0.0.1 --allow-env=HOME",
        "const dir = await Deno.makeTempDir();",
        'Deno.test({ name: "reads", permissions: { read: [dir], write: [dir] }, fn() {} });',
      ].join("\n"),
    ]]),
  );
  assert.deepEqual((await problemsOf(sources, file)).problems, [
    "a test asks for write, which its line does not grant",
    "the line grants net, which neither its tests nor its other code use",
  ]);
});

/** What is wrong with one test file's permissions, and how many `permissions:` values were read. */
async function problemsOf(sources: Sources, path: string): Promise<{ problems: string[]; read: number }> {
  const granted = grantedKinds(await sources.text(path));
  const { tests, outside } = await testPermissions(sources, path);
  const used = new Set<Kind>(KINDS.filter((kind) => USES[kind].test(outside)));
  const problems: string[] = [];
  let read = 0;
  for (const test of tests) {
    if (test === undefined) {
      KINDS.forEach((kind) => used.add(kind));
      continue;
    }
    read++;
    test.uses.forEach((kind) => used.add(kind));
    const beyond = [...test.own].filter((kind) => !granted.has(kind));
    if (beyond.length > 0) problems.push(`a test asks for ${beyond.join(", ")}, which its line does not grant`);
  }
  const unused = [...granted].filter((kind) => !used.has(kind));
  if (tests.length > 0 && unused.length > 0) {
    problems.push(`the line grants ${unused.join(", ")}, which neither its tests nor its other code use`);
  }
  return { problems: [...new Set(problems)], read };
}

Deno.test("no test asks for a permission kind its file's line does not grant, and no line grants a kind nothing uses", async () => {
  const sources = new Sources();
  const files = await testFiles(repo);
  const problems: string[] = [];
  let read = 0;
  for (const path of files) {
    const found = await problemsOf(sources, path);
    problems.push(...found.problems.map((problem) => `${relative(repo, path)}: ${problem}`));
    read += found.read;
  }
  assert.ok(files.length > 200 && read > 300, `only ${files.length} files and ${read} permissions read`);
  assert.deepEqual(problems, [], problems.join("\n"));
});
