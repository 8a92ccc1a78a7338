"""Writes a JSONL transcript (cancelcheck's own format) of an LSP session of N hover requests,
each answered before the next is sent, C of them cancelled first and answered -32800, then
shutdown and exit: the shape of the long pyright sessions of docs/trials.md without their
bulk, to measure what `cancelcheck audit` needs as N grows. Usage:

    python3 synthetic.py N [C] > session.jsonl
    /usr/bin/time -f '%e s %M KB' cancelcheck audit --dialect lsp session.jsonl
"""
import json
import sys

n = int(sys.argv[1])
cancels = int(sys.argv[2]) if len(sys.argv) > 2 else 1
t = 0


def w(direction, message):
    global t
    t += 10
    print(json.dumps({"direction": direction, "time": t, "message": message}))


w("client-to-server", {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"capabilities": {}}})
w("server-to-client", {"jsonrpc": "2.0", "id": 0, "result": {"capabilities": {}}})
w("client-to-server", {"jsonrpc": "2.0", "method": "initialized", "params": {}})
for i in range(1, n + 1):
    w("client-to-server", {"jsonrpc": "2.0", "id": i, "method": "textDocument/hover",
                           "params": {"textDocument": {"uri": "file:///a.py"}, "position": {"line": 1, "character": 1}}})
    if cancels and i % max(1, n // cancels) == 0:
        w("client-to-server", {"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": i}})
        w("server-to-client", {"jsonrpc": "2.0", "id": i, "error": {"code": -32800, "message": "cancelled"}})
    else:
        w("server-to-client", {"jsonrpc": "2.0", "id": i, "result": None})
w("client-to-server", {"jsonrpc": "2.0", "id": n + 1, "method": "shutdown"})
w("server-to-client", {"jsonrpc": "2.0", "id": n + 1, "result": None})
w("client-to-server", {"jsonrpc": "2.0", "method": "exit"})
