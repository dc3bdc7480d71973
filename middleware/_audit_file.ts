// The audit file: opened for append, checked before every batch that the
// path still names the file that is open and that nobody else changed it
// (its size and modification time are what the last batch left), and synced
// after every batch. Each batch holds an exclusive lock on the file (flock)
// from that check to its sync, so two servers given one file take turns: the
// one whose check follows the other's write finds the file changed and
// refuses, where both used to number their records from the same last one.

import { concatBytes } from "../internal/concat_bytes.ts";
import { type AuditTarget, AuditUnavailable, MAX_RECORD_BYTES, unavailable } from "./_audit_log.ts";

/** The longest last line read back to link the chain to: four times the longest record written. */
const MAX_TAIL_BYTES = 4 * MAX_RECORD_BYTES;
const encoder = new TextEncoder();

/** An append-only audit file that follows rotation. */
export class AuditFile implements AuditTarget {
  #path: string;
  #file: Deno.FsFile | undefined;
  #identity: { dev: number; ino: number | null } | undefined;
  #size = 0;
  // The modification time the last write left (ms), for a regular file: another writer changes it.
  #mtime: number | undefined;
  // Set when the file open was changed by another writer: refused until the path names another file or SIGUSR1.
  #changed = false;
  #reopen = false;
  // Whether the open file holds this batch's lock: released when the batch ends, or with the file.
  #locked = false;

  constructor(path: string) {
    this.#path = path;
  }

  /** Reopens the path before the next batch (SIGUSR1: the operator rotated the file). */
  reopen(): void {
    this.#reopen = true;
  }

  async ready(recheck: boolean): Promise<string | undefined> {
    if (this.#file !== undefined && !this.#reopen && (!recheck || this.#changed)) {
      // Another process's batch ends before this one looks at the file.
      await this.#lock(this.#file);
      let info: Deno.FileInfo;
      try {
        info = await Deno.stat(this.#path);
      } catch (err) {
        if (err instanceof Deno.errors.NotFound) {
          throw new AuditUnavailable("the audit file was removed; recreate it or send SIGUSR1 to reopen it");
        }
        throw unavailable("the audit file cannot be checked", err);
      }
      // The same file, as the last batch left it: nothing to do. Another file: the operator rotated it.
      if (info.dev === this.#identity!.dev && info.ino === this.#identity!.ino) {
        if (this.#changed || this.#changedSince(info)) {
          this.#changed = true;
          throw new AuditUnavailable(
            "the audit file was changed in place by another writer since the last record (cut, appended to or " +
              "edited); check it with audit:verify, then move it aside to start a new file, or send SIGUSR1 to go on " +
              "in it",
          );
        }
        if (!recheck) return undefined;
      }
    }
    this.#closeFile();
    this.#reopen = false;
    this.#changed = false;
    let file: Deno.FsFile;
    try {
      file = await Deno.open(this.#path, { read: true, append: true, create: true, mode: 0o600 });
    } catch (err) {
      throw unavailable("the audit file cannot be opened", err);
    }
    try {
      await this.#lock(file);
      const info = await file.stat();
      this.#file = file;
      this.#identity = { dev: info.dev, ino: info.ino };
      this.#size = info.size;
      this.#mtime = info.isFile ? info.mtime?.getTime() : undefined;
      // A device or a pipe has no last line to read back.
      return info.isFile && info.size > 0 ? await readTail(file, info.size) : undefined;
    } catch (err) {
      this.#closeFile();
      throw err instanceof AuditUnavailable ? err : unavailable("the audit file cannot be read back", err);
    }
  }

  async write(text: string, sync: boolean): Promise<void> {
    const file = this.#file!;
    const bytes = encoder.encode(text);
    try {
      for (let offset = 0; offset < bytes.length;) offset += await file.write(bytes.subarray(offset));
      if (sync) await file.syncData();
      this.#size += bytes.length;
      // What this write left, for the next batch's check; a device or pipe has neither.
      if (this.#mtime !== undefined) this.#mtime = (await file.stat()).mtime?.getTime();
    } catch (err) {
      // A partial batch must not stay: the next record would link past it. If
      // it cannot be cut off, reopening will find the partial line and refuse.
      try {
        await file.truncate(this.#size);
        if (this.#mtime !== undefined) this.#mtime = (await file.stat()).mtime?.getTime();
      } catch {
        this.#reopen = true;
      }
      throw unavailable("the audit file cannot be written", err);
    }
  }

  /** Ends a batch: another process's trail may now check and write the file. */
  async release(): Promise<void> {
    if (!this.#locked) return;
    this.#locked = false;
    await this.#file?.unlock().catch(() => {});
  }

  /** Takes the batch's exclusive lock on `file`, waiting for another holder; a file that cannot be locked goes on unlocked. */
  async #lock(file: Deno.FsFile): Promise<void> {
    if (this.#locked) return;
    try {
      await file.lock(true);
      this.#locked = true;
    } catch {
      // A file system without locks: the check before each batch still finds another writer after the fact.
    }
  }

  /** Whether a regular file's size or modification time is not what the last write left. */
  #changedSince(info: Deno.FileInfo): boolean {
    if (this.#mtime === undefined || !info.isFile) return false;
    return info.size !== this.#size || info.mtime?.getTime() !== this.#mtime;
  }

  async close(): Promise<void> {
    // The last outcomes were written without a sync of their own.
    await this.#file?.syncData().catch(() => {});
    this.#closeFile();
  }

  #closeFile(): void {
    // Closing the file releases its lock.
    this.#locked = false;
    try {
      this.#file?.close();
    } catch {
      // Already closed: nothing to release.
    }
    this.#file = undefined;
  }
}

/** The file's last line, read backwards in chunks, with its newline when it has one. */
async function readTail(file: Deno.FsFile, size: number): Promise<string> {
  const chunks: Uint8Array[] = [];
  let end = size;
  let length = 0;
  while (end > 0 && length < MAX_TAIL_BYTES) {
    const start = Math.max(0, end - 64 * 1024);
    const chunk = new Uint8Array(end - start);
    await file.seek(start, Deno.SeekMode.Start);
    for (let read = 0; read < chunk.length;) {
      const n = await file.read(chunk.subarray(read));
      if (n === null) throw new AuditUnavailable("the audit file shrank while it was read back");
      read += n;
    }
    chunks.unshift(chunk);
    length += chunk.length;
    // A newline before the final byte ends the search: the last line starts after it.
    const searchEnd = chunks.length === 1 ? chunk.length - 1 : chunk.length;
    const at = chunk.subarray(0, searchEnd).lastIndexOf(0x0a);
    if (at >= 0) {
      chunks[0] = chunk.subarray(at + 1);
      return new TextDecoder().decode(concatBytes(chunks));
    }
    end = start;
  }
  if (end === 0) return new TextDecoder().decode(concatBytes(chunks));
  throw new AuditUnavailable("the audit file's last line is longer than any record");
}
