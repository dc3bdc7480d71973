import { type AttackCategory, attackString, type AttackValue } from "./corpus.ts";

/**
 * A name, a string value, and whether only the large corpus sends it. The
 * default corpus keeps, per category, the values that published advisories
 * and the kit's own weak fixtures show matter most, so the gate stays fast;
 * `FORGE_ATTACK=large` sends the rest.
 */
type Entry = [string, string, boolean?];

// The listener's own URL in the encodings URL parsers disagree on: a check
// that reads the host as text sees something other than 127.0.0.1, while the
// socket still reaches it. Each hit is recorded, so the judge needs no guess.
const LOOPBACK: Entry[] = [
  ["loopback", "http://@@listener@@/c/@@tag@@"],
  ["loopback short form 127.1", "http://127.1:@@port@@/c/@@tag@@", true],
  ["loopback hex 0x7f.1", "http://0x7f.1:@@port@@/c/@@tag@@"],
  ["loopback hex dword", "http://0x7f000001:@@port@@/c/@@tag@@"],
  ["loopback decimal dword", "http://2130706433:@@port@@/c/@@tag@@"],
  ["loopback octal", "http://0177.0.0.1:@@port@@/c/@@tag@@"],
  ["loopback octal dword", "http://017700000001:@@port@@/c/@@tag@@", true],
  ["loopback IPv4-mapped IPv6", "http://[::ffff:127.0.0.1]:@@port@@/c/@@tag@@"],
  ["loopback IPv4-mapped IPv6 hex", "http://[::ffff:7f00:1]:@@port@@/c/@@tag@@"],
  ["loopback IPv4-compatible IPv6", "http://[0:0:0:0:0:ffff:127.0.0.1]:@@port@@/c/@@tag@@", true],
  ["localhost", "http://localhost:@@port@@/c/@@tag@@"],
  ["localhost with trailing dot", "http://LOCALHOST.:@@port@@/c/@@tag@@", true],
  ["loopback with trailing dot", "http://127.0.0.1.:@@port@@/c/@@tag@@"],
  ["unspecified 0.0.0.0", "http://0.0.0.0:@@port@@/c/@@tag@@"],
  ["unspecified 0", "http://0:@@port@@/c/@@tag@@", true],
  ["fullwidth digits", "http://\uff11\uff12\uff17.\uff10.\uff10.\uff11:@@port@@/c/@@tag@@"],
  ["userinfo before loopback", "http://example.com@@@listener@@/c/@@tag@@"],
  ["fragment hides loopback", "http://@@listener@@/c/@@tag@@#@example.com", true],
  ["backslash authority", "http:\\\\@@listener@@/c/@@tag@@", true],
  ["no slashes", "http:@@listener@@/c/@@tag@@"],
  ["upper-case scheme", "HTTP://@@listener@@/c/@@tag@@", true],
  ["tab inside host", "http://127.0.\t0.1:@@port@@/c/@@tag@@"],
  ["leading space", " http://@@listener@@/c/@@tag@@", true],
  ["redirect to loopback", "@@allowed_url@@redirect-loopback"],
  ["redirect to metadata", "@@allowed_url@@redirect-metadata"],
  ["redirect to file", "@@allowed_url@@redirect-file"],
];

// Private, link-local and metadata addresses the listener cannot stand in
// for: a server must refuse them without connecting, so they are judged by
// the answer arriving in time and the server staying up.
const PRIVATE: Entry[] = [
  ["metadata 169.254.169.254", "http://169.254.169.254/latest/meta-data/"],
  ["metadata decimal", "http://2852039166/latest/meta-data/"],
  ["metadata hex", "http://0xa9fea9fe/latest/meta-data/", true],
  ["metadata IPv4-mapped IPv6", "http://[::ffff:169.254.169.254]/latest/meta-data/"],
  ["metadata IPv6 (AWS)", "http://[fd00:ec2::254]/latest/meta-data/", true],
  ["metadata name (GCP)", "http://metadata.google.internal/computeMetadata/v1/", true],
  ["private 10/8", "http://10.0.0.1/"],
  ["private 192.168/16", "http://192.168.0.1/"],
  ["private 172.16/12", "http://172.16.0.1/", true],
  ["carrier-grade NAT", "http://100.64.0.1/", true],
  ["link-local IPv6", "http://[fe80::1]/", true],
  ["IPv6 loopback", "http://[::1]:@@port@@/c/@@tag@@"],
];

const SCHEMES: Entry[] = [
  ["file URL", "file://@@canary_file@@"],
  ["file URL with host", "file://localhost@@canary_file@@", true],
  ["data URL", "data:text/plain,@@tag@@"],
  ["javascript URL", "javascript:alert(1)", true],
  ["gopher to loopback", "gopher://@@listener@@/_c/@@tag@@"],
  ["ftp to loopback", "ftp://@@listener@@/c/@@tag@@", true],
  ["websocket to loopback", "ws://@@listener@@/c/@@tag@@", true],
];

const PATHS: Entry[] = [
  ["traversal to the canary", "@@up@@@@canary_file@@"],
  ["absolute canary path", "@@canary_file@@"],
  ["sibling prefix, absolute", "@@sibling@@/canary.txt"],
  ["sibling prefix, relative", "../@@sibling_name@@/canary.txt"],
  ["traversal after a name", "x/@@up@@@@canary_file@@", true],
  ["backslash traversal", "@@up_backslash@@@@canary_file@@"],
  ["percent-encoded traversal", "@@up_encoded@@@@canary_file@@"],
  ["double-encoded traversal", "@@up_double_encoded@@@@canary_file@@", true],
  ["fullwidth traversal", "@@up_fullwidth@@@@canary_file@@"],
  ["NUL truncation", "@@canary_file@@\u0000.txt"],
  ["NUL after a name", "x\u0000@@up@@@@canary_file@@", true],
  ["file URL as a path", "file://@@canary_file@@"],
  ["home folder", "~/.ssh/id_rsa", true],
  ["another user's home", "~root/.bashrc", true],
  ["variable in a path", "$HOME/.bashrc", true],
  ["process environment", "/proc/self/environ", true],
  ["own stdin", "/proc/self/fd/0"],
  ["endless device", "/dev/zero"],
  ["dot", ".", true],
  ["dot-dot", ".."],
  ["root", "/", true],
  ["git config", ".git/config"],
  ["dotenv, upper case", ".ENV", true],
  ["glob star", "*", true],
  ["glob recursive", "**/*", true],
  ["brace expansion", "{.,..}/@@tag@@", true],
  ["Windows device name", "CON", true],
  ["Windows drive path", "C:\\Windows\\win.ini", true],
  ["UNC path", "\\\\127.0.0.1\\c$\\@@tag@@", true],
  ["name too long", "@@repeat:256:a@@"],
  ["path too long", "@@repeat:2100:a/@@", true],
];

const LINKS: Entry[] = [
  ["link to the canary", "@@link_file@@"],
  ["through a linked folder", "@@link_dir@@/canary.txt"],
];

// Statements a read-only guard must refuse. Most need no table name: a
// pragma or a new table changes the database file, VACUUM INTO and ATTACH
// create files in the canary folder, and reading the attached canary puts its
// token in the reply.
// A value a server pastes into a quoted SQL literal (`WHERE name = '${name}'`)
// closes the quote and selects the canary secret, joined from two halves so
// the request never carries it whole: the secret in a reply proves the value
// ran as SQL. Sent to name-like arguments too, where such queries put them.
const SQL_LITERAL: Entry[] = [
  ["quote breaks into a UNION", "x' UNION SELECT '@@secret_head@@'||'@@secret_tail@@' --"],
  ["quote breaks into a UNION of two columns", "x' UNION SELECT '@@secret_head@@'||'@@secret_tail@@', 1 --"],
  ["quote breaks into a UNION of three columns", "x' UNION SELECT '@@secret_head@@'||'@@secret_tail@@', 1, 1 --", true],
  ["double quote breaks into a UNION", "x\" UNION SELECT '@@secret_head@@'||'@@secret_tail@@' --", true],
];
const SQL_LITERAL_ARGUMENTS = /sql|query|statement|where|filter|expr|name|key|term|search|title|table|column|label/i;

const SQL: Entry[] = [
  ["pragma write", "PRAGMA user_version = 7"],
  ["create table", "CREATE TABLE forge_attack(x)"],
  ["commit then write", "COMMIT; CREATE TABLE forge_attack(x)"],
  ["stacked write", "SELECT 1; CREATE TABLE forge_attack(x)"],
  ["comment hides a write", "SELECT 1 /* */; PRAGMA user_version = 7"],
  ["line comment then write", "SELECT 1 --\n; PRAGMA user_version = 7", true],
  ["transaction", "BEGIN; CREATE TABLE forge_attack(x); COMMIT;"],
  ["attach the canary", "ATTACH DATABASE '@@canary_db@@' AS c"],
  ["read an attached canary", "ATTACH '@@canary_db@@' AS c; SELECT * FROM c.secrets"],
  ["attach a new file", "ATTACH '@@canary_dir@@/attached-@@tag@@.db' AS n; CREATE TABLE n.t(x)"],
  ["vacuum into a file", "VACUUM INTO '@@canary_dir@@/vacuum-@@tag@@.db'"],
  ["writable schema", "PRAGMA writable_schema = 1", true],
  ["journal mode", "PRAGMA journal_mode = DELETE", true],
  ["load extension", "SELECT load_extension('@@canary_dir@@/ext')", true],
  ["savepoint", "SAVEPOINT a; PRAGMA user_version = 7; RELEASE a", true],
  ["CTE with a write", "WITH x AS (SELECT 1) INSERT INTO sqlite_master SELECT * FROM x", true],
];

// Values that a program called with them reads as options (git, grep, tar…),
// and shell syntax for servers that build a command line.
const OPTIONS: Entry[] = [
  ["short option", "-x"],
  ["output option", "--output=@@canary_dir@@/output-@@tag@@"],
  ["short output option", "-o@@canary_dir@@/o-@@tag@@"],
  ["no-index", "--no-index"],
  ["config option", "-c"],
  ["config option with a pager", "-ccore.pager=touch @@canary_dir@@/pager-@@tag@@"],
  ["open files in pager", "--open-files-in-pager=touch @@canary_dir@@/grep-@@tag@@"],
  ["short pager option", "-Otouch @@canary_dir@@/O-@@tag@@"],
  ["upload-pack", "--upload-pack=touch @@canary_dir@@/upload-@@tag@@"],
  ["exec option", "--exec=touch @@canary_dir@@/exec-@@tag@@"],
  ["external diff", "--ext-diff", true],
  ["end of options", "--", true],
  ["help", "--help", true],
  ["lone dash", "-", true],
];

const COMMANDS: Entry[] = [
  ["command substitution", "$(touch @@canary_dir@@/sub-@@tag@@)"],
  ["backticks", "`touch @@canary_dir@@/tick-@@tag@@`", true],
  ["semicolon", "x; touch @@canary_dir@@/semi-@@tag@@"],
  ["pipe", "x | touch @@canary_dir@@/pipe-@@tag@@", true],
  ["newline command", "x\ntouch @@canary_dir@@/nl-@@tag@@"],
];

const LOGS: Entry[] = [
  ["newline forges a log line", "x\n@@marker@@ forged"],
  ["CRLF forges a log line", "x\r\n@@marker@@ forged"],
  ["carriage return overwrites a line", "x\r@@marker@@ forged"],
  ["JSON record then a forged line", '{"level":"info"}\n@@marker@@ forged'],
  ["terminal escape", "\u001b]0;@@marker@@\u0007\u001b[2J@@marker@@"],
];

const UNICODE: Entry[] = [
  ["lone high surrogate", "\ud800"],
  ["lone low surrogate", "x\udfffx", true],
  ["byte order mark", "\ufeffx", true],
  ["right-to-left override", "x\u202etxt.exe"],
  ["zero-width space", "x\u200bx"],
  ["decomposed accent", "e\u0301", true],
  ["noncharacter", "\uffff\ufffe", true],
  ["line separator", "x\u2028x"],
  ["NUL", "\u0000"],
  ["control characters", "\u0001\u0002\u0007\u0008\u007f"],
];

const SIZES: [string, string, boolean][] = [
  ["64 KiB", "@@repeat:65536:A@@", false],
  ["1 MiB", "@@repeat:1048576:A@@", false],
  ["16 MiB", "@@repeat:16777216:A@@", true],
];

const GENERIC: Entry[] = [
  ["empty", ""],
  ["space", " ", true],
  ["the word null", "null", true],
  ["format string", "%s%n%x%p"],
  ["template", "{{7*7}}${7*7}", true],
  ["markup", "<script>@@tag@@</script>"],
  ["quotes", "'\"`"],
  ["backslash", "\\", true],
];

function strings(category: AttackCategory, list: Entry[]): AttackValue[] {
  return list.map(([name, value, large]) => attackString(name, category, value, large));
}

function raw(category: AttackCategory, on: "number" | "array" | "object", list: [string, string][]): AttackValue[] {
  return list.map(([name, json]) => ({ name, category, json, for: on }));
}

/**
 * The kit's built-in hostile values, by category. Arguments derived from a
 * tool's schema add their own (its bounds, wrong types, extra and duplicate
 * keys); `attack()` takes more in `AttackOptions.values`.
 *
 * @example Count the values of one category
 * ```ts
 * import { ATTACK_VALUES } from "@forge/toolkit/testing";
 * import assert from "node:assert/strict";
 *
 * assert.ok(ATTACK_VALUES.filter((v) => v.category === "url").length > 20);
 * ```
 */
export const ATTACK_VALUES: readonly AttackValue[] = Object.freeze([
  ...strings("path", PATHS),
  ...strings("link", LINKS),
  ...strings("url", [...LOOPBACK, ...PRIVATE, ...SCHEMES]),
  ...strings("sql", SQL),
  ...strings("sql", SQL_LITERAL).map((v) => ({ ...v, arguments: SQL_LITERAL_ARGUMENTS })),
  ...strings("option", OPTIONS),
  ...strings("command", COMMANDS),
  ...strings("log", LOGS),
  ...strings("unicode", UNICODE),
  ...SIZES.map(([name, value, large]) => attackString(name, "size", value, large)),
  ...strings("generic", GENERIC),
  ...raw("number", "number", [
    ["zero", "0"],
    ["minus one", "-1"],
    ["negative zero", "-0"],
    ["overflow 1e400", "1e400"],
    ["negative overflow", "-1e400"],
    ["underflow", "1e-400"],
    ["fraction", "0.5"],
    ["2^53+1", "9007199254740993"],
    ["30 digits", "123456789012345678901234567890"],
    ["2^31", "2147483648"],
    ["-2^31-1", "-2147483649"],
    ["2^32", "4294967296"],
    ["largest double", "1.7976931348623157e308"],
    ["smallest double", "5e-324"],
    ["numeric string", '"1"'],
    ["hex string", '"0x10"'],
    ["NaN string", '"NaN"'],
  ]),
  ...raw("shape", "array", [
    ["empty array", "[]"],
    ["100 000 items", "[@@repeat:99999:0,@@0]"],
    ["nested 900 deep", "@@repeat:900:[@@@@repeat:900:]@@"],
    ["nested 5 000 deep", "@@repeat:5000:[@@@@repeat:5000:]@@"],
    ["null item", "[null]"],
    ["object item", "[{}]"],
  ]),
  ...raw("shape", "object", [
    ["empty object", "{}"],
    ["__proto__ key", '{"__proto__":{"polluted":"@@tag@@"}}'],
    ["constructor key", '{"constructor":{"prototype":{"polluted":"@@tag@@"}}}'],
    ["nested 900 deep", '@@repeat:900:{"a":@@1@@repeat:900:}@@'],
    ["10 000 duplicate keys", '{@@repeat:9999:"k":0,@@"k":0}'],
  ]),
]);
