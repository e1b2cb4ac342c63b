"""FastMCP 4.2.3 serving the Agent Skills under a folder (SEP-2640, its own implementation:
`fastmcp.skills.provider.SkillsDirectoryProvider`) over stdio, for mcp-bindgen's client to
list, load and verify. Usage: fastmcp_skills_server.py SKILLS_DIR"""
import sys
from pathlib import Path

from fastmcp import FastMCP
from fastmcp.skills.provider import SkillsDirectoryProvider

mcp = FastMCP("fastmcp-skills-peer")
mcp.add_provider(SkillsDirectoryProvider(Path(sys.argv[1])))

if __name__ == "__main__":
    mcp.run(show_banner=False)
