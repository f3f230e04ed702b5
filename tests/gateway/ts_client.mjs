// A driver around the official TypeScript SDK client (npm @modelcontextprotocol/sdk), for the
// gateway tests: it connects as told on the command line, then takes JSON commands on stdin, one
// per line, and prints JSON events on stdout, one per line.
//
//   node ts_client.mjs stdio '<command as a JSON array>'      (env: passed through)
//   node ts_client.mjs http <url> [<bearer token>]
//
// commands: {"op": "list", "id": 1}
//           {"op": "call", "id": 2, "name": "...", "arguments": {...}, "progress": true, "timeout": 60000}
//           {"op": "abort", "id": 2}         (aborts call 2: the SDK sends notifications/cancelled)
//           {"op": "close"}
// events:   {"connected": true} | {"id": 1, "result": ...} | {"id": 2, "error": "..."} |
//           {"id": 2, "progress": "..."} | {"fatal": "..."}
import { createInterface } from "node:readline";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import path from "node:path";

const here = path.dirname(new URL(import.meta.url).pathname);
const require = createRequire(path.join(here, "node", "package.json"));
const load = (name) => import(pathToFileURL(require.resolve(name)).href);
const { Client } = await load("@modelcontextprotocol/sdk/client/index.js");
const { StdioClientTransport } = await load("@modelcontextprotocol/sdk/client/stdio.js");
const { StreamableHTTPClientTransport } = await load("@modelcontextprotocol/sdk/client/streamableHttp.js");

const emit = (event) => process.stdout.write(JSON.stringify(event) + "\n");
const [kind, target, token] = process.argv.slice(2);
let transport;
if (kind === "stdio") {
  const [command, ...args] = JSON.parse(target);
  transport = new StdioClientTransport({ command, args, env: process.env, stderr: "inherit" });
} else {
  const headers = token ? { Authorization: `Bearer ${token}` } : {};
  transport = new StreamableHTTPClientTransport(new URL(target), { requestInit: { headers } });
}
const client = new Client({ name: "ts-sdk-test-client", version: "1.0.0" });
try {
  await client.connect(transport);
} catch (error) {
  emit({ fatal: String(error && error.message ? error.message : error) });
  process.exit(1);
}
emit({ connected: true });

const aborts = new Map();
async function run(command) {
  const { op, id } = command;
  try {
    if (op === "list") {
      const listed = await client.listTools();
      emit({ id, result: listed.tools.map((t) => t.name) });
    } else if (op === "call") {
      const controller = new AbortController();
      aborts.set(id, controller);
      const options = { signal: controller.signal };
      if (command.timeout) options.timeout = command.timeout;
      if (command.progress) {
        options.onprogress = (p) => emit({ id, progress: p.message ?? String(p.progress) });
        options.resetTimeoutOnProgress = true;
      }
      const result = await client.callTool({ name: command.name, arguments: command.arguments ?? {} }, undefined, options);
      emit({ id, result });
    } else if (op === "abort") {
      aborts.get(id)?.abort("the test withdrew it");
    } else if (op === "close") {
      await client.close();
      process.exit(0);
    }
  } catch (error) {
    emit({ id, error: String(error && error.message ? error.message : error) });
  }
}

createInterface({ input: process.stdin }).on("line", (line) => {
  if (line.trim()) run(JSON.parse(line));
});
