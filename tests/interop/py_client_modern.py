"""The official Python `mcp` client's high-level `Client` (auto version negotiation, its
default) against an mcp-bindgen server: it probes with server/discover and, finding
2026-07-28, stays stateless; lists tools, calls a tool with structured output, a failing tool,
an unknown tool, and a tool that reports progress. Prints one JSON object.
Usage: py_client_modern.py URL"""
import asyncio
import json
import sys

from mcp import Client


def dump(result):
    return result.model_dump(mode="json", by_alias=True, exclude_none=True)


async def main(url):
    async with Client(url, mode="auto") as client:
        tools = await client.list_tools()
        add = await client.call_tool("add", {"a": 2, "b": 3.5})
        failing = await client.call_tool("test_error_handling", {})
        try:
            await client.call_tool("no_such_tool", {})
            unknown = None
        except Exception as e:  # the SDK raises on a JSON-RPC error
            error = getattr(e, "error", None)
            unknown = {"code": getattr(error, "code", getattr(e, "code", None)), "message": str(e)}
        progress = []

        async def on_progress(done, total, message):
            progress.append({"progress": done, "total": total})

        with_progress = await client.call_tool(
            "test_tool_with_progress", {}, progress_callback=on_progress
        )
        info = client.server_info
        print(json.dumps({
            "server": dump(info) if info is not None else None,
            "protocol": client.protocol_version,
            "tools": [t.name for t in tools.tools],
            "add": dump(add),
            "failing": dump(failing),
            "unknown": unknown,
            "withProgress": dump(with_progress),
            "progress": progress,
        }))


asyncio.run(main(sys.argv[1]))
