"""An MCP server on the official Python SDK (`mcp` 2.3.0) over stdio (both protocol eras), for
the stdio client's interop test. Usage: py_stdio_server.py"""
from typing import TypedDict

from mcp.server.mcpserver import MCPServer

server = MCPServer("py-stdio")


class Sum(TypedDict):
    sum: float


@server.tool()
def add(a: float, b: float) -> Sum:
    """Adds two numbers."""
    return {"sum": a + b}


server.run(transport="stdio")
