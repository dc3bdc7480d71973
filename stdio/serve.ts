// serve() with the JSON Schema engine loaded (../toolkit/_engine_provider.ts):
// a server served by hand has its tools registered before serve() runs, and
// addTool compiles, and refuses, a schema at once. run() serves through
// ./_serve.ts and loads the engine only when a schema needs it
// (../toolkit/schema_engine.ts).

import "../toolkit/_engine_provider.ts";

export * from "./_serve.ts";
