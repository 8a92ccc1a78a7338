"""Prints, for each request of a JSONL transcript (cancelcheck's own format, as `watch` writes
it), when it was sent, cancelled and answered, and what else the peer sent for it (MCP
progress), to check a verdict by hand. Usage:

    python3 timeline.py FILE [METHOD]

With METHOD, only requests of that method (and the requests that were cancelled) are listed.
Times are milliseconds from the session's start.
"""
import json
import sys

path = sys.argv[1]
only = sys.argv[2] if len(sys.argv) > 2 else None
reqs = {}   # (direction, id) -> dict
order = []
barrier_after = []  # client requests in order: (line, id)
line_no = 0
for line in open(path):
    line_no += 1
    o = json.loads(line)
    if "message" not in o:
        print(f"line {line_no}: {o}")
        continue
    m, d, t = o["message"], o["direction"], o["time"] / 1000
    if not isinstance(m, dict):
        continue
    if "method" in m and "id" in m:
        k = (d, json.dumps(m["id"]))
        reqs[k] = {"method": m["method"], "sent": (line_no, t), "cancels": [], "answers": [], "progress": [], "params": m.get("params")}
        order.append(k)
    elif "method" in m:
        p = m.get("params") or {}
        if m["method"] in ("notifications/cancelled", "$/cancelRequest"):
            rid = p.get("requestId", p.get("id"))
            k = (d, json.dumps(rid))  # a party cancels its own request
            if k in reqs:
                reqs[k]["cancels"].append((line_no, t, p.get("reason")))
            else:
                print(f"line {line_no}: cancel of unknown {d} {rid}")
        elif m["method"] == "notifications/progress":
            tok = p.get("progressToken")
            for k in reversed(order):
                if reqs[k]["params"] and isinstance(reqs[k]["params"], dict) and (reqs[k]["params"].get("_meta") or {}).get("progressToken") == tok:
                    reqs[k]["progress"].append((line_no, t, p.get("progress")))
                    break
    elif "id" in m:
        peer = "server-to-client" if d == "client-to-server" else "client-to-server"
        k = (peer, json.dumps(m["id"]))
        if k in reqs:
            kind = "error %s %s" % (m["error"].get("code"), m["error"].get("message", "")[:40]) if "error" in m else "result"
            reqs[k]["answers"].append((line_no, t, kind))
        else:
            print(f"line {line_no}: answer to unknown id {m['id']}")
for k in order:
    r = reqs[k]
    if only and r["method"] != only and not r["cancels"]:
        continue
    s = f"{k[0][:6]} id {k[1]:>5} {r['method']:<22} sent L{r['sent'][0]} {r['sent'][1]:9.1f}"
    for c in r["cancels"]:
        s += f" | CANCEL L{c[0]} {c[1]:9.1f} ({c[2]})"
    after = [p for p in r["progress"] if r["cancels"] and p[0] > r["cancels"][0][0]]
    if r["progress"]:
        s += f" | progress x{len(r['progress'])}" + (f" ({len(after)} after cancel, last L{after[-1][0]})" if after else "")
    for a in r["answers"]:
        s += f" | ANSWER L{a[0]} {a[1]:9.1f} {a[2]}"
    if not r["answers"]:
        s += " | no answer"
    print(s)
