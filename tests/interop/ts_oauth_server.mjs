// An MCP server behind OAuth, built from the official TypeScript SDK (v1): its authorization
// router with the SDK's in-memory demo provider (it approves at once and redirects), its
// protected resource metadata, its bearer middleware, and a stateless Streamable HTTP endpoint
// with one tool that has an outputSchema; over HTTPS with the certificate the test made.
// `node ts_oauth_server.mjs CERT KEY` prints its MCP URL once it listens.
import fs from 'node:fs';
import https from 'node:https';
import express from 'express';
import { z } from 'zod';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  mcpAuthRouter,
  getOAuthProtectedResourceMetadataUrl,
} from '@modelcontextprotocol/sdk/server/auth/router.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import { DemoInMemoryAuthProvider } from '@modelcontextprotocol/sdk/examples/server/demoInMemoryOAuthProvider.js';

const [cert, key] = process.argv.slice(2);
const app = express();
const server = https.createServer(
  { cert: fs.readFileSync(cert), key: fs.readFileSync(key) },
  app,
);
server.listen(0, '127.0.0.1', () => {
  const base = new URL(`https://localhost:${server.address().port}/`);
  const mcpUrl = new URL('/mcp', base);
  const provider = new DemoInMemoryAuthProvider();
  app.use(mcpAuthRouter({ provider, issuerUrl: base, resourceServerUrl: mcpUrl }));
  const auth = requireBearerAuth({
    verifier: provider,
    resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(mcpUrl),
  });
  app.post('/mcp', express.json(), auth, async (req, res) => {
    const mcp = new McpServer({ name: 'sdk-oauth', version: '1.0.0' });
    mcp.registerTool(
      'add',
      {
        description: 'Adds two numbers.',
        inputSchema: { a: z.number(), b: z.number() },
        outputSchema: { sum: z.number() },
      },
      async ({ a, b }) => ({
        content: [{ type: 'text', text: String(a + b) }],
        structuredContent: { sum: a + b },
      }),
    );
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    res.on('close', () => {
      transport.close();
      mcp.close();
    });
    await mcp.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  app.all('/mcp', (req, res) => res.status(405).end());
  console.log(mcpUrl.href);
});
