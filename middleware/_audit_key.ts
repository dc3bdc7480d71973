// Where the HMAC key of args_hmac comes from: the option, a key file, or
// FORGE_AUDIT_KEY. A short or shared key fails at start, not in a call.

/** The environment variable that holds the audit key. */
export const AUDIT_KEY_ENV = "FORGE_AUDIT_KEY";
/** The shortest key accepted; `openssl rand -hex 32` prints 64 bytes of text. */
const MIN_KEY_BYTES = 32;

/** The key bytes, or undefined for none. */
export function readAuditKey(
  options: { key?: string | Uint8Array<ArrayBuffer>; keyFile?: string },
): Uint8Array<ArrayBuffer> | undefined {
  let key: Uint8Array<ArrayBuffer> | undefined;
  let source: string;
  if (options.key !== undefined) {
    key = typeof options.key === "string" ? new TextEncoder().encode(options.key) : options.key;
    source = "key";
  } else if (options.keyFile !== undefined) {
    key = readKeyFile(options.keyFile);
    source = "key file";
  } else {
    // Read only when granted: a server whose policy does not list the variable simply has no key.
    if (Deno.permissions.querySync({ name: "env", variable: AUDIT_KEY_ENV }).state !== "granted") return undefined;
    const value = Deno.env.get(AUDIT_KEY_ENV);
    if (!value) return undefined;
    key = new TextEncoder().encode(value);
    source = AUDIT_KEY_ENV;
  }
  if (key.length < MIN_KEY_BYTES) {
    throw new RangeError(
      `Cannot use the audit ${source}: it has ${key.length} bytes, at least ${MIN_KEY_BYTES} are needed (openssl rand -hex 32)`,
    );
  }
  return key;
}

function readKeyFile(path: string): Uint8Array<ArrayBuffer> {
  let info: Deno.FileInfo;
  let bytes: Uint8Array<ArrayBuffer>;
  try {
    info = Deno.statSync(path);
    bytes = Deno.readFileSync(path);
  } catch (err) {
    throw new Error(`Cannot read the audit key file: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (info.mode !== null && (info.mode & 0o077) !== 0) {
    throw new Error(
      `Cannot use the audit key file: other users may read or write it (mode ${
        (info.mode & 0o777).toString(8)
      }); chmod 600 it`,
    );
  }
  let end = bytes.length;
  if (bytes[end - 1] === 0x0a) end--;
  if (bytes[end - 1] === 0x0d) end--;
  return bytes.slice(0, end);
}
