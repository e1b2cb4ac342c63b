#!/usr/bin/env python3
"""Build a synthetic 1,000-tool `tools/list` capture from the real captures.

Reads every `tests/fixtures/captures/*.tools.json` (sorted by file name;
tools in the order each server sent them) and writes
`tests/fixtures/large/synth_1000.tools.json`: exactly 1,000 tools made by
cycling through the real tools. Copy number n (0, 1, 2, ...) of a tool is
renamed `<original_name>_<n>`; every other field, schemas included, is kept
as it is, in the same key order. The output has the same top-level shape as
a capture, with serverInfo {"name": "synth-1000", "version": "0.0.0"} and
protocolVersion "2025-06-18".

The script fails if two generated names would collide after lowercasing and
replacing `-` and `.` with `_` (or exactly). Same input, same bytes.

Usage: python3 tests/scripts/synth_1000.py [--captures DIR] [-o OUT] [--count N]
"""

from __future__ import annotations

import argparse
import copy
import glob
import json
import os
import re
import sys
import uuid
from collections import OrderedDict

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_CAPTURES = os.path.join(REPO, "tests", "fixtures", "captures")
DEFAULT_OUTPUT = os.path.join(REPO, "tests", "fixtures", "large", "synth_1000.tools.json")
SERVER_INFO = OrderedDict([("name", "synth-1000"), ("version", "0.0.0")])
PROTOCOL_VERSION = "2025-06-18"


class RawNumbers:
    """Keeps each non-integer number (and -0) spelled as in the input file.

    They are parsed into unique placeholder strings and written back verbatim,
    so that e.g. `2.5e-7` does not come out as `2.5e-07`.
    """

    def __init__(self) -> None:
        self.token = f"rawnum-{uuid.uuid4().hex}-"
        self.raw: list[str] = []
        self.pattern = re.compile('"' + re.escape(self.token) + r'(\d+)"')

    def _keep(self, text: str) -> str:
        self.raw.append(text)
        return f"{self.token}{len(self.raw) - 1}"

    def parse_int(self, text: str):
        return self._keep(text) if text == "-0" else int(text)

    def load(self, f):
        return json.load(f, object_pairs_hook=OrderedDict,
                         parse_float=self._keep, parse_int=self.parse_int)

    def restore(self, dumped: str) -> str:
        return self.pattern.sub(lambda m: self.raw[int(m.group(1))], dumped)


def normalize(name: str) -> str:
    return name.lower().replace("-", "_").replace(".", "_")


def load_tools(captures_dir: str, output: str, numbers: RawNumbers) -> list:
    tools: list = []
    out_real = os.path.realpath(output)
    for path in sorted(glob.glob(os.path.join(captures_dir, "*.tools.json"))):
        if os.path.realpath(path) == out_real:
            continue
        with open(path, encoding="utf-8") as f:
            doc = numbers.load(f)
        if (doc.get("serverInfo") or {}).get("name") == SERVER_INFO["name"]:
            continue  # an earlier synthetic output copied into the captures
        page = doc.get("tools")
        if not isinstance(page, list):
            raise SystemExit(f"synth_1000: {path}: no 'tools' array")
        tools.extend(page)
    if not tools:
        raise SystemExit(f"synth_1000: no tools found in {captures_dir}/*.tools.json")
    return tools


def rename(tool: "OrderedDict", new_name: str) -> "OrderedDict":
    # Rebuild so that "name" keeps its position among the keys.
    out = OrderedDict()
    for key, value in tool.items():
        out[key] = new_name if key == "name" else copy.deepcopy(value)
    if "name" not in out:
        raise SystemExit(f"synth_1000: a tool has no name: {json.dumps(tool)[:200]}")
    return out


def synthesize(real: list, count: int) -> list:
    out = []
    seen: dict = {}
    for i in range(count):
        tool = real[i % len(real)]
        n = i // len(real)  # copy index of this tool
        name = f"{tool['name']}_{n}"
        key = normalize(name)
        if key in seen:
            raise SystemExit(f"synth_1000: generated names {seen[key]!r} and {name!r} collide as {key!r}")
        seen[key] = name
        out.append(rename(tool, name))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--captures", default=DEFAULT_CAPTURES, help="directory of *.tools.json captures")
    ap.add_argument("-o", "--output", default=DEFAULT_OUTPUT, help="output file")
    ap.add_argument("--count", type=int, default=1000, help="number of tools (default 1000)")
    ns = ap.parse_args(argv)

    numbers = RawNumbers()
    real = load_tools(ns.captures, ns.output, numbers)
    tools = synthesize(real, ns.count)
    doc = OrderedDict([
        ("protocolVersion", PROTOCOL_VERSION),
        ("serverInfo", SERVER_INFO),
        ("tools", tools),
    ])
    os.makedirs(os.path.dirname(os.path.abspath(ns.output)), exist_ok=True)
    with open(ns.output, "w", encoding="utf-8", newline="\n") as f:
        f.write(numbers.restore(json.dumps(doc, indent=2, ensure_ascii=False) + "\n"))
    print(f"synth_1000: wrote {len(tools)} tools (from {len(real)} real ones) to {ns.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
