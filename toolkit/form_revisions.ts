// Which protocol revisions ask for a form as 2025-06-18 does: that one, and
// the older ones, which have no elicitation (a client that declares it anyway
// is asked as 2025-06-18 asks). Their forms have fewer kinds of field
// (./_elicit_form.ts), and their `elicitation/create` carries no `mode`, which
// 2025-11-25 added with its URL mode (engine/_asker.ts). Kept apart from the
// form rules, which load with the JSON Schema engine, so that the asker can
// read it at no cost at start.

/** The protocol versions whose forms follow 2025-06-18's rules and whose requests carry no `mode`. */
export const NARROW_FORM_VERSIONS: ReadonlySet<string> = new Set(["2025-06-18", "2025-03-26", "2024-11-05"]);
