#!/usr/bin/env python3
"""Capture the `tools/list` of an MCP server that speaks stdio.

Usage:
    python3 capture_stdio.py -o OUT.json [--timeout SECONDS] -- COMMAND [ARGS...]

The script spawns COMMAND, speaks newline-delimited JSON-RPC 2.0 on its
stdin/stdout, sends `initialize`, the `notifications/initialized`
notification and then `tools/list` (following `nextCursor` until the last
page), and writes one JSON file:

    {"protocolVersion": ..., "serverInfo": ..., "tools": [...]}

`protocolVersion` and `serverInfo` come from the initialize result; `tools`
holds every tool of every page exactly as the server sent it (key order is
kept, and so is the spelling of non-integer numbers, e.g. `2.5e-7`). The child's stderr goes straight to
ours. Lines that are not JSON, notifications and responses to other ids are
skipped while waiting for a response; server-to-client requests are answered
(`ping` with an empty result, anything else with "method not found") so that
the server is not left waiting, and otherwise ignored.

Only the standard library is used.
"""

from __future__ import annotations

import argparse
import json
import queue
import re
import subprocess
import sys
import threading
import time
import uuid
from collections import OrderedDict
from typing import Any

PROTOCOL_VERSION = "2025-06-18"
CLIENT_INFO = OrderedDict([("name", "mcp-bindgen-capture"), ("version", "0.1.0")])
DEFAULT_TIMEOUT = 60.0
_EOF = object()


class CaptureError(Exception):
    pass


class RawNumbers:
    """Keeps the server's own spelling of non-integer numbers (and of -0).

    json.loads turns `2.5e-7` into a float, which json.dumps would write back
    as `2.5e-07`. Instead, such numbers are parsed into unique placeholder
    strings and put back, as the server wrote them, into the final text.
    Integers are kept as Python ints, which print exactly as they were read.
    """

    def __init__(self) -> None:
        self.token = f"rawnum-{uuid.uuid4().hex}-"
        self.raw: list[str] = []
        self.pattern = re.compile('"' + re.escape(self.token) + r'(\d+)"')

    def _keep(self, text: str) -> str:
        self.raw.append(text)
        return f"{self.token}{len(self.raw) - 1}"

    def parse_float(self, text: str) -> str:
        return self._keep(text)

    def parse_int(self, text: str):
        return self._keep(text) if text == "-0" else int(text)

    def loads(self, text: str):
        return json.loads(text, object_pairs_hook=OrderedDict,
                          parse_float=self.parse_float, parse_int=self.parse_int)

    def restore(self, dumped: str) -> str:
        return self.pattern.sub(lambda m: self.raw[int(m.group(1))], dumped)


def _log(msg: str) -> None:
    print(f"capture_stdio: {msg}", file=sys.stderr, flush=True)


class StdioClient:
    def __init__(self, argv: list[str], timeout: float) -> None:
        self.timeout = timeout
        self.next_id = 1
        self.numbers = RawNumbers()
        try:
            self.proc = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=None,  # inherit: the child's stderr passes through
                bufsize=0,
            )
        except OSError as e:
            raise CaptureError(f"cannot start {argv[0]!r}: {e}") from e
        self.lines: "queue.Queue[Any]" = queue.Queue()
        self.reader = threading.Thread(target=self._read_stdout, daemon=True)
        self.reader.start()

    def _read_stdout(self) -> None:
        assert self.proc.stdout is not None
        try:
            for raw in self.proc.stdout:
                self.lines.put(raw)
        finally:
            self.lines.put(_EOF)

    def _send(self, msg: dict) -> None:
        data = json.dumps(msg, ensure_ascii=False, separators=(",", ":")) + "\n"
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(data.encode("utf-8"))
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError) as e:
            raise CaptureError(f"cannot write to the server (exited with {self.proc.poll()}?): {e}") from e

    def notify(self, method: str, params: dict | None = None) -> None:
        msg: dict = OrderedDict([("jsonrpc", "2.0"), ("method", method)])
        if params is not None:
            msg["params"] = params
        self._send(msg)

    def request(self, method: str, params: dict) -> Any:
        req_id = self.next_id
        self.next_id += 1
        self._send(OrderedDict([("jsonrpc", "2.0"), ("id", req_id), ("method", method), ("params", params)]))
        deadline = time.monotonic() + self.timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise CaptureError(f"timed out after {self.timeout:g} s waiting for the response to {method!r} (id {req_id})")
            try:
                raw = self.lines.get(timeout=remaining)
            except queue.Empty:
                continue  # loop re-checks the deadline and raises
            if raw is _EOF:
                code = self.proc.poll()
                raise CaptureError(f"server closed stdout (exit code {code}) before answering {method!r} (id {req_id})")
            text = raw.decode("utf-8", errors="replace").strip()
            if not text:
                continue
            try:
                msg = self.numbers.loads(text)
            except json.JSONDecodeError:
                _log(f"skipping non-JSON line from server: {text[:200]!r}")
                continue
            if not isinstance(msg, dict):
                _log(f"skipping non-object message: {text[:200]!r}")
                continue
            if "method" in msg:
                if "id" in msg:
                    self._answer_server_request(msg)
                # notifications (no id) are skipped
                continue
            if msg.get("id") != req_id:
                _log(f"skipping message with id {msg.get('id')!r} while waiting for id {req_id}")
                continue
            if "error" in msg:
                err = msg["error"]
                raise CaptureError(f"{method!r} failed: {json.dumps(err, ensure_ascii=False)}")
            if "result" not in msg:
                raise CaptureError(f"response to {method!r} has neither result nor error: {text[:200]!r}")
            return msg["result"]

    def _answer_server_request(self, msg: dict) -> None:
        method = msg.get("method")
        if method == "ping":
            reply = OrderedDict([("jsonrpc", "2.0"), ("id", msg["id"]), ("result", OrderedDict())])
        else:
            _log(f"answering server request {method!r} with 'method not found'")
            reply = OrderedDict([
                ("jsonrpc", "2.0"),
                ("id", msg["id"]),
                ("error", OrderedDict([("code", -32601), ("message", f"method not found: {method}")])),
            ])
        try:
            self._send(reply)
        except CaptureError as e:
            _log(str(e))

    def close(self) -> None:
        proc = self.proc
        try:
            if proc.stdin is not None:
                proc.stdin.close()
        except OSError:
            pass
        if proc.poll() is None:
            try:
                proc.wait(timeout=2)
            except subprocess.TimeoutExpired:
                proc.terminate()
                try:
                    proc.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()


def capture(argv: list[str], timeout: float) -> str:
    """Runs the server and returns the capture as JSON text (ending in a newline)."""
    client = StdioClient(argv, timeout)
    try:
        init = client.request(
            "initialize",
            OrderedDict([
                ("protocolVersion", PROTOCOL_VERSION),
                ("capabilities", OrderedDict()),
                ("clientInfo", CLIENT_INFO),
            ]),
        )
        if not isinstance(init, dict):
            raise CaptureError(f"initialize result is not an object: {init!r}")
        if "protocolVersion" not in init:
            raise CaptureError("initialize result has no protocolVersion")
        client.notify("notifications/initialized")

        tools: list = []
        cursor = None
        seen_cursors: set = set()
        while True:
            params: dict = OrderedDict()
            if cursor is not None:
                params["cursor"] = cursor
            page = client.request("tools/list", params)
            if not isinstance(page, dict) or not isinstance(page.get("tools"), list):
                raise CaptureError(f"tools/list result has no 'tools' array: {json.dumps(page)[:200]}")
            tools.extend(page["tools"])
            cursor = page.get("nextCursor")
            if cursor is None or cursor == "":
                break
            if cursor in seen_cursors:
                raise CaptureError(f"server repeated nextCursor {cursor!r}; stopping to avoid a loop")
            seen_cursors.add(cursor)

        doc = OrderedDict([
            ("protocolVersion", init["protocolVersion"]),
            ("serverInfo", init.get("serverInfo")),
            ("tools", tools),
        ])
        text = json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
        _log(f"received {len(tools)} tools")
        return client.numbers.restore(text)
    finally:
        client.close()


def main(args: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Capture an MCP server's tools/list over stdio.",
        usage="%(prog)s -o OUT.json [--timeout SECONDS] -- COMMAND [ARGS...]",
    )
    parser.add_argument("-o", "--output", required=True, help="file to write the capture to")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT,
                        help="seconds to wait for each response (default: %(default)s)")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="server command and its arguments, after --")
    ns = parser.parse_args(args)
    command = ns.command
    if command and command[0] == "--":
        command = command[1:]
    if not command:
        parser.error("no server command given (put it after --)")

    try:
        text = capture(command, ns.timeout)
    except CaptureError as e:
        _log(f"error: {e}")
        return 1

    with open(ns.output, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)
    _log(f"wrote {ns.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
