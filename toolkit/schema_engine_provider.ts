// Loading this module provides the JSON Schema engine to the registry
// (./schema_engine.ts): stdio/serve.ts imports it, so that a server served by
// hand compiles, and refuses, a schema in addTool itself; run() loads it only
// when a schema needs it (loadSchemaEngine()). The rules of an elicitation
// form come with it: a server loads them when it first asks for a form.

import { formProblem } from "./_elicit_form.ts";
import { compileInputValidator } from "./input_validator.ts";
import { compileOutputValidator } from "./output_schema.ts";
import { provideSchemaEngine } from "./schema_engine.ts";

provideSchemaEngine({ compileInput: compileInputValidator, compileOutput: compileOutputValidator, formProblem });
