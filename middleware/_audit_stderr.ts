// Records on stderr, where hosts usually keep a server's log. The toolkit's
// stderr queue never blocks: a host that stops reading stderr makes
// side-effecting calls fail closed instead of freezing the server.

import { writeRecord } from "../internal/stderr.ts";
import { type AuditTarget, unavailable } from "./_audit_log.ts";

/** Stderr as an audit target; `timeoutMs` bounds how long a batch may wait for it. */
export function auditStderr(timeoutMs: number): AuditTarget {
  return {
    ready: () => Promise.resolve(undefined),
    async write(text) {
      try {
        // One record for the whole batch: no log line can land between its lines.
        await writeRecord(text.slice(0, -1), timeoutMs);
      } catch (err) {
        throw unavailable("stderr does not take the audit records", err);
      }
    },
    close: () => Promise.resolve(),
  };
}
