"""An MCP server on the official Python SDK (`mcp` 2.3.0), serving both protocol eras
(`streamable_http_app(stateless_http=True)`, SSE answers) over HTTPS on 127.0.0.1 with a
Bearer token, for the client's interop tests.

Usage: py_tls_server.py CERT.pem KEY.pem TOKEN
Prints its URL (https://localhost:PORT/mcp) on the first line of stdout."""
import socket
import sys
from typing import Literal

from typing_extensions import TypedDict  # pydantic needs it for TypedDicts on Python < 3.12

import uvicorn
from mcp.server.mcpserver import Context, MCPServer
from mcp.types import Completion

cert, key, token = sys.argv[1:4]
server = MCPServer("py-tls", version="2.3.0")


class Sum(TypedDict):
    sum: float


@server.tool()
def add(a: float, b: float) -> Sum:
    """Adds two numbers."""
    return {"sum": a + b}


@server.tool()
async def count(n: int, ctx: Context) -> str:
    """Counts to n, with a progress notification per step."""
    for i in range(1, n + 1):
        await ctx.report_progress(i, n, f"step {i}")
    return f"counted to {n}"


class Item(TypedDict):
    value: float
    size: Literal["small", "large"]


class Summary(TypedDict):
    count: int
    total: float
    unit: Literal["m", "km"]
    label: str | None
    items: list[Item]


@server.tool()
def summarize(values: list[float], unit: Literal["m", "km"] = "m", label: str | None = None) -> Summary:
    """Counts and sums lengths, and sorts each into small (under 10) or large."""
    return {
        "count": len(values),
        "total": sum(values),
        "unit": unit,
        "label": label,
        "items": [{"value": v, "size": "small" if v < 10 else "large"} for v in values],
    }


@server.prompt()
def briefing(goal: str, level: str | None = None) -> str:
    """Sets an agent up to play a level."""
    return f"Goal: {goal}." + (f" Level: {level}." if level else "")


@server.resource("game://level/{name}", mime_type="text/plain")
def level(name: str) -> str:
    """A level, by its name."""
    return f"the level {name}"


@server.resource("game://about", mime_type="text/plain")
def about() -> str:
    """What this server is."""
    return "a Python SDK server for mcp-bindgen's interop tests"


LEVELS = ["dungeon", "desert", "forest"]


@server.completion()
async def complete(ref, argument, context):
    """Level names for the prompt's `level` and the template's `name`, by prefix."""
    if argument.name in ("level", "name"):
        return Completion(values=[name for name in LEVELS if name.startswith(argument.value)])
    return None


# SSE answers (not json_response): progress notifications travel on the response stream.
app = server.streamable_http_app(stateless_http=True)


async def with_bearer(scope, receive, send):
    """Refuses every HTTP request without the Bearer token (401)."""
    if scope["type"] == "http":
        headers = dict(scope.get("headers") or [])
        if headers.get(b"authorization") != f"Bearer {token}".encode():
            await send({"type": "http.response.start", "status": 401,
                        "headers": [(b"www-authenticate", b'Bearer realm="mcp"')]})
            await send({"type": "http.response.body", "body": b""})
            return
    await app(scope, receive, send)


sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
sock.bind(("127.0.0.1", 0))
sock.listen(128)  # connections wait in the backlog until uvicorn accepts them
print(f"https://localhost:{sock.getsockname()[1]}/mcp", flush=True)
config = uvicorn.Config(with_bearer, ssl_certfile=cert, ssl_keyfile=key, log_level="warning",
                        lifespan="on")
uvicorn.Server(config).run(sockets=[sock])
