import { enumProp, intProp, schema, strProp } from "@forge/toolkit";

/** The output schema of one entry of a listing or a search. */
export const entrySchema = schema({
  name: strProp("The entry's name"),
  path: strProp("The path relative to the root"),
  type: enumProp(["file", "dir", "symlink", "other"], "What it is; links are not followed"),
  size: intProp("The size in bytes, for files"),
}, ["name", "path", "type"]);
