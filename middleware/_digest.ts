// What the audit trail's hash chain starts from.

/** The first record's `prev`: no record came before it. */
export const GENESIS = "0".repeat(64);
