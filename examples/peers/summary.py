"""Summarizes probe-all's results: one block per run, from the probe's --json.

    python3 summary.py OUT_DIR RUN...

reads OUT_DIR/RUN.json and OUT_DIR/RUN.sdk (the SDK and its version) and prints, for each run,
its first line (run, SDK and version, dialect, verdict over every repeat), a line for a peer
that speaks another protocol version than the dialect's, then each finding (a broken rule, a
session error, a vacuous scenario) with the scenario, and how many of the scenario's repeats
showed it: `(5/5)` is a stable finding. The lines are sorted, so the text depends only on
what the peer did.
"""

import json
import sys
from collections import defaultdict


def block(out_dir: str, run: str) -> list[str]:
    with open(f"{out_dir}/{run}.json") as f:
        report = json.load(f)
    with open(f"{out_dir}/{run}.sdk") as f:
        sdk, dialect = f.read().split("\t")
    repeats: dict[str, int] = defaultdict(int)
    seen: dict[tuple[str, str], int] = defaultdict(int)
    for s in report["scenarios"]:
        name = s["name"]
        repeats[name] += 1
        found = set()
        for v in s["violations"]:
            found.add(f"{v['strength']} {v['invariant']}")
        for e in s["errors"]:
            found.add(f"error {e['kind']}")
        if s["vacuous_because"]:
            found.add("vacuous")
        for what in found:
            seen[(name, what)] += 1
    lines = [f"{run}: {sdk}, {dialect.strip()}: {report['verdict']}"]
    if report.get("protocol"):
        p = report["protocol"]
        lines.append(f"  protocol: the peer speaks {p['peer']}, not {p['dialect_version']}")
    for (name, what), n in sorted(seen.items()):
        lines.append(f"  {name}: {what} ({n}/{repeats[name]})")
    return lines


def main() -> None:
    out_dir, runs = sys.argv[1], sys.argv[2:]
    for run in runs:
        print("\n".join(block(out_dir, run)))


if __name__ == "__main__":
    main()
