// An MCP server on the official TypeScript SDK v2 (@modelcontextprotocol/server), serving
// both protocol eras (createMcpHandler: 2026-07-28, and stateless 2025 serving as fallback)
// over HTTPS on 127.0.0.1 with a Bearer token, for the client's interop tests.
//
// Usage: node ts_tls_server.mjs CERT.pem KEY.pem TOKEN [modern-only]
// (`modern-only`: the legacy handshake is refused, `createMcpHandler`'s `legacy: 'reject'`.)
// Prints its URL (https://localhost:PORT/mcp) on the first line of stdout, then one JSON line
// per event the tests observe:
//   {"event":"started","tool":"slow","id":ID,"ms":MS}   a call of `slow` runs;
//   {"event":"aborted","tool":"slow","id":ID}   its signal aborted (in the legacy era only by
//                                               the response stream closing: each POST has a
//                                               stateless server of its own);
//   {"event":"cancelled","requestId":ID,"reason":TEXT}   a notifications/cancelled came in.
import https from 'node:https';
import fs from 'node:fs';
import { McpServer, createMcpHandler } from '@modelcontextprotocol/server';
import * as z from 'zod';

const [cert, key, token, mode] = process.argv.slice(2);

function factory() {
  const server = new McpServer({ name: 'ts-v2-tls', version: '2.4.0' });
  server.registerTool(
    'add',
    {
      description: 'Adds two numbers.',
      inputSchema: z.object({ a: z.number(), b: z.number() }),
      outputSchema: z.object({ sum: z.number() }),
    },
    async ({ a, b }) => ({
      content: [{ type: 'text', text: JSON.stringify({ sum: a + b }) }],
      structuredContent: { sum: a + b },
    }),
  );
  server.registerTool(
    'count',
    {
      description: 'Counts to n, with a progress notification per step.',
      inputSchema: z.object({ n: z.number().int() }),
    },
    async ({ n }, ctx) => {
      const meta = ctx?.mcpReq?._meta ?? ctx?.mcpReq?.meta ?? {};
      const progressToken = meta.progressToken;
      for (let i = 1; i <= n; i++) {
        if (progressToken !== undefined) {
          await ctx.mcpReq.notify({
            method: 'notifications/progress',
            params: { progressToken, progress: i, total: n, message: `step ${i}` },
          });
        }
      }
      return { content: [{ type: 'text', text: `counted to ${n}` }] };
    },
  );
  server.registerTool(
    'summarize',
    {
      description: 'Counts and sums lengths, and sorts each into small (under 10) or large.',
      inputSchema: z.object({
        values: z.array(z.number()),
        unit: z.enum(['m', 'km']).default('m'),
        label: z.string().optional(),
      }),
      outputSchema: z.object({
        count: z.number().int(),
        total: z.number(),
        unit: z.enum(['m', 'km']),
        label: z.string().optional(),
        items: z.array(z.object({ value: z.number(), size: z.enum(['small', 'large']) })),
      }),
    },
    async ({ values, unit, label }) => {
      const summary = {
        count: values.length,
        total: values.reduce((a, b) => a + b, 0),
        unit,
        ...(label === undefined ? {} : { label }),
        items: values.map((value) => ({ value, size: value < 10 ? 'small' : 'large' })),
      };
      return {
        content: [{ type: 'text', text: JSON.stringify(summary) }],
        structuredContent: summary,
      };
    },
  );
  server.registerTool(
    'slow',
    {
      description: 'Waits ms milliseconds (default 60 s), or until cancelled.',
      inputSchema: z.object({ ms: z.number().int().optional() }),
    },
    async ({ ms }, ctx) => {
      const signal = ctx?.mcpReq?.signal;
      console.log(JSON.stringify({ event: 'started', tool: 'slow', id: ctx?.mcpReq?.id, ms: ms ?? null }));
      await new Promise((resolve) => {
        const aborted = () => {
          clearTimeout(timer);
          console.log(JSON.stringify({ event: 'aborted', tool: 'slow', id: ctx?.mcpReq?.id }));
          resolve();
        };
        const timer = setTimeout(resolve, ms ?? 60000);
        if (signal?.aborted) aborted();
        else signal?.addEventListener('abort', aborted);
      });
      return { content: [{ type: 'text', text: 'finished' }] };
    },
  );
  return server;
}

const handler = createMcpHandler(factory, mode === 'modern-only' ? { legacy: 'reject' } : {});

const server = https.createServer({ cert: fs.readFileSync(cert), key: fs.readFileSync(key) }, async (req, res) => {
  if (req.headers.authorization !== `Bearer ${token}`) {
    res.writeHead(401, { 'WWW-Authenticate': 'Bearer realm="mcp"' });
    res.end();
    return;
  }
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  let message;
  try {
    message = JSON.parse(Buffer.concat(chunks).toString());
  } catch {
    message = undefined;
  }
  if (message?.method === 'notifications/cancelled') {
    const { requestId, reason } = message.params ?? {};
    console.log(JSON.stringify({ event: 'cancelled', requestId, reason }));
  }
  const abort = new AbortController();
  res.on('close', () => abort.abort());
  const request = new Request(`https://localhost${req.url}`, {
    method: req.method,
    headers: req.headers,
    body: req.method === 'GET' || req.method === 'HEAD' ? undefined : Buffer.concat(chunks),
    signal: abort.signal,
  });
  let response;
  try {
    response = await handler.fetch(request);
  } catch (e) {
    res.writeHead(500);
    res.end(String(e));
    return;
  }
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (response.body) {
    try {
      for await (const chunk of response.body) res.write(chunk);
    } catch {
      // the client went away
    }
  }
  res.end();
});

server.listen(0, '127.0.0.1', () => {
  console.log(`https://localhost:${server.address().port}/mcp`);
});
