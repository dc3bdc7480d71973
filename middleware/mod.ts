/**
 * Middleware for {@linkcode https://jsr.io/@forge/toolkit/doc/~/run | run()}:
 * a write-ahead, hash-chained, fail-closed audit trail of every side-effecting
 * call, its verifier, and per-tool rate and concurrency limits.
 *
 * ```ts ignore
 * import { run } from "@forge/toolkit";
 * import { auditTrail, rateLimit } from "@forge/toolkit/middleware";
 *
 * const audit = auditTrail({ server: "files", file: "/var/log/forge/files-audit.jsonl" });
 * await run("files", register, {
 *   middleware: [audit, rateLimit({ tools: { write_file: { rate: 5, burst: 10 } } })],
 *   onClose: () => audit.close(),
 * });
 * ```
 *
 * @module
 */
export { type AuditOptions, type AuditTrail, auditTrail } from "./audit_trail.ts";
export type {
  AuditCall,
  AuditIntent,
  AuditLate,
  AuditLink,
  AuditOutcome,
  AuditProbe,
  AuditRecord,
  AuditResult,
} from "./audit_record.ts";
export { auditDigest } from "./audit_digest.ts";
export { type AuditHead, type AuditVerdict, type VerifyAuditOptions, verifyAuditTrail } from "./verify_audit_trail.ts";
export { rateLimit, type RateLimitOptions, type RateSpec } from "./rate_limit.ts";
export { concurrencyLimit, type ConcurrencyLimitOptions } from "./concurrency_limit.ts";
