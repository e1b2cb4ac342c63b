"""An MCP client of the Events extension (SEP-3415), written for the tests from the SEP alone
(no MCP SDK implements the extension yet; it shares no code with mcp-bindgen): it checks a
2026-07-28 server over Streamable HTTP as the SEP describes it. Python's standard library only.

Usage: py_events_client.py URL

The server is the skirmish game of mcp-bindgen's tests: a tool `kill {kind, team}` (teams
`red`, `blue`) and the event types `unit_died` (poll and push; arguments `{team?}`; payload
`{unit, kind, team}`) and `wave_started` (poll only). Prints one `ok ...` line per check and
exits 0, or fails with an assertion naming what the server did.
"""
import json
import queue
import sys
import threading
import urllib.error
import urllib.request

URL = sys.argv[1]
VERSION = "2026-07-28"
SUB_ID = "io.modelcontextprotocol/subscriptionId"
next_id = 0


def message(method, params):
    global next_id
    next_id += 1
    params = dict(params)
    params["_meta"] = {
        "io.modelcontextprotocol/protocolVersion": VERSION,
        "io.modelcontextprotocol/clientCapabilities": {
            "extensions": {"io.modelcontextprotocol/events": {}}},
    }
    return next_id, {"jsonrpc": "2.0", "id": next_id, "method": method, "params": params}


def post(method, params, stream=False):
    id_, body = message(method, params)
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": VERSION,
        "Mcp-Method": method,
    }
    if method == "tools/call":
        headers["Mcp-Name"] = params["name"]
    request = urllib.request.Request(URL, json.dumps(body).encode(), headers, method="POST")
    response = urllib.request.urlopen(request, timeout=10)
    if stream:
        return id_, response
    text = response.read()
    if response.headers.get("Content-Type", "").startswith("text/event-stream"):
        for line in text.decode().splitlines():
            if line.startswith("data:"):
                answer = json.loads(line[5:])
                if answer.get("id") == id_:
                    return answer
        raise AssertionError(f"{method}: no answer in the stream")
    return json.loads(text)


def call(method, params):
    answer = post(method, params)
    assert "result" in answer, f"{method} failed: {answer}"
    assert answer["result"].get("resultType") == "complete", answer
    return answer["result"]


def refused(method, params):
    answer = post(method, params)
    assert "error" in answer, f"{method} {params} was not refused: {answer}"
    return answer["error"]


def kill(kind, team):
    call("tools/call", {"name": "kill", "arguments": {"kind": kind, "team": team}})


discovered = call("server/discover", {})
settings = discovered["capabilities"]["extensions"]["io.modelcontextprotocol/events"]
assert settings.get("listChanged") is True, discovered
print("ok the server declares the extension", flush=True)

types = {t["name"]: t for t in call("events/list", {})["events"]}
assert set(types) == {"unit_died", "wave_started"}, types
died = types["unit_died"]
assert died["delivery"] == ["poll", "push"], died
assert died["payloadSchema"]["type"] == "object", died
assert "team" in died["inputSchema"]["properties"], died
assert types["wave_started"]["delivery"] == ["poll"]
print("ok events/list", flush=True)

# Poll: from now (no events, a cursor), then what came after it, filtered by the arguments.
first = call("events/poll", {"name": "unit_died", "arguments": {"team": "blue"}, "cursor": None})
assert first["events"] == [] and isinstance(first["cursor"], str), first
assert first["truncated"] is False and first["hasMore"] is False, first
assert first["nextPollMs"] >= 1000, first
kill("knight", "red")
kill("archer", "blue")
page = call("events/poll", {"name": "unit_died", "arguments": {"team": "blue"},
                            "cursor": first["cursor"]})
assert [e["data"]["kind"] for e in page["events"]] == ["archer"], page
event = page["events"][0]
assert event["name"] == "unit_died" and event["data"]["team"] == "blue", event
assert isinstance(event["eventId"], str) and event["timestamp"].endswith("Z"), event
again = call("events/poll", {"name": "unit_died", "arguments": {"team": "blue"},
                             "cursor": page["cursor"]})
assert again["events"] == [], again
print("ok events/poll", flush=True)

# maxEvents pages; the pages together hold each occurrence once.
for _ in range(3):
    kill("pikeman", "red")
small = call("events/poll", {"name": "unit_died", "cursor": again["cursor"], "maxEvents": 2})
assert len(small["events"]) == 2 and small["hasMore"] is True, small
rest = call("events/poll", {"name": "unit_died", "cursor": small["cursor"]})
assert len(rest["events"]) == 1 and rest["hasMore"] is False, rest
ids = [e["eventId"] for e in small["events"] + rest["events"]]
assert len(set(ids)) == 3, ids
print("ok maxEvents and hasMore", flush=True)

# A cursor this server never gave: truncated, not an error.
stale = call("events/poll", {"name": "unit_died", "cursor": "not-a-cursor-of-yours"})
assert stale["truncated"] is True and isinstance(stale["cursor"], str), stale
print("ok truncated", flush=True)

# Push: active first, then the blue deaths only, each tagged with the request's id.
notes = queue.Queue()
stream_id, response = post("events/stream", {"name": "unit_died",
                                             "arguments": {"team": "blue"}}, stream=True)
assert response.headers["Content-Type"].startswith("text/event-stream"), response.headers


def read():
    try:
        for raw in response:
            line = raw.decode().rstrip("\r\n")
            if line.startswith("data:"):
                notes.put(json.loads(line[5:]))
    except Exception:  # the test closes the stream
        pass


threading.Thread(target=read, daemon=True).start()
active = notes.get(timeout=10)
assert active["method"] == "notifications/events/active", active
assert active["params"]["_meta"][SUB_ID] == stream_id, active
assert active["params"]["truncated"] is False, active
kill("knight", "red")
kill("archer", "blue")
kill("mage", "blue")
seen = []
while len(seen) < 2:
    note = notes.get(timeout=10)
    if note["method"] == "notifications/events/heartbeat":
        continue
    assert note["method"] == "notifications/events/event", note
    assert note["params"]["_meta"][SUB_ID] == stream_id, note
    assert isinstance(note["params"]["cursor"], str), note
    seen.append(note["params"]["data"]["kind"])
assert seen == ["archer", "mage"], seen
response.close()
print("ok events/stream", flush=True)

# The extension's errors.
assert refused("events/poll", {"name": "unit_born"})["code"] == -32023
assert refused("events/poll", {"name": "unit_died", "arguments": {"team": 7}})["code"] == -32602
unsupported = refused("events/stream", {"name": "wave_started"})
assert unsupported["code"] == -32026, unsupported
assert unsupported["data"] == {"feature": "deliveryMode", "value": "push"}, unsupported
print("ok errors", flush=True)
