"""FastMCP 4.2.3's client (SEP-2640 Skills, opted in with `SkillsClientExtension`) against an
mcp-bindgen server: lists the skills, then reads each with `read_skill`, which fetches every
file and checks its size and SHA-256 digest against `skills/get`, the frontmatter against the
entry, and the name against the URI. Prints one JSON object. Usage: fastmcp_skills_client.py URL"""
import asyncio
import json
import sys

from fastmcp import Client
from fastmcp.skills import SkillsClientExtension


async def main(url):
    async with Client(url, extensions=[SkillsClientExtension()]) as client:
        entries = await client.list_skills()
        skills = {}
        for entry in entries:
            skill = await client.read_skill(entry.uri)
            skills[entry.uri] = {
                "name": skill.name,
                "description": entry.frontmatter.root.get("description"),
                "files": {path: len(data) for path, data in sorted(skill.files.items())},
            }
        print(json.dumps({"protocol": client.protocol_version, "skills": skills}))


asyncio.run(main(sys.argv[1]))
