"""The official Python `mcp` client's high-level `Client` (`mcp` 2.3.0), pinned to protocol
2026-07-28 (no discover probe, no fallback to the initialize handshake), listening for tool
list changes with `subscriptions/listen` (SEP-2575) against an MCP server.

Usage: py_listen_client.py URL

stdout, one line each, flushed:
  listening                  the server acknowledged `{"toolsListChanged": true}`
  heard tools/list_changed   a `notifications/tools/list_changed` arrived on the listen stream
  tools ["a","b",...]        then the tool names from a fresh `tools/list`, in the server's order
and exit 0. Any failure (the server does not speak 2026-07-28, rejects or drops the listen,
no ack or no change within 30 s each): a message on stderr and exit 1.
"""
import asyncio
import json
import sys

import anyio
from mcp import Client
from mcp.client.subscriptions import ToolsListChanged
from mcp.shared.exceptions import MCPError

TIMEOUT = 30


async def main(url: str) -> None:
    # A version pin adopts 2026-07-28 without probing: every request carries it, and a server
    # that does not serve it fails the first one (the listen). The read timeout bounds the ack.
    async with Client(url, mode="2026-07-28", read_timeout_seconds=TIMEOUT) as client:
        async with client.listen(tools_list_changed=True) as subscription:  # returns after the ack
            if not subscription.honored.tools_list_changed:
                raise RuntimeError(f"the ack left out toolsListChanged: {subscription.honored!r}")
            print("listening", flush=True)
            with anyio.move_on_after(TIMEOUT) as waiting:
                async for event in subscription:
                    if isinstance(event, ToolsListChanged):
                        break
                else:  # a graceful end: the server sent the listen result
                    raise RuntimeError("the server ended the listen stream before a tools change")
            if waiting.cancelled_caught:
                raise RuntimeError(f"no notifications/tools/list_changed within {TIMEOUT} s")
            print("heard tools/list_changed", flush=True)
        tools = await client.list_tools(cache_mode="refresh")
        print("tools " + json.dumps([tool.name for tool in tools.tools], separators=(",", ":")), flush=True)


def causes(error: BaseException):
    """The leaf exceptions of an (anyio task group's) exception group."""
    if isinstance(error, BaseExceptionGroup):
        for inner in error.exceptions:
            yield from causes(inner)
    else:
        yield error


try:
    asyncio.run(main(sys.argv[1]))
except Exception as error:  # report whatever it was, then fail
    for cause in causes(error):
        code = f" {cause.code}" if isinstance(cause, MCPError) else ""
        print(f"py_listen_client: {type(cause).__name__}{code}: {cause or 'timed out'}", file=sys.stderr)
    sys.exit(1)
