"""An SDK-less MCP server over HTTP (streamable HTTP at ``/mcp``, the older SSE transport at
``/sse``) that answers a call with a message that never ends, on loopback.

Run: ``python hostile_http_server.py``; it prints its port, then serves until killed (printing
``flooding`` as it begins each answer that never ends). It answers
``initialize``, ``tools/list`` (tools ``echo {text}``, which answers 11 MB of ``x`` for the text
``11MB``, and ``flood {how, mb}``) and ``tools/call``;
``flood`` answers with:
- ``how: "json"``: an ``application/json`` body (chunked, no length) of ``mb`` MB that never
  closes its JSON, then waits with the connection open;
- ``how: "length"``: the same with a ``Content-Length`` of a terabyte instead of chunks;
- ``how: "gzip"``: a valid answer of ``mb`` MB, gzipped (``Content-Encoding``) though not asked for;
  ``"gzip-event"`` the same as one event of an event stream;
- ``how: "event"``: a ``text/event-stream`` whose one ``data:`` line runs ``mb`` MB with no end;
- ``how: "lines"``: a ``text/event-stream`` of ``data:`` lines, ``mb`` MB of them, never a blank
  line (so the event never ends).
At ``/mcp?endless`` the answer to ``initialize`` is the ``json`` one. At ``/mcp?standing`` a
``GET`` opens the standing event stream (printing ``standing``), held open until the server is
killed; at ``/mcp?brief`` the server ends each such stream at once (printing ``brief``) and
prints ``ping`` as it answers a ``ping`` at ``/mcp``; elsewhere a ``GET`` of ``/mcp`` is refused (405).
Over ``/sse`` the answers go on the event stream as the transport wants, and ``flood`` answers
the POST that carried the call with the ``json`` body instead of ``202 Accepted``.
"""

import gzip
import json
import queue
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

TOOLS = [
    {"name": "echo", "description": "Echoes.", "inputSchema": {
        "type": "object", "properties": {"text": {"type": "string"}}}},
    {"name": "flood", "description": "Answers without end.", "inputSchema": {
        "type": "object", "properties": {"how": {"type": "string"}, "mb": {"type": "integer"}}}},
]
CHUNK = b"a" * (1 << 16)
#: The older SSE transport's event streams, by session.
SESSIONS: dict[str, "queue.Queue[dict]"] = {}


def answer(msg):
    """The answer to ``msg`` (``None`` for a notification or the flood)."""
    method, rid = msg.get("method"), msg.get("id")
    if rid is None:
        return None
    if method == "initialize":
        result = {"protocolVersion": msg["params"]["protocolVersion"], "capabilities": {"tools": {}},
                  "serverInfo": {"name": "hostile-http", "version": "1"}}
    elif method == "tools/list":
        result = {"tools": TOOLS}
    elif method == "tools/call" and msg["params"]["name"] == "echo":
        text = msg["params"]["arguments"].get("text", "")
        result = {"content": [{"type": "text", "text": "x" * (text == "11MB" and 11 << 20) or text}]}
    elif method == "ping":
        result = {}
    else:
        return {"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": f"no {method}"}}
    return {"jsonrpc": "2.0", "id": rid, "result": result}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def _body(self):
        return json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")

    def _send_json(self, status, obj):
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        if obj.get("result", {}).get("serverInfo") and ("standing" in self.path or "brief" in self.path):
            self.send_header("Mcp-Session-Id", "1")  # the SDK opens the standing stream only in a session
        self.end_headers()
        self.wfile.write(data)

    def _flood(self, how, mb, rid):
        """Writes ``mb`` MB of an answer that never ends, then holds the connection open."""
        print("flooding", flush=True)  # a test may wait for it: the call is in flight
        if how in ("gzip", "gzip-event"):
            self._bomb(mb, rid, how == "gzip-event")
            return
        events = how in ("event", "lines")
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream" if events else "application/json")
        if how == "length":
            self.send_header("Content-Length", str(1 << 40))
        elif not events:
            self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        try:
            self._endless_event(how, mb, rid, how == "json")
        except OSError:
            pass  # the client went away: what it should do

    def _endless_event(self, how, mb, rid, chunked):
        """The answer to ``rid`` begun, then ``mb`` MB of it that never end it; then waits."""
        events = how in ("event", "lines")
        head = (b"event: message\ndata: " if events else b"") + json.dumps(
            {"jsonrpc": "2.0", "id": rid, "result": {"content": [{"type": "text", "text": ""}]}}).encode()[:-5]
        line = b"\ndata: " + CHUNK if how == "lines" else CHUNK
        self._write(head, chunked)
        for _ in range(mb * 16):
            self._write(line, chunked)
        self.wfile.flush()
        time.sleep(3600)

    def _bomb(self, mb, rid, event):
        """A valid answer of ``mb`` MB, gzipped (a few hundred KB), though not asked for; as an
        event of an event stream with ``event``."""
        text = "a" * (mb << 20)
        data = json.dumps({"jsonrpc": "2.0", "id": rid, "result": {"content": [{"type": "text", "text": text}]}})
        data = gzip.compress((f"event: message\ndata: {data}\n\n" if event else data).encode(), 1)
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream" if event else "application/json")
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _write(self, data, chunked):
        if chunked:
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        else:
            self.wfile.write(data)

    def _standing(self):
        """A standing event stream (streamable HTTP): held open, or ended at once (``brief``)."""
        brief = "brief" in self.path
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        if brief:
            self.send_header("Content-Length", "0")
        self.end_headers()
        self.wfile.flush()
        print("brief" if brief else "standing", flush=True)
        if not brief:
            time.sleep(3600)

    def do_GET(self):
        if self.path.startswith("/mcp") and ("standing" in self.path or "brief" in self.path):
            self._standing()
            return
        if not self.path.startswith("/sse"):
            self.send_response(405)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        session = str(len(SESSIONS) + 1)
        outbox = SESSIONS[session] = queue.Queue()
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        self.wfile.write(f"event: endpoint\ndata: /messages?session_id={session}\n\n".encode())
        self.wfile.flush()
        try:
            while True:
                msg = outbox.get()
                if "flood" in msg:
                    self._endless_event(msg["flood"], msg["mb"], msg["id"], False)
                    return
                self.wfile.write(f"event: message\ndata: {json.dumps(msg)}\n\n".encode())
                self.wfile.flush()
        except OSError:
            pass

    def do_DELETE(self):
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self):
        msg = self._body()
        flood = msg.get("method") == "tools/call" and msg["params"]["name"] == "flood"
        if msg.get("method") == "initialize" and "endless" in self.path:
            self._flood("json", 200, msg["id"])
            return
        args = msg.get("params", {}).get("arguments", {}) if flood else {}
        if self.path.startswith("/messages"):
            outbox = SESSIONS[self.path.split("session_id=")[1]]
            if flood and args.get("how") in ("event", "lines"):
                self._accepted()
                outbox.put({"flood": args["how"], "mb": args.get("mb", 200), "id": msg["id"]})
                return
            if flood:
                self._flood("json", args.get("mb", 200), msg["id"])
                return
            self._accepted()
            reply = answer(msg)
            if reply is not None:
                outbox.put(reply)
            return
        if flood:
            self._flood(args.get("how", "json"), args.get("mb", 200), msg["id"])
            return
        if msg.get("method") == "ping":
            print("ping", flush=True)
        reply = answer(msg)
        if reply is None:
            self._accepted()
            return
        self._send_json(200, reply)

    def _accepted(self):
        self.send_response(202)
        self.send_header("Content-Length", "0")
        self.end_headers()


if __name__ == "__main__":
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print(server.server_address[1], flush=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    sys.stdin.read()  # until the test closes our stdin (or kills us)
