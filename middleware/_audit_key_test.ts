// test-permissions: --allow-read={tmp} --allow-write={tmp} --allow-env=FORGE_AUDIT_KEY
import assert from "node:assert/strict";
import { join } from "node:path";
import { AUDIT_KEY_ENV, readAuditKey } from "./_audit_key.ts";

const base = await Deno.makeTempDir({ prefix: "audit_key_" });
globalThis.addEventListener("unload", () => Deno.removeSync(base, { recursive: true }));
const files = { read: [base], write: [base] };
const KEY = "k".repeat(32);

async function keyFile(name: string, content: string, mode: number): Promise<string> {
  const path = join(base, name);
  await Deno.writeTextFile(path, content);
  await Deno.chmod(path, mode);
  return path;
}

function text(key: Uint8Array | undefined): string | undefined {
  return key === undefined ? undefined : new TextDecoder().decode(key);
}

Deno.test("readAuditKey() takes a key of 32 bytes or more from the option, a string or bytes", () => {
  assert.equal(text(readAuditKey({ key: KEY })), KEY);
  const bytes = new Uint8Array(40).fill(7);
  assert.deepEqual(readAuditKey({ key: bytes }), bytes);
});

Deno.test("readAuditKey() refuses a key shorter than 32 bytes at start, counting bytes, not characters", () => {
  assert.throws(
    () => readAuditKey({ key: "k".repeat(31) }),
    (err: unknown) =>
      err instanceof RangeError &&
      err.message ===
        "Cannot use the audit key: it has 31 bytes, at least 32 are needed (openssl rand -hex 32)",
  );
  // Sixteen two-byte characters make 32 bytes.
  assert.equal(readAuditKey({ key: "é".repeat(16) })?.length, 32);
  assert.throws(() => readAuditKey({ key: new Uint8Array(0) }), /it has 0 bytes/);
});

Deno.test({
  name: "readAuditKey() reads a key file only its owner can read or write, without its one line ending",
  permissions: files,
  async fn() {
    assert.equal(text(readAuditKey({ keyFile: await keyFile("lf", `${KEY}\n`, 0o600) })), KEY);
    assert.equal(text(readAuditKey({ keyFile: await keyFile("crlf", `${KEY}\r\n`, 0o400) })), KEY);
    // Only one line ending comes off: the rest is the key, as written.
    assert.equal(text(readAuditKey({ keyFile: await keyFile("two", `${KEY}\n\n`, 0o600) })), `${KEY}\n`);
    assert.equal(text(readAuditKey({ keyFile: await keyFile("bare", KEY, 0o600) })), KEY);
  },
});

Deno.test({
  name: "readAuditKey() refuses a key file that group or others may read or write, naming the mode",
  permissions: files,
  async fn() {
    for (const mode of [0o644, 0o640, 0o620, 0o604, 0o602, 0o601, 0o610]) {
      const path = await keyFile(`mode_${mode.toString(8)}`, KEY, mode);
      assert.throws(
        () => readAuditKey({ keyFile: path }),
        (err: unknown) =>
          err instanceof Error &&
          err.message ===
            `Cannot use the audit key file: other users may read or write it (mode ${mode.toString(8)}); chmod 600 it`,
      );
    }
  },
});

Deno.test({
  name: "readAuditKey() refuses a key file that is missing, or short once its line ending is off",
  permissions: files,
  async fn() {
    assert.throws(
      () => readAuditKey({ keyFile: join(base, "absent") }),
      /^Error: Cannot read the audit key file: No such file or directory/,
    );
    const short = await keyFile("short", `${"k".repeat(31)}\n`, 0o600);
    assert.throws(() => readAuditKey({ keyFile: short }), {
      name: "RangeError",
      message: "Cannot use the audit key file: it has 31 bytes, at least 32 are needed (openssl rand -hex 32)",
    });
  },
});

Deno.test({
  name: "readAuditKey() prefers the option to the key file, and the key file to the environment",
  permissions: { read: [base], write: [base], env: [AUDIT_KEY_ENV] },
  async fn() {
    Deno.env.set(AUDIT_KEY_ENV, "e".repeat(32));
    try {
      const path = await keyFile("chosen", "f".repeat(32), 0o600);
      assert.equal(text(readAuditKey({ key: KEY, keyFile: path })), KEY);
      assert.equal(text(readAuditKey({ keyFile: path })), "f".repeat(32));
      assert.equal(text(readAuditKey({})), "e".repeat(32));
    } finally {
      Deno.env.delete(AUDIT_KEY_ENV);
    }
  },
});

Deno.test({
  name: "readAuditKey() reads FORGE_AUDIT_KEY only when granted: unset or empty is no key, short is refused",
  permissions: { env: [AUDIT_KEY_ENV] },
  fn() {
    Deno.env.delete(AUDIT_KEY_ENV);
    assert.equal(readAuditKey({}), undefined);
    Deno.env.set(AUDIT_KEY_ENV, "");
    assert.equal(readAuditKey({}), undefined);
    Deno.env.set(AUDIT_KEY_ENV, "short");
    try {
      assert.throws(() => readAuditKey({}), {
        name: "RangeError",
        message: "Cannot use the audit FORGE_AUDIT_KEY: it has 5 bytes, at least 32 are needed (openssl rand -hex 32)",
      });
    } finally {
      Deno.env.delete(AUDIT_KEY_ENV);
    }
  },
});

Deno.test({
  name: "readAuditKey() without env permission has no key, rather than prompting or throwing",
  permissions: { env: false },
  fn() {
    assert.equal(readAuditKey({}), undefined);
  },
});
