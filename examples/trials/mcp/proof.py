"""For each request cancelled and still answered, in a JSONL transcript (as `cancelcheck watch`
writes it): was the cancel provably read before the answer, i.e. did an answer to a request
the client sent after the cancel arrive before the cancelled request's answer? On a FIFO
stream that proves the server had read the cancel when it answered (no-answer-after-cancel).
Usage: python3 proof.py LOG.jsonl"""
import json
import sys

sent, cancel, answer = {}, {}, {}
for n, line in enumerate(open(sys.argv[1]), 1):
    o = json.loads(line)
    m = o.get("message")
    if not isinstance(m, dict):
        continue
    if o["direction"] == "client-to-server":
        if "id" in m and "method" in m:
            sent[json.dumps(m["id"])] = n
        elif m.get("method") in ("notifications/cancelled", "$/cancelRequest"):
            p = m["params"]
            cancel.setdefault(json.dumps(p.get("requestId", p.get("id"))), n)
    elif "id" in m and "method" not in m:
        answer.setdefault(json.dumps(m["id"]), n)
before = crossed = proven = unanswered = 0
for k, c in cancel.items():
    a = answer.get(k)
    if a is None:
        unanswered += 1
    elif a < c:
        before += 1
    elif any(s > c and answer.get(j, 10**12) < a for j, s in sent.items()):
        proven += 1
        print("answered after its cancel was provably read:", k, "cancel line", c, "answer line", a)
    else:
        crossed += 1
print(f"cancels {len(cancel)}: unanswered {unanswered}, answered before the cancel {before}, "
      f"answered after it, read not proven {crossed}, answered after it was provably read {proven}")
