"""Checks an LSP session recorded by `cancelcheck watch` (its JSONL log) by hand, independently
of cancelcheck: per method, how many requests, how many cancelled, how each was answered (a
result, or an error and its code), how many answers each got, and where each answer of a
cancelled request lies relative to its cancel (before it, or after it; and after it, whether
after an answer to a later request of the client's, which proves the server had read the
cancel). Usage: python3 check.py LOG.jsonl
"""
import collections
import json
import sys

reqs, order = {}, []
client_seq = []  # ids of client requests in the order sent
ended = False
for n, line in enumerate(open(sys.argv[1]), 1):
    o = json.loads(line)
    if o.get("closed"):
        ended = True
        continue
    m, d = o["message"], o["direction"]
    if not isinstance(m, dict):
        continue
    if d == "client-to-server":
        if "method" in m and "id" in m:
            reqs[json.dumps(m["id"])] = {"method": m["method"], "line": n, "cancel": None, "answers": [], "pos": len(client_seq)}
            client_seq.append(json.dumps(m["id"]))
        elif m.get("method") == "$/cancelRequest":
            k = json.dumps(m["params"]["id"])
            if k in reqs and reqs[k]["cancel"] is None:
                reqs[k]["cancel"] = (n, len(client_seq))
            elif k not in reqs:
                print("cancel of an id never sent:", k)
    else:
        if "id" in m and "method" not in m:
            k = json.dumps(m["id"])
            if k in reqs:
                kind = "result" if "result" in m else "error %d" % m["error"]["code"]
                reqs[k]["answers"].append((n, kind))
# For the proof of reading: the first line at which an answer arrives to a client request sent after the cancel.
first_answer_line = {}
for k, r in reqs.items():
    if r["answers"]:
        first_answer_line[r["pos"]] = r["answers"][0][0]
table = collections.defaultdict(collections.Counter)
for k, r in reqs.items():
    c = table[r["method"]]
    c["requests"] += 1
    c[f"answers={len(r['answers'])}"] += 1
    if r["cancel"] is None:
        for _, kind in r["answers"]:
            c["uncancelled: " + kind] += 1
        continue
    c["cancelled"] += 1
    cl, pos = r["cancel"]
    # the earliest answer to any client request sent after the cancel
    proof = min((first_answer_line[p] for p in first_answer_line if p >= pos), default=None)
    for al, kind in r["answers"]:
        where = "before its cancel" if al < cl else ("after the cancel was read" if proof is not None and al > proof else "after its cancel, unproven read")
        c[f"cancelled: {kind} {where}"] += 1
print("session ends in the record:", ended)
for method, c in sorted(table.items()):
    print(method)
    for key, v in sorted(c.items()):
        print(f"   {key}: {v}")
