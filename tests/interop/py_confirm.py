"""The official Python `mcp` client's elicitation handler answering a game tool that asks the
player to confirm (`clear_level`), in the era `MODE` names: `legacy` (the initialize
handshake: the question arrives as an elicitation/create request on the call's stream) or
`auto` (2026-07-28: the call answers input_required and the client retries with the answer).
The handler answers `ok` = ANSWER ("yes" or "no"). Prints one JSON object.
Usage: py_confirm.py URL MODE ANSWER"""
import asyncio
import json
import sys

from mcp import Client
from mcp import types


def dump(result):
    return result.model_dump(mode="json", by_alias=True, exclude_none=True)


async def main(url, mode, answer):
    asked = []

    async def on_elicit(context, params):
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"ok": answer == "yes"})

    async with Client(url, mode=mode, elicitation_callback=on_elicit) as client:
        result = await client.call_tool("clear_level", {"level": 4})
        print(json.dumps({
            "protocol": client.protocol_version,
            "asked": asked,
            "result": dump(result),
        }))


asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3]))
