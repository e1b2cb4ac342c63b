// The official TypeScript SDK client against an mcp-bindgen server: connect, list tools, call
// a tool with structured output (the SDK checks it against the outputSchema), a failing tool
// (isError) and an unknown tool (a JSON-RPC error). Prints one JSON object.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const url = process.argv[2];
const client = new Client({ name: "ts-interop", version: "1.0.0" });
const transport = new StreamableHTTPClientTransport(new URL(url));
await client.connect(transport);
const tools = await client.listTools();
const add = await client.callTool({ name: "add", arguments: { a: 2, b: 3.5 } });
const failing = await client.callTool({ name: "test_error_handling", arguments: {} });
let unknown = null;
try {
  await client.callTool({ name: "no_such_tool", arguments: {} });
} catch (e) {
  unknown = { code: e.code, message: e.message };
}
const badArgs = await client.callTool({ name: "add", arguments: { a: "two" } });
console.log(JSON.stringify({
  server: client.getServerVersion(),
  protocol: transport.protocolVersion ?? null,
  tools: tools.tools.map((t) => t.name),
  add,
  failing,
  unknown,
  badArgs,
}));
await client.close();
