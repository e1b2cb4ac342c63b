// The official TypeScript SDK clients against examples/bevy-game: `v1` (the 1.x SDK, legacy era)
// or `v2` (the 2.x client, auto negotiation: 2026-07-28). Lists the tools and calls the
// built-ins (the SDK checks each structuredContent against the tool's outputSchema): ping,
// components_info, query, insert then get, pause, step with progress, resume, and a get naming
// an unknown type (a tool error). Prints one JSON object. Usage: bevy_ts_client.mjs v1|v2 URL
const [mode, url] = process.argv.slice(2);
let client;
let transport;
if (mode === "v1") {
  const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
  const { StreamableHTTPClientTransport } = await import(
    "@modelcontextprotocol/sdk/client/streamableHttp.js"
  );
  client = new Client({ name: "bevy-ts-v1", version: "1.0.0" });
  transport = new StreamableHTTPClientTransport(new URL(url));
} else {
  const { Client, StreamableHTTPClientTransport } = await import("@modelcontextprotocol/client");
  client = new Client(
    { name: "bevy-ts-v2", version: "1.0.0" },
    { versionNegotiation: { mode: "auto" } },
  );
  transport = new StreamableHTTPClientTransport(new URL(url));
}
await client.connect(transport);
const call = (name, args) => client.callTool({ name, arguments: args });
const POSITION = "mcp_bindgen_example_bevy::Position";
const HEALTH = "mcp_bindgen_example_bevy::Health";
const tools = await client.listTools();
const ping = await call("ping", {});
const info = await call("components_info", { filter: "Position" });
const query = await call("query", { with: [POSITION], limit: 2 });
const entity = query.structuredContent.entities[0].entity;
const insert = await call("insert", { entity, components: { [HEALTH]: { current: 3, max: 4 } } });
const get = await call("get", { entity, components: [HEALTH] });
const pause = await call("pause", {});
const progress = [];
const onprogress = (p) => progress.push(p.progress);
// The 1.x SDK takes a result schema before the options; the 2.x client takes the options.
const step = mode === "v1"
  ? await client.callTool({ name: "step", arguments: { frames: 3 } }, undefined, { onprogress })
  : await client.callTool({ name: "step", arguments: { frames: 3 } }, { onprogress });
const resume = await call("resume", {});
const bad = await call("get", { entity, components: ["game::Nope"] });
console.log(JSON.stringify({
  protocol: client.getNegotiatedProtocolVersion?.() ?? transport.protocolVersion ?? null,
  tools: tools.tools.map((t) => t.name),
  ping, info, query, insert, get, pause, step, progress, resume, bad,
}));
await client.close();
