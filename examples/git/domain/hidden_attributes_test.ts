// test-permissions: --allow-read={tmp} --allow-write={tmp} --allow-run=/usr/bin/git,/usr/bin/kill,/usr/bin/setsid
import assert from "node:assert/strict";
import { join } from "node:path";
import { fixture, refusal } from "./fixture.ts";
import { storingLines } from "./hidden_attributes.ts";

Deno.test("storingLines() finds the lines that set an attribute which may change stored bytes, or one it does not know", () => {
  const text = [
    "# a comment",
    "",
    "*.png binary",
    "*.pbxproj merge=union -text !eol",
    '"a b.txt" diff=x whitespace=trailing-space',
    "*.txt working-tree-encoding=ISO-8859-1",
    '"with \\" quote" text',
    "[attr]conv eol=crlf",
    "[attr]safe -text",
    "*.c ident",
    "*.x mymacro",
    "   *.y   crlf   ",
  ].join("\n");
  assert.deepEqual(storingLines(text).map((found) => found.line), [6, 7, 8, 10, 11, 12]);
  assert.equal(storingLines(text)[5].text, "*.y   crlf");
  assert.deepEqual(storingLines(""), []);
});

Deno.test("git_commit refuses while the repository's info/attributes converts files as git stores them, which nothing shows, and commits once the line is gone", async () => {
  const f = await fixture();
  try {
    const dir = await f.repo("wattr", { "a.txt": "a\n" });
    const attributes = join(dir, ".git", "info", "attributes");
    await Deno.mkdir(join(dir, ".git", "info"), { recursive: true });
    await Deno.writeTextFile(attributes, "*.png binary\n*.txt working-tree-encoding=ISO-8859-1\n");
    await Deno.writeTextFile(join(dir, "a.txt"), "café\n");
    const mgr = f.manager({ wattr: dir });
    await assert.rejects(
      mgr.commit("wattr", "m", ["a.txt"]),
      refusal(
        "no-permission",
        'Cannot commit to repo "wattr": its info/attributes gives files attributes git may apply as it stores them ' +
          '(line 2: "*.txt working-tree-encoding=ISO-8859-1"), which git_status and git_diff do not show; this server ' +
          "commits the work tree's bytes: move the line to a .gitattributes in the work tree, or remove it",
      ),
    );
    assert.equal(await f.git(dir, "diff", "--cached", "--name-only"), "", "nothing was staged");
    // Attributes that leave the bytes alone are fine.
    await Deno.writeTextFile(attributes, "*.png binary\n*.pbxproj merge=union\n*.txt -text\n");
    await mgr.commit("wattr", "m", ["a.txt"]);
    assert.equal(await f.git(dir, "cat-file", "blob", "HEAD:a.txt"), "café\n");
    // The control: plain git under the refused line stores other bytes than the work tree's, and shows no change.
    await Deno.writeTextFile(attributes, "*.txt working-tree-encoding=ISO-8859-1\n");
    await Deno.writeTextFile(join(dir, "a.txt"), "cafés\n");
    await f.git(dir, "commit", "-q", "-m", "plain", "a.txt");
    assert.equal(await f.git(dir, "cat-file", "blob", "HEAD:a.txt"), "cafÃ©s\n", "the attribute did not apply");
    assert.equal(await f.git(dir, "status", "--porcelain"), "");
  } finally {
    await f.end();
  }
});
