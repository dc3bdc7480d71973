// A server whose policy uses the network: it may fetch http://<ip>:<port>/ for each --private=<ip> (a private host)
// and --port=<port>, and keeps the environment's proxy with --environment-proxy. Its one tool, get, fetches `url`
// through safeFetch and answers with the body, or with the error's message.
import { addTool, health, run, schema, strProp, text } from "../../mod.ts";
import { definePolicy, safeFetch } from "../../validate/mod.ts";

const values = (name: string) => Deno.args.filter((a) => a.startsWith(`--${name}=`)).map((a) => a.split("=")[1]);
const policy = definePolicy({
  net: {
    schemes: ["http"],
    privateHosts: values("private"),
    ports: values("port").map(Number),
    environmentProxy: Deno.args.includes("--environment-proxy"),
  },
  tenantConfig: false,
});
const RO = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true };

if (!health()) {
  await run("fetch", (server) => {
    addTool(
      server,
      {
        name: "get",
        description: "Fetches a URL",
        inputSchema: schema({ url: strProp("URL") }, ["url"]),
        annotations: RO,
      },
      async (req) => {
        const url = String(req.arguments.url);
        try {
          return text(new TextDecoder().decode((await safeFetch(url, { policy })).body));
        } catch (err) {
          return text(`error: ${err instanceof Error ? err.message : String(err)}`);
        }
      },
    );
  }, { policy });
}
