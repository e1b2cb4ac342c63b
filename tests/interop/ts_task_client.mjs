// The official TypeScript SDK v1 client (@modelcontextprotocol/sdk) against an mcp-bindgen
// server's tasks (MCP 2025-11-25), through the SDK's experimental client task API
// (client.experimental.tasks: callToolStream, getTask, getTaskResult, cancelTask, listTasks).
// Against conformance_host it:
//   lists the tools and records the execution.taskSupport of slow_compute and failing_job;
//   calls slow_compute {seconds: 1, label: "x"} as a task: its taskId, the statuses seen while
//   polling, the final result's text;
//   calls failing_job as a task: its final status and the result's isError;
//   starts slow_compute {seconds: 30, label: "long"} as a task, cancels it with tasks/cancel and
//   records the status tasks/get then reports;
//   counts the tasks tasks/list returns (all pages).
//
// Usage: node ts_task_client.mjs URL. Prints one JSON line, e.g.
//   {"protocol":"2025-11-25","taskSupport":{"slow_compute":"optional","failing_job":"required"},
//    "slow":{"taskId":"…","statuses":["working","completed"],"text":"…"},
//    "failing":{"status":"failed","isError":true},"cancelled":"cancelled","listed":3}
// On failure exits 1 with a message on stderr. With MCP_TRACE=1 it also logs every JSON-RPC
// message to stderr (`>` sent, `<` received).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';

const url = process.argv[2];
if (!url) {
  console.error('usage: node ts_task_client.mjs URL');
  process.exit(2);
}

const transport = new StreamableHTTPClientTransport(new URL(url));
if (process.env.MCP_TRACE) traceMessages(transport);
const client = new Client({ name: 'ts-task-interop', version: '1.0.0' });
const tasks = client.experimental.tasks;

// Logs the JSON-RPC messages the transport sends and delivers.
function traceMessages(t) {
  const log = (dir, message) => console.error(dir, JSON.stringify(message));
  const send = t.send.bind(t);
  t.send = (message, options) => (log('>', message), send(message, options));
  let deliver;
  Object.defineProperty(t, 'onmessage', {
    get: () => deliver && ((message, extra) => (log('<', message), deliver(message, extra))),
    set: (handler) => { deliver = handler; },
  });
}

// Runs a tool through callToolStream (the SDK adds `task: {}` for tools whose taskSupport is
// 'optional' or 'required', then polls tasks/get and fetches tasks/result). Returns the task
// id, the statuses seen (creation included, repeats dropped) and the last stream message.
async function runTask(name, args) {
  let taskId;
  const statuses = [];
  let last;
  for await (const message of tasks.callToolStream({ name, arguments: args })) {
    if (message.type === 'taskCreated' || message.type === 'taskStatus') {
      taskId ??= message.task.taskId;
      if (statuses.at(-1) !== message.task.status) statuses.push(message.task.status);
    }
    last = message;
  }
  if (taskId === undefined) throw new Error(`${name}: the call did not create a task`);
  return { taskId, statuses, last };
}

function text(result) {
  return result.content.filter((c) => c.type === 'text').map((c) => c.text).join('');
}

async function main() {
  await client.connect(transport);
  const serverTasks = client.getServerCapabilities()?.tasks;
  if (!serverTasks?.requests?.tools?.call) {
    throw new Error(`server does not declare capabilities.tasks.requests.tools.call: ${JSON.stringify(serverTasks)}`);
  }

  const { tools } = await client.listTools();
  const taskSupport = {};
  for (const name of ['slow_compute', 'failing_job']) {
    const tool = tools.find((t) => t.name === name);
    if (!tool) throw new Error(`tools/list has no ${name}`);
    taskSupport[name] = tool.execution?.taskSupport ?? null;
  }

  const slowRun = await runTask('slow_compute', { seconds: 1, label: 'x' });
  if (slowRun.last.type !== 'result') throw new Error(`slow_compute: ${slowRun.last.error?.message}`);
  const slow = { taskId: slowRun.taskId, statuses: slowRun.statuses, text: text(slowRun.last.result) };

  // A task that ends `failed` makes callToolStream yield an error without the payload; the
  // CallToolResult (isError) is then read with tasks/result, as the spec allows.
  const failRun = await runTask('failing_job', {});
  const failStatus = failRun.statuses.at(-1);
  let failResult;
  if (failRun.last.type === 'result') failResult = failRun.last.result;
  else if (failStatus === 'failed') failResult = await tasks.getTaskResult(failRun.taskId, CallToolResultSchema);
  else throw new Error(`failing_job: ${failRun.last.error?.message}`);
  const failing = { status: failStatus, isError: failResult.isError ?? false };

  // Take only the taskCreated message, then stop the stream's polling and cancel the task.
  const stream = tasks.callToolStream({ name: 'slow_compute', arguments: { seconds: 30, label: 'long' } });
  const first = (await stream.next()).value;
  await stream.return();
  if (first?.type !== 'taskCreated') throw new Error(`slow_compute (long): ${first?.error?.message ?? first?.type}`);
  const cancelReply = await tasks.cancelTask(first.task.taskId);
  const after = await tasks.getTask(first.task.taskId);
  if (cancelReply.status !== after.status) {
    throw new Error(`tasks/cancel answered ${cancelReply.status} but tasks/get then says ${after.status}`);
  }

  let listed = 0;
  let cursor;
  do {
    const page = await tasks.listTasks(cursor);
    listed += page.tasks.length;
    cursor = page.nextCursor;
  } while (cursor);

  console.log(JSON.stringify({
    protocol: transport.protocolVersion ?? null,
    taskSupport,
    slow,
    failing,
    cancelled: after.status,
    listed,
  }));
}

try {
  await main();
} catch (e) {
  console.error(`ts_task_client: ${e?.stack ?? e}`);
  process.exitCode = 1;
} finally {
  await client.close().catch(() => {});
}
