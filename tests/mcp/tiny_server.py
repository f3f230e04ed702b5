"""A minimal stdio MCP server without the SDK (starts in ~30 ms): for the many hygiene cycles.

Speaks the 2025-06-18 handshake, lists ``echo`` and ``sleep``; ``sleep`` answers after its
seconds unless a ``notifications/cancelled`` for it arrives first. Exits when stdin closes.
"""

import json
import os
import select
import sys
import time


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


TOOLS = [
    {"name": "echo", "description": "Echo.", "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}}},
    {"name": "sleep", "description": "Sleep.", "inputSchema": {"type": "object", "properties": {"seconds": {"type": "number"}}}},
]
# TINY_STRUCTURED=good|bad|missing|huge: a ``forecast`` tool that declares an outputSchema and
# answers with matching, mismatching or no structured content (huge: an oversized schema).
STRUCTURED = os.environ.get("TINY_STRUCTURED", "")
FORECAST_SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}, "celsius": {"type": "number"}},
                   "required": ["city", "celsius"]}
if STRUCTURED == "huge":
    FORECAST_SCHEMA = {"type": "object", "properties": {f"p{i}": {"type": "string", "description": "x" * 100}
                                                        for i in range(400)}}
if STRUCTURED:
    TOOLS.append({"name": "forecast", "description": "Forecast.", "inputSchema": {"type": "object"},
                  "outputSchema": FORECAST_SCHEMA})
STRUCTURED_ANSWERS = {
    "good": {"content": [{"type": "text", "text": "Oslo 21"}], "structuredContent": {"city": "Oslo", "celsius": 21}},
    "bad": {"content": [{"type": "text", "text": "Oslo warm"}], "structuredContent": {"city": "Oslo", "celsius": "warm"}},
    "missing": {"content": [{"type": "text", "text": "Oslo 21"}]},
}
pending = {}  # request id -> deadline


def handle(msg):
    method, rid, params = msg.get("method"), msg.get("id"), msg.get("params") or {}
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": rid, "result": {
            "protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
            "serverInfo": {"name": "tiny", "version": "1"}}})
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": rid, "result": {"tools": TOOLS}})
    elif method == "tools/call" and params.get("name") == "echo":
        text = (params.get("arguments") or {}).get("text", "")
        send({"jsonrpc": "2.0", "id": rid, "result": {"content": [{"type": "text", "text": text}]}})
    elif method == "tools/call" and params.get("name") == "forecast":
        send({"jsonrpc": "2.0", "id": rid, "result": STRUCTURED_ANSWERS[STRUCTURED]})
    elif method == "tools/call" and params.get("name") == "sleep":
        pending[rid] = time.monotonic() + float((params.get("arguments") or {}).get("seconds", 60))
        sys.stderr.write(f"sleeping {rid}\n")
        sys.stderr.flush()
    elif method == "notifications/cancelled":
        if pending.pop(params.get("requestId"), None) is not None:
            sys.stderr.write(f"cancelled {params.get('requestId')}\n")
            sys.stderr.flush()
    elif rid is not None:
        send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "Method not found"}})


buffer = ""
while True:
    timeout = max(0.0, min(pending.values()) - time.monotonic()) if pending else None
    ready, _, _ = select.select([sys.stdin], [], [], timeout)
    for rid, deadline in list(pending.items()):
        if time.monotonic() >= deadline:
            del pending[rid]
            send({"jsonrpc": "2.0", "id": rid, "result": {"content": [{"type": "text", "text": "slept"}]}})
    if not ready:
        continue
    chunk = os.read(0, 65536).decode()
    if not chunk:
        sys.exit(0)
    *lines, buffer = (buffer + chunk).split("\n")
    for line in lines:
        if line.strip():
            handle(json.loads(line))
