"""The official Python `mcp` client against an mcp-bindgen server: connect, list tools, call a
tool with structured output, a failing tool (isError) and an unknown tool (a JSON-RPC error).
Prints one JSON object. Usage: py_client.py URL"""
import asyncio
import json
import sys

from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client


def dump(result):
    return result.model_dump(mode="json", by_alias=True, exclude_none=True)


async def main(url):
    async with streamable_http_client(url) as streams:
        read, write = streams[0], streams[1]
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            tools = await session.list_tools()
            add = await session.call_tool("add", {"a": 2, "b": 3.5})
            failing = await session.call_tool("test_error_handling", {})
            try:
                await session.call_tool("no_such_tool", {})
                unknown = None
            except Exception as e:  # the SDK raises on a JSON-RPC error
                error = getattr(e, "error", None)
                unknown = {"code": getattr(error, "code", None), "message": str(e)}
            print(json.dumps({
                "server": dump(init.server_info),
                "protocol": init.protocol_version,
                "tools": [t.name for t in tools.tools],
                "add": dump(add),
                "failing": dump(failing),
                "unknown": unknown,
            }))


asyncio.run(main(sys.argv[1]))
