// Servers with one planted weakness each, the kind published MCP advisories
// describe, for attack_test.ts to prove the kit finds every one; and a sound
// twin built on the toolkit's own policy code, which must show nothing.
import { isAbsolute, join, resolve } from "node:path";
import { DatabaseSync } from "node:sqlite";
import {
  addTool,
  registerPatternTool,
  requireString,
  schema,
  Server,
  strProp,
  text,
  type Tool,
  ToolError,
  type ToolHandler,
} from "@forge/toolkit";
import { definePolicy, PathJail } from "@forge/toolkit/validate";

const READ = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
const WRITE = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };

/** A server called `name` with the one tool `tool`. */
function oneTool<A>(tool: Tool<A>, handler: ToolHandler<A>, name = "weak"): Server {
  const server = new Server({ name });
  addTool(server, tool, handler);
  return server;
}

/** One tool that reads a file through `open(path)`. */
function fileReader(open: (path: string) => string | Promise<string>, name = "weak"): Server {
  return oneTool(
    {
      name: "read_file",
      description: "Reads a file in the root",
      inputSchema: schema({ path: strProp("The file, relative to the root") }, ["path"]),
      annotations: READ,
    },
    async (req) => text(await open(requireString(req.arguments, "path"))),
    name,
  );
}

/** One tool that looks a key up, after `record(key)`. */
function keyLookup(record: (key: string) => void): Server {
  return oneTool({
    name: "lookup",
    description: "Looks a key up",
    inputSchema: schema({ key: strProp("The key") }, ["key"]),
    annotations: READ,
  }, (req) => {
    record(requireString(req.arguments, "key"));
    return text("none");
  });
}

/** Refuses absolute paths, and forgets `..`. */
export function jailForgetsDotDot(root: string): Server {
  return fileReader((path) => {
    if (isAbsolute(path)) throw new ToolError("Cannot read: absolute paths are refused");
    return Deno.readTextFileSync(join(root, path));
  });
}

/** Resolves, then compares as strings: `/srv/data-other` passes for the root `/srv/data`. */
export function prefixJail(root: string): Server {
  return fileReader((path) => {
    const full = resolve(root, path);
    if (!full.startsWith(root)) throw new ToolError("Cannot read: the path leaves the root");
    return Deno.readTextFileSync(full);
  });
}

/** Compares segments, but never resolves links. */
export function linkFollowingJail(root: string): Server {
  return fileReader((path) => {
    const full = resolve(root, path);
    if (full !== root && !full.startsWith(root + "/")) throw new ToolError("Cannot read: the path leaves the root");
    return Deno.readTextFileSync(full);
  });
}

/** Names the resolved host path when a read fails. */
export function hostPathInError(root: string): Server {
  return fileReader((path) => {
    const full = resolve(root, path);
    try {
      if (!full.startsWith(root + "/")) throw new Error("outside");
      return Deno.readTextFileSync(full);
    } catch {
      throw new ToolError(`Cannot read ${full}: not allowed or not found`);
    }
  });
}

/** The sound twin: the toolkit's PathJail. */
export function soundJail(root: string): Server {
  const jail = new PathJail(definePolicy({ readRoots: [root] }));
  return fileReader((path) => jail.readTextFile(path, { truncate: true }), "sound");
}

/** Refuses URLs whose text names 127.0.0.1 or localhost, then fetches: `0x7f.1` gets through. */
export function urlTrustsHex(): Server {
  return oneTool({
    name: "fetch_url",
    description: "Fetches a URL",
    inputSchema: schema({ url: strProp("An http(s) URL") }, ["url"]),
    annotations: { ...READ, openWorldHint: true },
  }, async (req) => {
    const url = requireString(req.arguments, "url");
    if (/^https?:\/\/(127\.0\.0\.1|localhost)/i.test(url)) throw new ToolError("Cannot fetch: loopback is refused");
    const response = await fetch(url, { signal: req.signal }).catch(() => undefined);
    return text(response ? (await response.text()).slice(0, 200) : "unreachable");
  });
}

/** Logs each lookup with its key as it came. */
export function logsItsArgument(): Server {
  return keyLookup((key) => console.error(`lookup ${key}`));
}

/** A patterns function that does the write it should only describe: a probe runs the action. */
export function probeRunsAction(dir: string): Server {
  const server = new Server({ name: "weak" });
  const write = (name: string) => Deno.writeTextFileSync(join(dir, name.replace(/[^\w.-]/g, "_") + ".md"), "x");
  registerPatternTool(server, {
    name: "write_note",
    description: "Writes a note",
    inputSchema: schema({ name: strProp("The note's name"), body: strProp("Its text") }, ["name", "body"]),
    annotations: WRITE,
  }, (args) => {
    write(args.name);
    return { patterns: [`write:${args.name}`] };
  }, (req) => {
    write(req.arguments.name);
    return text("written");
  });
  return server;
}

/** Read-only when the statement starts with SELECT; runs the whole text. */
export function readOnlyByPrefix(db: string): Server {
  return oneTool({
    name: "run_query",
    description: "Runs a read-only SQL query",
    inputSchema: schema({ sql: strProp("The SQL query") }, ["sql"]),
    annotations: READ,
  }, (req) => {
    const sql = requireString(req.arguments, "sql");
    if (!/^\s*select\b/i.test(sql)) throw new ToolError("Cannot run: only SELECT is allowed");
    const conn = new DatabaseSync(db);
    try {
      conn.exec(sql);
      return text("done");
    } finally {
      conn.close();
    }
  });
}

/** Runs git in `repo` with a revision as given (`--output=…` is an option) and no guard on the repository's config. */
export function gitAsGiven(repo: string): Server {
  const git = async (...args: string[]) =>
    text(
      (await new Deno.Command("git", { args: ["-C", repo, ...args], stdin: "null" }).output()).success
        ? "ok"
        : "failed",
    );
  const server = oneTool({
    name: "git_log",
    description: "Shows the log from a revision",
    inputSchema: schema({ rev: strProp("A revision") }, ["rev"]),
    annotations: READ,
  }, (req) => git("log", "--oneline", "-1", requireString(req.arguments, "rev")));
  addTool(server, {
    name: "git_status",
    description: "Shows the status",
    inputSchema: schema({}),
    annotations: READ,
  }, () => git("status", "--short"));
  return server;
}

/** Merges an options object into its defaults key by key, `__proto__` included. */
export function mergesOptions(): Server {
  const merge = (into: Record<string, unknown>, from: Record<string, unknown>) => {
    for (const key in from) {
      const value = from[key];
      if (typeof value === "object" && value !== null) {
        into[key] ??= {};
        merge(into[key] as Record<string, unknown>, value as Record<string, unknown>);
      } else into[key] = value;
    }
  };
  return oneTool({
    name: "render",
    description: "Renders with options",
    inputSchema: schema({ options: { type: "object", description: "Rendering options", additionalProperties: true } }, [
      "options",
    ]),
    annotations: READ,
  }, (req) => {
    const settings: Record<string, unknown> = {};
    merge(settings, JSON.parse(JSON.stringify(req.arguments.options)) as Record<string, unknown>);
    return text("rendered");
  });
}

/** Appends each lookup, with its key as it came, to a log file. */
export function logsToFile(log: string): Server {
  return keyLookup((key) => Deno.writeTextFileSync(log, `{"tool":"lookup"} ${key}\n`, { append: true }));
}

/** Pastes the name into a quoted literal of one SELECT (prepared, so only one statement runs). */
export function sqlByConcatenation(db: string): Server {
  return oneTool({
    name: "find_item",
    description: "Finds an item by its name",
    inputSchema: schema({ name: strProp("The item's name") }, ["name"]),
    annotations: READ,
  }, (req) => {
    const conn = new DatabaseSync(db, { readOnly: true });
    try {
      const sql = `SELECT name FROM items WHERE name = '${requireString(req.arguments, "name")}'`;
      return text(JSON.stringify(conn.prepare(sql).all()));
    } catch {
      throw new ToolError("Cannot find the item: the query failed");
    } finally {
      conn.close();
    }
  });
}

/** Throws a plain Error that carries its argument: the toolkit answers "Internal error" and logs it, escaped. */
export function plainErrorWithArgument(): Server {
  return keyLookup((key) => {
    throw new Error(`no such key: ${key}`);
  });
}
