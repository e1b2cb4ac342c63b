"""An MCP server of the Events extension (SEP-3415, `io.modelcontextprotocol/events`),
written for the tests from the SEP alone: no MCP SDK serves the extension yet, and this
shares no code with mcp-bindgen. Python's standard library only.

Usage: py_events_server.py PORT   (0 = any free port)

Streamable HTTP, MCP 2026-07-28 (stateless), plain http on 127.0.0.1. Prints
`ready http://127.0.0.1:PORT/mcp` once it accepts connections.

Event types:
  weather.reading  poll and push; arguments {city?}: only that city's readings; payload
                   {city, celsius}; replayable, the last 5 readings kept (cursors `r<N>`)
  clock.tick       poll only; no arguments; payload {tick}; no replay (cursor null)
Tools:
  report {city, celsius}  emits a weather.reading
  tick                    emits a clock.tick
"""
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

EXTENSION = "io.modelcontextprotocol/events"
SUB_ID = "io.modelcontextprotocol/subscriptionId"
NOT_FOUND, UNSUPPORTED, INVALID = -32023, -32026, -32602
KEEP = 5
HEARTBEAT_S = 0.5

TYPES = [
    {
        "name": "weather.reading",
        "description": "A thermometer reading.",
        "delivery": ["poll", "push"],
        "inputSchema": {
            "type": "object",
            "properties": {"city": {"type": "string", "description": "Only this city's."}},
        },
        "payloadSchema": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "celsius": {"type": "number"}},
            "required": ["city", "celsius"],
        },
    },
    {
        "name": "clock.tick",
        "description": "The clock ticked.",
        "delivery": ["poll"],
        "inputSchema": {"type": "object"},
        "payloadSchema": {
            "type": "object",
            "properties": {"tick": {"type": "integer"}},
            "required": ["tick"],
        },
    },
]

lock = threading.Condition()
readings = []  # (seq, occurrence), the last KEEP
next_seq = 1
ticks = []  # occurrences not yet polled (no replay: whoever polls next gets them)
tick_count = 0


def now():
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def emit_reading(city, celsius):
    global next_seq
    with lock:
        seq = next_seq
        next_seq += 1
        occurrence = {
            "eventId": f"reading-{seq}",
            "name": "weather.reading",
            "timestamp": now(),
            "data": {"city": city, "celsius": celsius},
        }
        readings.append((seq, occurrence))
        del readings[:-KEEP]
        lock.notify_all()


def error(id_, code, message, data=None):
    err = {"code": code, "message": message}
    if data is not None:
        err["data"] = data
    return {"jsonrpc": "2.0", "id": id_, "error": err}


def result(id_, body):
    body = dict(body)
    body.setdefault("resultType", "complete")
    return {"jsonrpc": "2.0", "id": id_, "result": body}


def subscription(id_, params, mode):
    """The event type and the city filter of a poll or stream, or the error refusing it."""
    name = params.get("name")
    kind = next((t for t in TYPES if t["name"] == name), None)
    if kind is None:
        return None, None, error(id_, NOT_FOUND, "NotFound", {"kind": "event"})
    if mode not in kind["delivery"]:
        return None, None, error(
            id_, UNSUPPORTED, "Unsupported", {"feature": "deliveryMode", "value": mode}
        )
    arguments = params.get("arguments") or {}
    city = arguments.get("city")
    if not isinstance(arguments, dict) or (city is not None and not isinstance(city, str)):
        return None, None, error(id_, INVALID, "Invalid params: city is a string")
    return kind, city, None


def start_position(cursor):
    """(position, truncated) of a weather cursor; lock held."""
    last = next_seq - 1
    if cursor is None:
        return last, False
    try:
        seq = int(cursor[1:]) if cursor.startswith("r") else -1
    except ValueError:
        seq = -1
    if seq < 0 or seq > last:
        return last, True
    oldest = readings[0][0] if readings else next_seq
    if seq + 1 < oldest:
        return oldest - 1, True
    return seq, False


def after(position, city, limit=100):
    """Readings after `position` for `city`, and the position after them; lock held."""
    found, at = [], position
    for seq, occurrence in readings:
        if seq <= position:
            continue
        if len(found) == limit:
            return found, at, True
        at = seq
        if city is None or occurrence["data"]["city"] == city:
            found.append((seq, occurrence))
    return found, max(at, next_seq - 1), False


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send_json(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        self.send_response(405)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        message = json.loads(self.rfile.read(length) or b"null")
        if not isinstance(message, dict) or "id" not in message:
            self.send_response(202)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        id_, method = message["id"], message.get("method")
        params = message.get("params") or {}
        if method == "server/discover":
            return self.send_json(200, result(id_, {
                "supportedVersions": ["2026-07-28"],
                "capabilities": {"tools": {}, "extensions": {EXTENSION: {"listChanged": False}}},
                "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "py-events", "version": "1"}},
            }))
        if method == "tools/list":
            return self.send_json(200, result(id_, {"tools": [
                {"name": "report", "inputSchema": {"type": "object", "properties": {
                    "city": {"type": "string"}, "celsius": {"type": "number"}}}},
                {"name": "tick", "inputSchema": {"type": "object"}},
            ]}))
        if method == "tools/call":
            args = params.get("arguments") or {}
            if params.get("name") == "report":
                emit_reading(args["city"], args["celsius"])
            else:
                global tick_count
                with lock:
                    tick_count += 1
                    ticks.append({"eventId": f"tick-{tick_count}", "name": "clock.tick",
                                  "timestamp": now(), "data": {"tick": tick_count}})
            return self.send_json(200, result(id_, {"content": []}))
        if method == "events/list":
            return self.send_json(200, result(id_, {"events": TYPES}))
        if method == "events/poll":
            kind, city, refused = subscription(id_, params, "poll")
            if refused:
                return self.send_json(200, refused)
            if kind["name"] == "clock.tick":
                # No replay: the ticks since the last poll (one lease: the tests poll alone).
                with lock:
                    events = list(ticks)
                    ticks.clear()
                return self.send_json(200, result(id_, {
                    "events": events, "cursor": None, "truncated": False,
                    "hasMore": False, "nextPollMs": 1000}))
            with lock:
                position, truncated = start_position(params.get("cursor"))
                found, at, more = after(position, city, params.get("maxEvents") or 100)
            return self.send_json(200, result(id_, {
                "events": [o for _, o in found], "cursor": f"r{at}", "truncated": truncated,
                "hasMore": more, "nextPollMs": 1000}))
        if method == "events/stream":
            kind, city, refused = subscription(id_, params, "push")
            if refused:
                return self.send_json(200, refused)
            return self.stream(id_, city, params.get("cursor"))
        return self.send_json(404, error(id_, -32601, f"Method not found: {method}"))

    def event(self, body):
        self.wfile.write(b"event: message\ndata: " + json.dumps(body).encode() + b"\n\n")
        self.wfile.flush()

    def stream(self, id_, city, cursor):
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        meta = {SUB_ID: id_}
        with lock:
            position, truncated = start_position(cursor)
        try:
            self.event({"jsonrpc": "2.0", "method": "notifications/events/active",
                        "params": {"cursor": f"r{position}", "truncated": truncated, "_meta": meta}})
            while True:
                with lock:
                    found, position, _ = after(position, city)
                    if not found:
                        lock.wait(HEARTBEAT_S)
                        found, position, _ = after(position, city)
                for seq, occurrence in found:
                    params = dict(occurrence, cursor=f"r{seq}", _meta=meta)
                    self.event({"jsonrpc": "2.0", "method": "notifications/events/event",
                                "params": params})
                if not found:
                    self.event({"jsonrpc": "2.0", "method": "notifications/events/heartbeat",
                                "params": {"cursor": f"r{position}", "_meta": meta}})
        except (BrokenPipeError, ConnectionResetError):
            return


def main():
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    httpd = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    httpd.daemon_threads = True
    print(f"ready http://127.0.0.1:{httpd.server_address[1]}/mcp", flush=True)
    httpd.serve_forever()


if __name__ == "__main__":
    main()
