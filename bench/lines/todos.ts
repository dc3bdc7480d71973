// The domain both versions of the comparison share, so that only the tool
// definitions differ: append one item to a todo list file inside the jail.
import type { PathJail } from "@forge/toolkit/validate";

/** Appends `- [priority] item` to `todo/<list>.md` and returns the list's new length. */
export async function addTodo(jail: PathJail, list: string, item: string, priority: string): Promise<number> {
  const file = `todo/${list}.md`;
  const before = await jail.readTextFile(file).catch(() => "");
  const lines = [...before.split("\n").filter(Boolean), `- [${priority}] ${item}`];
  await jail.writeFile(file, lines.join("\n") + "\n");
  return lines.length;
}
