"""Summarizes probe-all's results: one block per run, from the probe's --json.

    python3 summary.py OUT_DIR RUN...
    python3 summary.py --expected EXPECTED OUT_DIR RUN...

reads OUT_DIR/RUN.json and OUT_DIR/RUN.sdk (the SDK and its version) and prints, for each run,
its first line (run, SDK and version, dialect, verdict over every repeat), a line for a peer
that speaks another protocol version than the dialect's, then each finding (a broken rule, a
session error, a vacuous scenario) with the scenario, and how many of the scenario's repeats
showed it: `(5/5)` is a stable finding. The lines are sorted, so the text depends only on
what the peer did. With `--expected`, it writes the two sides probe-all compares instead
(see `allow_sometimes`).
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


def expected_blocks(path: str, runs: list[str]) -> list[str]:
    """The blocks of `runs` in the expected file, in order (a line saying so for a run it lacks)."""
    blocks: dict[str, list[str]] = {}
    current = None
    with open(path) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            if not line.startswith(" "):
                current = line.split(":", 1)[0]
                blocks[current] = []
            blocks.setdefault(current or "", []).append(line.rstrip("\n"))
    lines = []
    for run in runs:
        lines += blocks.get(run, [f"{run}: (no expected outcome in examples/peers/expected.txt)"])
    return lines


def allow_sometimes(expected: list[str], found: list[str]) -> tuple[list[str], list[str]]:
    """Both sides with what the expected side allows to vary taken out.

    A finding expected `(sometimes)` (a race the peer loses now and then) may be found in any
    number of repeats, or none; a verdict expected `pass|fail` may be either.
    """
    def keyed(lines: list[str]) -> list[tuple[str, str]]:
        """Each line with its run's name: a finding may vary in one run and not in another."""
        run, out = "", []
        for line in lines:
            if not line.startswith(" "):
                run = line.split(":", 1)[0]
            out.append((run, line))
        return out

    key = lambda run, line: (run, line.rsplit(" (", 1)[0])
    sometimes = {key(r, x) for r, x in keyed(expected) if x.endswith(" (sometimes)")}
    exp = [x for x in expected if not x.endswith(" (sometimes)")]
    got = [x for r, x in keyed(found) if not (x.startswith(" ") and key(r, x) in sometimes)]
    for i, x in enumerate(exp):
        if not x.startswith(" ") and "|" in x.rsplit(": ", 1)[-1]:
            head, verdicts = x.rsplit(": ", 1)
            for j, y in enumerate(got):
                if not y.startswith(" ") and y.rsplit(": ", 1)[0] == head and y.rsplit(": ", 1)[1] in verdicts.split("|"):
                    got[j] = x
    return exp, got


def self_test() -> None:
    """What `allow_sometimes` lets vary: a finding `(sometimes)` in one run only (the same
    finding in another run must be found as expected there), and a verdict `a|b`."""
    expected = [
        "a: x 1, d: warn",
        "  s: SHOULD r (5/5)",
        "b: x 1, d: warn|fail",
        "  s: SHOULD r (sometimes)",
    ]
    for found, same in [
        (["a: x 1, d: warn", "  s: SHOULD r (5/5)", "b: x 1, d: fail"], True),
        (["a: x 1, d: warn", "  s: SHOULD r (5/5)", "b: x 1, d: warn", "  s: SHOULD r (2/5)"], True),
        (["a: x 1, d: warn", "b: x 1, d: warn", "  s: SHOULD r (5/5)"], False),
        (["a: x 1, d: warn", "  s: SHOULD r (4/5)", "b: x 1, d: warn"], False),
    ]:
        exp, got = allow_sometimes(expected, found)
        if (exp == got) != same:
            sys.exit(f"summary.py --self-test: {found} compared {'differs' if same else 'the same'}")


def main() -> None:
    if sys.argv[1] == "--self-test":
        self_test()
        return
    if sys.argv[1] == "--expected":
        # summary.py --expected EXPECTED OUT_DIR RUN...: write OUT_DIR/expected.txt and
        # OUT_DIR/found.txt, the two sides to compare.
        path, out_dir, runs = sys.argv[2], sys.argv[3], sys.argv[4:]
        found = [line for run in runs for line in block(out_dir, run)]
        exp, got = allow_sometimes(expected_blocks(path, runs), found)
        for name, lines in (("expected", exp), ("found", got)):
            with open(f"{out_dir}/{name}.txt", "w") as f:
                f.write("\n".join(lines) + "\n")
        return
    out_dir, runs = sys.argv[1], sys.argv[2:]
    for run in runs:
        print("\n".join(block(out_dir, run)))


if __name__ == "__main__":
    main()
