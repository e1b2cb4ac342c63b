// An MCP server on the official TypeScript SDK v1 (@modelcontextprotocol/sdk) with its
// experimental tasks (MCP 2025-11-25), stateful Streamable HTTP on 127.0.0.1. It declares the
// `tasks` capability (list, cancel, tools/call) and serves:
//   bake  {loaves: integer 1..100}  taskSupport 'required'; after ~300 ms the task completes with
//                                   structuredContent {loaves, crust: "golden"} (outputSchema
//                                   {loaves: number, crust: string}) and the same JSON as text;
//   slow  {ms: integer}             taskSupport 'optional'; completes after `ms` ms with the text
//                                   `slept {ms}`; tasks/cancel stops it (status `cancelled`);
//   hello {name: string}            a plain tool (never a task): text `hello {name}`.
// Tasks live in one store shared by all sessions, so a client that reconnects with a new
// session still finds its task by id (tasks/get, tasks/result, tasks/list, tasks/cancel).
//
// Usage: node ts_task_server.mjs. Prints its URL (http://127.0.0.1:PORT/mcp) on the first line
// of stdout and nothing else.
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks';
import { z } from 'zod';

const TTL_MS = 60_000;
const POLL_INTERVAL_MS = 100;

// Pending work, by task id: the timer that will store the task's result.
const timers = new Map();

// The SDK passes every task-store call the session id of the request, and InMemoryTaskStore
// binds a task to the session that created it (another session gets "Task not found"). This
// store drops the session id, so a task belongs to the server process, not to a session.
// Cancelling a task also stops its pending work.
class SharedTaskStore extends InMemoryTaskStore {
  createTask(params, requestId, request) {
    return super.createTask(params, requestId, request);
  }
  getTask(taskId) {
    return super.getTask(taskId);
  }
  storeTaskResult(taskId, status, result) {
    return super.storeTaskResult(taskId, status, result);
  }
  getTaskResult(taskId) {
    return super.getTaskResult(taskId);
  }
  async updateTaskStatus(taskId, status, statusMessage) {
    await super.updateTaskStatus(taskId, status, statusMessage);
    if (status === 'cancelled') {
      clearTimeout(timers.get(taskId));
      timers.delete(taskId);
    }
  }
  listTasks(cursor) {
    return super.listTasks(cursor);
  }
}

const taskStore = new SharedTaskStore();

// Creates a task for the current tools/call and completes it with `result` after `ms` ms. The
// result goes straight into the shared store (the session that made the task may be gone by
// then), so no notifications/tasks/status is sent: clients poll tasks/get, or block on
// tasks/result, which the SDK answers only once the task is terminal.
async function startTask(extra, ms, result) {
  const task = await extra.taskStore.createTask({
    ttl: extra.taskRequestedTtl ?? TTL_MS,
    pollInterval: POLL_INTERVAL_MS,
  });
  timers.set(task.taskId, setTimeout(() => {
    timers.delete(task.taskId);
    taskStore.storeTaskResult(task.taskId, 'completed', result).catch(() => {});
  }, ms));
  return { task };
}

// tasks/get and tasks/result are answered by the SDK from the store; these handlers are only
// the ToolTaskHandler's required members.
const fromStore = {
  getTask: async (_args, extra) => extra.taskStore.getTask(extra.taskId),
  getTaskResult: async (_args, extra) => extra.taskStore.getTaskResult(extra.taskId),
};

function session(onOpen) {
  const server = new McpServer(
    { name: 'ts-tasks', version: '1.32.2' },
    {
      capabilities: { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } },
      taskStore,
    },
  );
  server.experimental.tasks.registerToolTask(
    'bake',
    {
      description: 'Bakes loaves; always runs as a task.',
      inputSchema: { loaves: z.number().int().min(1).max(100) },
      outputSchema: { loaves: z.number(), crust: z.string() },
      execution: { taskSupport: 'required' },
    },
    {
      createTask: async ({ loaves }, extra) => {
        const structuredContent = { loaves, crust: 'golden' };
        return startTask(extra, 300, {
          content: [{ type: 'text', text: JSON.stringify(structuredContent) }],
          structuredContent,
        });
      },
      ...fromStore,
    },
  );
  server.experimental.tasks.registerToolTask(
    'slow',
    {
      description: 'Sleeps `ms` milliseconds; may run as a task, cancellable.',
      inputSchema: { ms: z.number().int().min(0) },
      execution: { taskSupport: 'optional' },
    },
    {
      createTask: async ({ ms }, extra) =>
        startTask(extra, ms, { content: [{ type: 'text', text: `slept ${ms}` }] }),
      ...fromStore,
    },
  );
  server.registerTool(
    'hello',
    { description: 'Greets.', inputSchema: { name: z.string() } },
    async ({ name }) => ({ content: [{ type: 'text', text: `hello ${name}` }] }),
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
  }
  const id = req.headers['mcp-session-id'];
  let entry = id ? sessions.get(id) : undefined;
  if (!entry) {
    if (req.method !== 'POST' || body?.method !== 'initialize') {
      res.writeHead(id ? 404 : 400).end();
      return;
    }
    const opened = session((sid) => sessions.set(sid, opened));
    opened.transport.onclose = () => sessions.delete(opened.transport.sessionId);
    entry = opened;
    await entry.server.connect(entry.transport);
  }
  await entry.transport.handleRequest(req, res, body);
});

httpServer.listen(0, '127.0.0.1', () => {
  console.log(`http://127.0.0.1:${httpServer.address().port}/mcp`);
});
