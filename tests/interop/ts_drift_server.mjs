// An MCP server on the official TypeScript SDK v1 (@modelcontextprotocol/sdk), legacy era,
// stateful Streamable HTTP on 127.0.0.1, whose tool list changes while a client is connected:
// calling `change` makes `echo`'s `text` required and removes `gone`. The SDK announces each
// change with notifications/tools/list_changed on the session's GET stream; `change_here` makes
// the same change and announces it only on its own POST response stream.
//
// Usage: node ts_drift_server.mjs. Prints its URL on the first line of stdout, then one JSON
// line per event the tests observe:
//   {"event":"stream"}        a client opened the GET stream;
//   {"event":"list"}          a tools/list request came in.
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

const event = (e) => console.log(JSON.stringify(e));

function session(onOpen) {
  const server = new McpServer({ name: 'ts-drift', version: '1.32.2' });
  const echo = server.registerTool(
    'echo',
    { description: 'Echoes.', inputSchema: { text: z.string().optional() } },
    async ({ text }) => ({ content: [{ type: 'text', text: text ?? '' }] }),
  );
  const gone = server.registerTool(
    'gone',
    { description: 'Removed by `change`.', inputSchema: {} },
    async () => ({ content: [{ type: 'text', text: 'here' }] }),
  );
  server.registerTool(
    'change',
    { description: 'Changes the tool list.', inputSchema: {} },
    async () => {
      echo.update({ paramsSchema: { text: z.string() } });
      gone.remove();
      return { content: [{ type: 'text', text: 'changed' }] };
    },
  );
  server.registerTool(
    'change_here',
    {
      description: 'Changes the tool list as `change` does, announced only on this call\'s own response stream.',
      inputSchema: {},
    },
    async (_args, extra) => {
      // update() and remove() announce on the GET stream by themselves: silence them, then
      // announce with the request's own notification sender (the POST response stream).
      const announce = server.sendToolListChanged;
      server.sendToolListChanged = () => {};
      try {
        echo.update({ paramsSchema: { text: z.string() } });
        gone.remove();
      } finally {
        server.sendToolListChanged = announce;
      }
      await extra.sendNotification({ method: 'notifications/tools/list_changed' });
      return { content: [{ type: 'text', text: 'changed' }] };
    },
  );
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    onsessioninitialized: onOpen,
  });
  return { server, transport };
}

const sessions = new Map();

const httpServer = http.createServer(async (req, res) => {
  let body;
  if (req.method === 'POST') {
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    body = JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null');
    if (body?.method === 'tools/list') event({ event: 'list' });
  }
  if (req.method === 'GET') event({ event: 'stream' });
  const id = req.headers['mcp-session-id'];
  let entry = id ? sessions.get(id) : undefined;
  if (!entry) {
    if (req.method !== 'POST' || body?.method !== 'initialize') {
      res.writeHead(id ? 404 : 400).end();
      return;
    }
    const opened = session((sid) => sessions.set(sid, opened));
    entry = opened;
    await entry.server.connect(entry.transport);
  }
  await entry.transport.handleRequest(req, res, body);
});

httpServer.listen(0, '127.0.0.1', () => {
  console.log(`http://127.0.0.1:${httpServer.address().port}/mcp`);
});
