// The official TypeScript SDK v2 client's elicitation handler answering a game tool that asks
// the player to confirm (`clear_level`), in the era MODE names: `legacy` (the question arrives
// as an elicitation/create request on the call's stream) or `auto` (2026-07-28: the call
// answers input_required and the client retries with the answer). The handler answers `ok` =
// ANSWER ("yes" or "no"). Prints one JSON object.
// Usage: node ts_confirm.mjs URL MODE ANSWER
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

const [url, mode, answer] = process.argv.slice(2);
const client = new Client(
  { name: "ts-v2-confirm", version: "1.0.0" },
  { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode } },
);
const asked = [];
client.setRequestHandler("elicitation/create", async (request) => {
  asked.push(request.params.message);
  return { action: "accept", content: { ok: answer === "yes" } };
});
await client.connect(new StreamableHTTPClientTransport(new URL(url)));
const result = await client.callTool({ name: "clear_level", arguments: { level: 4 } });
console.log(JSON.stringify({
  protocol: client.getNegotiatedProtocolVersion() ?? null,
  asked,
  result,
}));
await client.close();
