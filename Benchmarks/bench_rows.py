#!/usr/bin/env python3
"""One table for every SPEC §11 row, gathered from the separate benchmark scripts of one run.

Each script calls `record(...)` for the rows it measures. When the environment names a rows file
(`BENCH_ROWS`, set by scripts/bench-peers.sh) the row is appended to it as one JSON line;
otherwise `record` does nothing and the script only prints its own table. `python3 bench_rows.py
table FILE` prints the gathered rows as one Markdown table, and `python3 bench_rows.py memory-cache
FILE` turns memory-cache-bench's JSON lines (read from standard input) into rows.

A row's ratio is stated the way its target is: a time ratio (ours / peer, lower is better) for
`≤` targets on times, a speed ratio (ours / peer, higher is better) for `≥` targets on rates.
Rows with an absolute target (peak RSS) compare `ours` with the target itself.
"""
import json
import os
import sys


def record(section, work, ours, unit, peer, peer_value, ratio=None, target=None, absolute=False):
    """Appends one row. `target` is a string such as '≤ 1.1' or '≥ 1.5' (compared with the
    ratio), or with `absolute` a bound on `ours` itself in `unit`."""
    path = os.environ.get("BENCH_ROWS")
    if not path:
        return
    row = {"section": section, "work": work, "ours": ours, "unit": unit, "peer": peer,
           "peer_value": peer_value, "ratio": ratio, "target": target, "absolute": absolute}
    with open(path, "a") as rows:
        rows.write(json.dumps(row, ensure_ascii=False) + "\n")


def met(row):
    """True, False, or None when the row has no target of its own."""
    target = row.get("target")
    if not target:
        return None
    operator, bound = target.split()
    value = row["ours"] if row.get("absolute") else row["ratio"]
    return value <= float(bound) if operator == "≤" else value >= float(bound)


def number(value, unit):
    if value is None:
        return "—"
    if unit in ("images/s", "requests/s", "hits/s"):
        return f"{value:,.0f}"
    return f"{value:,.1f}"


def table(path):
    rows = [json.loads(line) for line in open(path) if line.strip()]
    print("| § 11 row | ours | peer | peer's figure | ratio | target | |")
    print("|---|---:|---|---:|---:|---|---|")
    for row in rows:
        unit = row["unit"]
        ratio = "—" if row["ratio"] is None else f"{row['ratio']:.2f}x"
        target = row["target"] or ""
        if row.get("absolute") and target:
            target = f"{target} {unit}"
        verdict = {True: "met", False: "**missed**", None: ""}[met(row)]
        print(f"| {row['work']} | {number(row['ours'], unit)} {unit} | {row['peer']} | "
              f"{number(row['peer_value'], unit)} {unit} | {ratio} | {target} | {verdict} |")
    missed = [row["work"] for row in rows if met(row) is False]
    print()
    print(f"{len(rows)} rows; {sum(1 for row in rows if met(row))} targets met"
          + (f"; missed: {', '.join(missed)}" if missed else "") + ".")


def memory_cache(path):
    """Rows from memory-cache-bench's JSON lines: hits per second of wall time against NSCache."""
    os.environ["BENCH_ROWS"] = path
    for line in sys.stdin:
        line = line.strip()
        if not line.startswith("{"):
            continue
        row = json.loads(line)
        if row["op"] != "hit":
            continue
        threads = row["threads"]
        record("cache", f"memory-cache hit, {threads} thread{'s' if threads > 1 else ''}",
               row["memory_storage_per_s"], "hits/s", "NSCache", row["nscache_per_s"],
               row["ratio"], "≥ 5")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "table":
        table(sys.argv[2])
    elif len(sys.argv) == 3 and sys.argv[1] == "memory-cache":
        memory_cache(sys.argv[2])
    else:
        sys.exit("usage: bench_rows.py table FILE | memory-cache FILE < memory-cache-bench output")
