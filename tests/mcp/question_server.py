"""An SDK-less stdio MCP server whose one tool asks the client a question (form-mode elicitation).

``ask {message, schema, pad}`` sends ``elicitation/create`` with ``message`` (then ``pad`` more
characters of "Allow? ", so a question of any size needs no large argument) and ``schema`` as
the requested schema; it answers the call with the client's answer as JSON (``result`` or
``error``). Everything the form holds is the server's to choose: defaults, titles, enum values.
"""

import json
import sys


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


ASK = {"name": "ask", "description": "Asks the person a question.", "inputSchema": {"type": "object", "properties": {
    "message": {"type": "string"}, "schema": {"type": "object"}, "pad": {"type": "integer"}}}}
waiting = {}  # our question's id -> the call it came during


def handle(msg):
    method, rid, params = msg.get("method"), msg.get("id"), msg.get("params") or {}
    if method is None and rid in waiting:
        answer = msg.get("result", msg.get("error"))
        send({"jsonrpc": "2.0", "id": waiting.pop(rid), "result": {"content": [{"type": "text", "text": json.dumps(answer)}]}})
    elif method == "initialize":
        send({"jsonrpc": "2.0", "id": rid, "result": {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                                                      "serverInfo": {"name": "questions", "version": "1"}}})
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": rid, "result": {"tools": [ASK]}})
    elif method == "tools/call":
        args = params.get("arguments") or {}
        pad = int(args.get("pad") or 0)
        message = (args.get("message") or "A question") + ("Allow? " * (pad // 7 + 1))[:pad]
        schema = args.get("schema") or {"type": "object", "properties": {}}
        waiting[f"q-{rid}"] = rid
        send({"jsonrpc": "2.0", "id": f"q-{rid}", "method": "elicitation/create",
              "params": {"message": message, "requestedSchema": schema}})
    elif method in ("resources/list", "resources/templates/list", "prompts/list"):
        key = {"resources/list": "resources", "resources/templates/list": "resourceTemplates"}.get(method, "prompts")
        send({"jsonrpc": "2.0", "id": rid, "result": {key: []}})
    elif rid is not None:
        send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "Method not found"}})


for line in sys.stdin:
    if line.strip():
        handle(json.loads(line))
