// Imported for its effect by run.ts, so by the toolkit's root module: the
// early stdout guard of internal/startup.ts goes up while the author's modules are
// still loading, before main.ts runs a line.
import { looksLikeServer, startEarly } from "../internal/startup.ts";

if (looksLikeServer(Deno.args, Deno.mainModule)) startEarly();
