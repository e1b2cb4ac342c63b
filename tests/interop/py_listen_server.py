"""An MCP server on the official Python SDK (`mcp` 2.3.0) whose tool list changes on command,
for the `subscriptions/listen` (2026-07-28, SEP-2575) interop tests.

Usage: py_listen_server.py PORT   (0 = any free port)

Streamable HTTP, plain http on 127.0.0.1, both protocol eras as the SDK serves them (a
2026-07-28 `MCP-Protocol-Version` header takes the stateless path; otherwise the legacy
stateful session). `tools/list` carries `ttlMs: 60000` in the 2026-07-28 era, so a client that
re-lists only when the ttl runs out cannot notice the change within a test; only the listen
stream tells it.

Tools: `echo {text}` -> the text; `greet {name}` -> "Hello, NAME!".

stdout, one line each, flushed:
  ready http://127.0.0.1:PORT/mcp     once, when the server accepts connections
  {"request": METHOD, "tool": NAME}   for every JSON-RPC request the server dispatches
                                      (`tool` is the tools/call name, otherwise null)
  changed                             after a `change` command took effect
stdin, one command a line:
  change   replace `greet` with a breaking version (argument `full_name` required, `name`
           gone) and publish a tools list change to every open listen stream
EOF on stdin ends the open listen streams gracefully and stops the server.

Legacy sessions are not told: the SDK's subscription bus feeds only listen streams, and its
legacy `initialize` result does not advertise `tools.listChanged`.
"""
import json
import socket
import sys

import anyio
import uvicorn
from mcp.server.caching import CacheHint
from mcp.server.mcpserver import MCPServer
from mcp.server.subscriptions import InMemorySubscriptionBus, ToolsListChanged


def say(line: str) -> None:
    print(line, flush=True)


async def log_requests(ctx, call_next):
    """SDK middleware: sees every inbound request and notification before validation."""
    if ctx.request_id is not None:  # a request, not a notification
        params = ctx.params or {}
        tool = params.get("name") if ctx.method == "tools/call" else None
        say(json.dumps({"request": ctx.method, "tool": tool}))
    return await call_next(ctx)


bus = InMemorySubscriptionBus()
server = MCPServer(
    "py-listen",
    version="2.3.0",
    log_level="WARNING",
    subscriptions=bus,  # our own bus, so we can publish from outside a request
    cache_hints={"tools/list": CacheHint(ttl_ms=60_000)},
    middleware=[log_requests],
)


@server.tool(structured_output=False)
def echo(text: str) -> str:
    """Returns the text."""
    return text


@server.tool(structured_output=False)
def greet(name: str) -> str:
    """Greets someone by name."""
    return f"Hello, {name}!"


async def change() -> None:
    def greet(full_name: str) -> str:  # the breaking version
        """Greets someone by full name."""
        return f"Hello, {full_name}!"

    server.remove_tool("greet")
    server.add_tool(greet, structured_output=False)
    await bus.publish(ToolsListChanged())  # to every open listen stream


async def main(port: int) -> None:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    port = sock.getsockname()[1]
    config = uvicorn.Config(server.streamable_http_app(), log_level="warning", lifespan="on",
                            timeout_graceful_shutdown=1)  # open listen streams never end by themselves
    http = uvicorn.Server(config)
    async with anyio.create_task_group() as tg:
        tg.start_soon(http.serve, [sock])
        while not http.started:
            await anyio.sleep(0.01)
        say(f"ready http://127.0.0.1:{port}/mcp")
        async for line in anyio.wrap_file(sys.stdin):
            command = line.strip()
            if command == "change":
                await change()
                say("changed")
            elif command:
                print(f"unknown command: {command!r}", file=sys.stderr, flush=True)
        # End every listen stream gracefully (its final frame is the SubscriptionsListenResult),
        # so uvicorn need not wait for them. MCPServer keeps its ListenHandler on the lowlevel server.
        server._lowlevel_server.get_request_handler("subscriptions/listen").handler.close()
        http.should_exit = True


anyio.run(main, int(sys.argv[1]))
