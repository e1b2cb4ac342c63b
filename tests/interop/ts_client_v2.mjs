// The official TypeScript SDK v2 client (auto version negotiation) against an mcp-bindgen
// server: it probes with server/discover and, finding 2026-07-28, stays stateless; lists
// tools, calls a tool with structured output, a failing tool, an unknown tool, and a tool that
// reports progress (onprogress). Prints one JSON object.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

const url = process.argv[2];
const client = new Client(
  { name: "ts-v2-interop", version: "1.0.0" },
  { versionNegotiation: { mode: "auto" } },
);
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
const progress = [];
const withProgress = await client.callTool(
  { name: "test_tool_with_progress", arguments: {} },
  { onprogress: (p) => progress.push(p) },
);
console.log(JSON.stringify({
  server: client.getServerVersion(),
  protocol: client.getNegotiatedProtocolVersion() ?? null,
  tools: tools.tools.map((t) => t.name),
  add,
  failing,
  unknown,
  withProgress,
  progress,
}));
await client.close();
