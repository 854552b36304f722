#!/usr/bin/env python3
"""Sorts ThreadSanitizer's reports in a test log into two kinds (issue 19, part 2).

Synchronization.Mutex on Linux hands a contended lock over through the kernel (a priority-
inheritance futex): the waiter returns from the system call owning the lock without an atomic
operation TSan can see, so TSan reports "races" between two critical sections of one Mutex. A
twelve-line program that only appends to an array under a Mutex from 16 threads gets such reports.

A report whose two accesses both run inside a `withLock { ... }` closure in this repository's
sources (lexically, at some frame of each stack) is counted as `mutex-handoff`; every other report
is `other`, and only those fail the run. Prints one line per `other` report's summary, then
`tsan-reports: total=N mutex-handoff=M other=K`.

usage: tsan-reports.py LOG [REPO_ROOT]
"""
import re
import sys
from functools import lru_cache

FRAME = re.compile(r"^\s+#\d+ \S+ (/\S+\.swift):(\d+)(?::\d+)?")


@lru_cache(maxsize=None)
def lock_spans(path):
    """Line ranges (first, last) of every closure passed to `withLock` in `path`."""
    try:
        lines = open(path, encoding="utf-8").read().split("\n")
    except OSError:
        return ()
    spans = []
    for start, line in enumerate(lines):
        column = line.find("withLock")
        if column < 0:
            continue
        depth, opened = 0, False
        for number in range(start, len(lines)):
            text = lines[number][column:] if number == start else lines[number]
            text = re.sub(r'"(?:[^"\\]|\\.)*"', '""', text.split("//")[0])
            for char in text:
                if char == "{":
                    depth, opened = depth + 1, True
                elif char == "}":
                    depth -= 1
            if opened and depth <= 0:
                spans.append((start + 1, number + 1))
                break
    return tuple(spans)


def locked(stack, root):
    for path, line in stack:
        if path.startswith(root) and any(a <= line <= b for a, b in lock_spans(path)):
            return True
    return False


def reports(text):
    for block in text.split("WARNING: ThreadSanitizer:")[1:]:
        block = block.split("\n==================")[0]
        stacks, current = [], None
        for line in block.split("\n"):
            if re.match(r"^  (\S.*) by (thread|main thread)", line) and ("access" in line or "read" in line or "write" in line):
                current = []
                stacks.append(current)
            elif re.match(r"^  \S", line):
                current = None
            elif current is not None:
                match = FRAME.match(line)
                if match:
                    current.append((match.group(1), int(match.group(2))))
        summary = next((l for l in block.split("\n") if l.startswith("SUMMARY:")), "SUMMARY: ?")
        yield stacks[:2], summary


def main():
    log = sys.argv[1]
    root = sys.argv[2] if len(sys.argv) > 2 else "/"
    total = handoff = 0
    others = []
    for stacks, summary in reports(open(log, encoding="utf-8", errors="replace").read()):
        total += 1
        if len(stacks) == 2 and all(locked(stack, root) for stack in stacks):
            handoff += 1
        else:
            others.append(summary)
    for summary in sorted(set(others)):
        print(f"other: {summary}")
    print(f"tsan-reports: total={total} mutex-handoff={handoff} other={len(others)}")
    return 1 if others else 0


if __name__ == "__main__":
    sys.exit(main())
