// test-permissions: --allow-read={tmp} --allow-write={tmp} --allow-run=ln,sh
import assert from "node:assert/strict";
import { join } from "node:path";
import { FirstByName, linkShown, listChecked, listIn, type ListOptions, MAX_FOLDER_BYTES } from "./_listing.ts";
import { PolicyError } from "./policy_error.ts";

const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "listing_" }));
globalThis.addEventListener("unload", () => Deno.removeSync(base, { recursive: true }));
const files = { read: [base], write: [base], run: ["ln", "sh"] };
const all: ListOptions = { limit: 100, visible: () => true, linkVisible: () => true };
const context = { allowHardLinks: false };

async function ln(...args: string[]): Promise<void> {
  assert.ok((await new Deno.Command("ln", { args }).output()).success, args.join(" "));
}

/** A fresh folder under the temp folder with `names` as small files. */
async function folder(name: string, names: string[]): Promise<string> {
  const dir = join(base, name);
  await Deno.mkdir(dir);
  for (const n of names) await Deno.writeTextFile(join(dir, n), n);
  return dir;
}

Deno.test("FirstByName keeps the first names in code-unit order, whatever order they come in", () => {
  let seed = 7;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const names = Array.from({ length: 500 }, (_, i) => `n${Math.floor(random() * 1000)}_${i}`);
  names.push("Zed", "a", "é", "_", "a");
  for (const limit of [1, 2, 3, 17, 499]) {
    const kept = new FirstByName(limit);
    for (const name of names) kept.offer(name);
    const expected = [...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)).slice(0, limit);
    assert.deepEqual(kept.sorted(), expected, `limit ${limit}`);
  }
  const roomy = new FirstByName(1000);
  for (const name of names) roomy.offer(name);
  assert.equal(roomy.sorted().length, names.length);
});

Deno.test("FirstByName with a limit of 0 keeps nothing", () => {
  const none = new FirstByName(0);
  none.offer("a");
  assert.deepEqual(none.sorted(), []);
});

Deno.test({
  name: "listChecked() describes files, folders and links without following links, sizes only for single-link files",
  permissions: files,
  async fn() {
    const dir = await folder("kinds", ["file", "twice"]);
    await Deno.mkdir(join(dir, "sub"));
    await ln(join(dir, "twice"), join(dir, "twice_too"));
    await ln("-s", "file", join(dir, "link"));
    const { entries, truncated, unlisted } = listChecked(dir, "kinds", context, all);
    assert.deepEqual(entries, [
      { name: "file", type: "file", size: 4 },
      { name: "link", type: "symlink" },
      { name: "sub", type: "dir" },
      { name: "twice", type: "file" },
      { name: "twice_too", type: "file" },
    ]);
    assert.equal(truncated, false);
    assert.equal(unlisted, 0);
    const hardLinksAllowed = listChecked(dir, "kinds", { allowHardLinks: true }, all);
    assert.equal(hardLinksAllowed.entries.find((e) => e.name === "twice")?.size, 5);
  },
});

Deno.test({
  name:
    "listChecked() hides names the policy hides and links whose target it hides, and counts names no path can reach",
  permissions: files,
  async fn() {
    const dir = await folder("hidden", [
      "shown",
      ".secret",
      "ctl\u0001name",
      "del\u007f",
      "nel\u0085",
      "bidi\u202etxt.exe",
      "tag\u{e0041}\u{e0042}",
      "passwd\u200b",
      "lrm\u200e.txt",
      "👨\u200d👩.txt",
    ]);
    await ln("-s", "/etc/passwd", join(dir, "to_denied"));
    await ln("-s", "shown", join(dir, "to_shown"));
    await ln("-s", "missing_target", join(dir, "dangling"));
    const listing = listChecked(dir, "hidden", context, {
      limit: 100,
      visible: (name) => !name.startsWith("."),
      linkVisible: (target) => target.startsWith(dir),
    });
    assert.deepEqual(listing.entries.map((e) => e.name), ["dangling", "shown", "to_shown", "👨\u200d👩.txt"]);
    assert.equal(
      listing.unlisted,
      7,
      "the names with a control character, a bidi control, tag or invisible characters",
    );
  },
});

Deno.test({
  name: "listChecked() keeps the first names by code-unit order past the limit and says it cut",
  permissions: files,
  async fn() {
    const dir = await folder("many", ["b", "a", "C", "_", "d"]);
    const listing = listChecked(dir, "many", context, { ...all, limit: 3 });
    assert.deepEqual(listing.entries.map((e) => e.name), ["C", "_", "a"]);
    assert.equal(listing.truncated, true);
  },
});

Deno.test({
  name: "listChecked() refuses a folder that is not there, naming the caller's path and not the real one",
  permissions: files,
  fn() {
    assert.throws(() => listChecked(join(base, "absent"), "notes/absent", context, all), (err: unknown) => {
      assert.ok(err instanceof PolicyError);
      assert.match(err.message, /^Cannot list "notes\/absent"/);
      assert.ok(!err.message.includes(base));
      return true;
    });
  },
});

Deno.test({
  name: "listIn() leaves out an entry gone between reading the folder and looking at it",
  permissions: files,
  async fn() {
    const dir = await folder("racing", ["stays", "goes"]);
    const listing = listIn(
      {
        dir,
        at: (name) => join(dir, name),
        realDir: dir,
        look(name) {
          if (name === "goes") Deno.removeSync(join(dir, name));
          try {
            return Deno.lstatSync(join(dir, name));
          } catch {
            return undefined;
          }
        },
      },
      "racing",
      context,
      all,
    );
    assert.deepEqual(listing.entries.map((e) => e.name), ["stays"]);
  },
});

Deno.test({
  name: "linkShown() asks about a relative target resolved against the folder, and shows what is not a link",
  permissions: files,
  async fn() {
    const dir = await folder("links", ["plain"]);
    await ln("-s", "../elsewhere/x", join(dir, "up"));
    const asked: string[] = [];
    assert.equal(linkShown(join(dir, "up"), dir, (t) => (asked.push(t), false)), false);
    assert.deepEqual(asked, [join(base, "elsewhere", "x")]);
    assert.equal(linkShown(join(dir, "plain"), dir, () => false), true);
  },
});

Deno.test({
  name:
    "listChecked() refuses a folder whose entry table is over MAX_FOLDER_BYTES on disk before reading it, and names what to do",
  permissions: files,
  async fn() {
    const dir = join(base, "huge");
    await Deno.mkdir(dir);
    // Long names grow the table fastest: some 6,000 of them pass 2 MiB on ext4.
    const stem = "n".repeat(240);
    let count = 0;
    while (Deno.statSync(dir).size <= MAX_FOLDER_BYTES) {
      assert.ok(count < 100_000, "this file system does not grow a folder's size with its entries");
      for (let i = 0; i < 500; i++) {
        Deno.openSync(join(dir, `${stem}${count++}`), { create: true, write: true }).close();
      }
    }
    assert.throws(
      () => listChecked(dir, "huge", context, all),
      (err: unknown) =>
        err instanceof PolicyError && err.code === "too-large" &&
        /^Cannot list "huge": the folder's entries take \d+ bytes on disk, over the 2097152 a listing reads .*; list or search a folder inside it$/
          .test(err.message),
    );
    await Deno.remove(dir, { recursive: true });
  },
});

Deno.test({
  name:
    "listChecked() lists a name that holds U+FFFD itself, and counts one whose bytes are not UTF-8 (Deno reads both alike), any pair read alike, and those past the first `limit` it looks up",
  permissions: files,
  async fn() {
    const dir = await folder("replaced", ["plain", "lit\ufffdname", "pair\ufffd"]);
    // Names of bytes that are not UTF-8 (0xFF), which Deno reads with U+FFFD in their place: only a shell can make them.
    const made = await new Deno.Command("sh", {
      args: ["-c", 'touch "$0/bad$(printf "\\377")name" "$0/pair$(printf "\\377")"', dir],
    }).output();
    assert.ok(made.success, new TextDecoder().decode(made.stderr));
    const names = [...Deno.readDirSync(dir)].map((e) => e.name).sort();
    assert.deepEqual(names, ["bad\ufffdname", "lit\ufffdname", "pair\ufffd", "pair\ufffd", "plain"], "Deno's reading");
    const listing = listChecked(dir, "replaced", context, all);
    assert.deepEqual(listing.entries.map((e) => [e.name, e.type]), [["lit\ufffdname", "file"], ["plain", "file"]]);
    assert.equal(listing.unlisted, 3, "bad<FF>name, and both of pair<FF> and pair\\ufffd");
    // Only the first `limit` such names by name are looked up, one call each; the rest count as unlisted.
    const one = listChecked(dir, "replaced", context, { ...all, limit: 1 });
    assert.deepEqual([one.entries.map((e) => e.name), one.unlisted], [["plain"], 4], "lit\\ufffdname not looked up");
  },
});

/** Runs `fn` with Deno.realPathSync counted (the real function still answers); returns the count. */
function countingRealPaths(fn: () => void): number {
  const real = Deno.realPathSync;
  let calls = 0;
  Deno.realPathSync = (path) => (calls++, real(path));
  try {
    fn();
  } finally {
    Deno.realPathSync = real;
  }
  return calls;
}

Deno.test({
  name:
    "listChecked() resolves the folder's real path twice per listing, however many entries it looks at, and checks each entry by one stat of the folder",
  permissions: files,
  async fn() {
    const few = await folder("few_entries", ["a", "b", "c"]);
    const many = await folder("many_entries", Array.from({ length: 60 }, (_, i) => `n${i}`));
    let listed = 0;
    const fewCalls = countingRealPaths(() => listed += listChecked(few, "few_entries", context, all).entries.length);
    const manyCalls = countingRealPaths(() => listed += listChecked(many, "many_entries", context, all).entries.length);
    assert.equal(listed, 63);
    // A real path costs the square of the folder's depth: too much to pay once per entry.
    assert.deepEqual([fewCalls, manyCalls], [2, 2], "before the entries and after them");
  },
});

Deno.test({
  name: "listChecked() refuses a folder swapped, while its entries are looked at, for a link to a look-alike folder",
  permissions: files,
  async fn() {
    const dir = await folder("swapped", ["one", "two", "three"]);
    const lookalike = await folder("lookalike", ["one", "two", "three"]);
    await ln("-s", lookalike, join(base, "swap_link"));
    let swapped = false;
    const swap = () => {
      // After the names are read and before any is looked at: each look is then made through the link.
      if (!swapped) {
        Deno.renameSync(dir, join(base, "swapped_away"));
        Deno.renameSync(join(base, "swap_link"), dir);
        swapped = true;
      }
      return true;
    };
    assert.throws(
      () => listChecked(dir, "swapped", context, { ...all, visible: swap }),
      (err: unknown) =>
        err instanceof PolicyError && err.code === "changed" && /^Cannot list "swapped"/.test(err.message),
    );
    assert.ok(swapped);
  },
});

Deno.test({
  name:
    "listIn() judges names in name order only until `limit` are kept and one more is visible, and looks up only those it keeps",
  permissions: files,
  async fn() {
    const names = Array.from({ length: 50 }, (_, i) => `a${String(i).padStart(2, "0")}`);
    const dir = await folder("judged", names);
    const judged: string[] = [];
    const looked: string[] = [];
    const list = (limit: number, shown: (name: string) => boolean) => {
      judged.length = looked.length = 0;
      return listIn(
        {
          dir,
          at: (name) => join(dir, name),
          realDir: dir,
          look: (name) => (looked.push(name), Deno.lstatSync(join(dir, name))),
        },
        "judged",
        context,
        { limit, visible: (name) => (judged.push(name), shown(name)), linkVisible: () => true },
      );
    };
    const cut = list(5, (name) => name !== "a01" && name !== "a03");
    assert.deepEqual(cut.entries.map((e) => e.name), ["a00", "a02", "a04", "a05", "a06"]);
    assert.equal(cut.truncated, true);
    assert.deepEqual(judged, names.slice(0, 8), "a07 is the one more that says the listing was cut");
    assert.deepEqual(looked, ["a00", "a02", "a04", "a05", "a06"]);
    // Whether one more is visible can take every name: here none past the third is.
    const whole = list(3, (name) => name < "a03");
    assert.deepEqual([whole.entries.length, whole.truncated, judged.length], [3, false, 50]);
  },
});

Deno.test({
  name: "listIn() looks at the clock between entries and stops there once checkTime() throws",
  permissions: files,
  async fn() {
    const dir = await folder("timed", ["a", "b", "c", "d", "e"]);
    const looked: string[] = [];
    const late = new PolicyError("too-large", 'Cannot list "timed": listing it took longer than 0 ms');
    assert.throws(
      () =>
        listIn(
          {
            dir,
            at: (name) => join(dir, name),
            realDir: dir,
            look: (name) => (looked.push(name), Deno.lstatSync(join(dir, name))),
          },
          "timed",
          context,
          {
            ...all,
            checkTime() {
              if (looked.length === 2) throw late;
            },
          },
        ),
      (err: unknown) => err === late,
    );
    assert.deepEqual(looked, ["a", "b"]);
  },
});
