// The input schema the conformance suite's json-schema-2020-12 scenario looks
// for, keyword for keyword: the fixture serves it, and the toolkit's own
// JSON Schema test serves it over stdio, so both prove the same schema.

import type { ObjectSchema } from "@forge/toolkit";

/** `$schema`, `$defs` with an `$anchor`, `$ref`, `allOf`/`anyOf`, `if`/`then`/`else`, `additionalProperties: false`. */
export const SCENARIO_SCHEMA_2020_12: ObjectSchema = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  $defs: {
    address: {
      $anchor: "addressDef",
      type: "object",
      properties: { street: { type: "string" }, city: { type: "string" } },
    },
  },
  properties: {
    name: { type: "string" },
    address: { $ref: "#/$defs/address" },
    contactMethod: { type: "string", enum: ["phone", "email"] },
    phone: { type: "string" },
    email: { type: "string" },
  },
  allOf: [{ anyOf: [{ required: ["phone"] }, { required: ["email"] }] }],
  if: { properties: { contactMethod: { const: "phone" } }, required: ["contactMethod"] },
  then: { required: ["phone"] },
  else: { required: ["email"] },
  additionalProperties: false,
};
