// An MCP server on the official TypeScript SDK v2 (@modelcontextprotocol/server 2.4.0) whose
// tool list changes on command, for the `subscriptions/listen` (2026-07-28, SEP-2575) interop
// tests. Same command line and stdin/stdout protocol as py_listen_server.py.
//
// Usage: node ts_listen_server.mjs PORT   (0 = any free port)
//
// Streamable HTTP, plain http on 127.0.0.1, path /mcp, both protocol eras as createMcpHandler
// serves them (2026-07-28 per-request envelope traffic on the modern path, including
// `server/discover` and `subscriptions/listen`; anything else through the stateless 2025
// fallback). `tools/list` carries `ttlMs: 60000` in the 2026-07-28 era, so a client that
// re-lists only when the ttl runs out cannot notice the change within a test; only the listen
// stream tells it.
//
// Tools: `echo {text}` -> the text; `greet {name}` -> "Hello, NAME!".
//
// stdout, one line each:
//   ready http://127.0.0.1:PORT/mcp     once, when the server accepts connections
//   {"request": METHOD, "tool": NAME}   for every JSON-RPC request (with an id) POSTed to the
//                                       server, each member of a batch on its own line
//                                       (`tool` is the tools/call name, otherwise null)
//   changed                             after a `change` command took effect
// stdin, one command a line:
//   change   replace `greet` with a breaking version (argument `full_name` required, `name`
//            gone) and publish a tools list change to every open listen stream
// EOF on stdin ends the open listen streams gracefully (their final frame is the listen
// result) and stops the server.
//
// The handler builds a fresh McpServer per HTTP request, so the tool state lives here, in the
// factory's closure, and the change is announced on the handler's bus (`handler.notify`);
// `McpServer.sendToolListChanged()` would reach no listen stream. Legacy clients are never
// told: the stateless fallback answers GET with 405, though its `initialize` result does
// advertise `tools.listChanged` (unlike the Python SDK's).
import http from 'node:http';
import readline from 'node:readline';
import { McpServer, createMcpHandler } from '@modelcontextprotocol/server';
import * as z from 'zod';

const say = (line) => process.stdout.write(`${line}\n`);
const text = (t) => ({ content: [{ type: 'text', text: t }] });

let changed = false; // whether `greet` is the breaking version

function factory() {
  const server = new McpServer(
    { name: 'ts-listen', version: '2.4.0' },
    { cacheHints: { 'tools/list': { ttlMs: 60000 } } },
  );
  server.registerTool(
    'echo',
    { description: 'Returns the text.', inputSchema: z.object({ text: z.string() }) },
    async ({ text: t }) => text(t),
  );
  if (changed) {
    server.registerTool(
      'greet',
      { description: 'Greets someone by full name.', inputSchema: z.object({ full_name: z.string() }) },
      async ({ full_name }) => text(`Hello, ${full_name}!`),
    );
  } else {
    server.registerTool(
      'greet',
      { description: 'Greets someone by name.', inputSchema: z.object({ name: z.string() }) },
      async ({ name }) => text(`Hello, ${name}!`),
    );
  }
  return server;
}

const handler = createMcpHandler(factory);

function logRequests(body) {
  let message;
  try {
    message = JSON.parse(body.toString('utf8'));
  } catch {
    return; // not JSON: the SDK answers it
  }
  for (const m of Array.isArray(message) ? message : [message]) {
    if (typeof m?.method !== 'string' || m.id === undefined || m.id === null) continue;
    const tool = m.method === 'tools/call' ? (m.params?.name ?? null) : null;
    say(JSON.stringify({ request: m.method, tool }));
  }
}

const httpServer = http.createServer(async (req, res) => {
  if (new URL(req.url, 'http://127.0.0.1').pathname !== '/mcp') {
    res.writeHead(404).end();
    return;
  }
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  const body = Buffer.concat(chunks);
  if (req.method === 'POST') logRequests(body);
  const abort = new AbortController();
  res.on('close', () => abort.abort());
  let response;
  try {
    response = await handler.fetch(
      new Request(`http://127.0.0.1${req.url}`, {
        method: req.method,
        headers: req.headers,
        body: req.method === 'GET' || req.method === 'HEAD' ? undefined : body,
        signal: abort.signal,
      }),
    );
  } catch (e) {
    res.writeHead(500).end(String(e));
    return;
  }
  res.writeHead(response.status, Object.fromEntries(response.headers));
  res.flushHeaders();
  if (response.body) {
    try {
      for await (const chunk of response.body) res.write(chunk);
    } catch {
      // the client went away
    }
  }
  res.end();
});

httpServer.listen(Number(process.argv[2] ?? 0), '127.0.0.1', () => {
  say(`ready http://127.0.0.1:${httpServer.address().port}/mcp`);
  const commands = readline.createInterface({ input: process.stdin });
  commands.on('line', (line) => {
    const command = line.trim();
    if (command === 'change') {
      changed = true; // every server the factory builds from now on has the breaking greet
      handler.notify.toolsChanged(); // to every open listen stream
      say('changed');
    } else if (command) {
      process.stderr.write(`unknown command: ${JSON.stringify(command)}\n`);
    }
  });
  commands.on('close', async () => {
    await handler.close(); // ends each listen stream with its SubscriptionsListenResult
    httpServer.close(() => process.exit(0));
    httpServer.closeIdleConnections();
    setTimeout(() => process.exit(0), 1000).unref(); // connections a client keeps open
  });
});
