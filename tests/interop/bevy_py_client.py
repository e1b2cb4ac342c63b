"""The official Python `mcp` clients against examples/bevy-game: `legacy` (ClientSession, the
initialize handshake) or `modern` (the high-level Client, auto negotiation: 2026-07-28). Lists
the tools and calls the built-ins: ping, components_info, query, insert then get, pause, step
with progress, resume, and a get naming an unknown type (a tool error). Prints one JSON object.
Usage: bevy_py_client.py legacy|modern URL"""
import asyncio
import json
import sys

from mcp import Client, ClientSession
from mcp.client.streamable_http import streamable_http_client

POSITION = "mcp_bindgen_example_bevy::Position"
HEALTH = "mcp_bindgen_example_bevy::Health"


def dump(result):
    return result.model_dump(mode="json", by_alias=True, exclude_none=True)


async def drive(client, protocol):
    tools = await client.list_tools()
    out = {"protocol": protocol, "tools": [t.name for t in tools.tools]}
    out["ping"] = dump(await client.call_tool("ping", {}))
    out["info"] = dump(await client.call_tool("components_info", {"filter": "Position"}))
    out["query"] = dump(await client.call_tool("query", {"with": [POSITION], "limit": 2}))
    entity = out["query"]["structuredContent"]["entities"][0]["entity"]
    out["insert"] = dump(await client.call_tool(
        "insert", {"entity": entity, "components": {HEALTH: {"current": 3, "max": 4}}}))
    out["get"] = dump(await client.call_tool("get", {"entity": entity, "components": [HEALTH]}))
    out["pause"] = dump(await client.call_tool("pause", {}))
    progress = []

    async def on_progress(done, total, message):
        progress.append(done)

    out["step"] = dump(await client.call_tool("step", {"frames": 3}, progress_callback=on_progress))
    out["progress"] = progress
    out["resume"] = dump(await client.call_tool("resume", {}))
    out["bad"] = dump(await client.call_tool("get", {"entity": entity, "components": ["game::Nope"]}))
    return out


async def main(mode, url):
    if mode == "legacy":
        async with streamable_http_client(url) as streams:
            async with ClientSession(streams[0], streams[1]) as session:
                init = await session.initialize()
                out = await drive(session, init.protocol_version)
    else:
        async with Client(url, mode="auto") as client:
            out = await drive(client, None)
            out["protocol"] = client.protocol_version
    print(json.dumps(out))


asyncio.run(main(sys.argv[1], sys.argv[2]))
