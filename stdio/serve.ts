// serve() with the JSON Schema engine loaded (../toolkit/schema_engine_provider.ts):
// a server served by hand has its tools registered before serve() runs, and
// addTool compiles, and refuses, a schema at once. run() serves through
// ./serve_core.ts and loads the engine only when a schema needs it
// (../toolkit/schema_engine.ts).

import "../toolkit/schema_engine_provider.ts";

export * from "./serve_core.ts";
