"""Finishes the mdoc page that swift-argument-parser's generate-manual writes for kf.

    python3 scripts/lib/kf_manual.py PAGE

generate-manual copies each command's discussion as it is, so a blank line between paragraphs
becomes an empty input line (which groff's mdoc warns about) and a paragraph starting with a
quote would be read as a control line. This turns empty lines into paragraph breaks, escapes such
lines, and adds the ENVIRONMENT, FILES and SEE ALSO sections of kf-manual-sections.mdoc before
AUTHORS (in mdoc's section order). The page is rewritten in place.
"""
import os
import sys

BREAKING = (".Sh", ".Ss", ".It", ".Bl", ".El", ".Pp", ".Bd", ".Ed", ".Nm", ".Dd", ".Dt", ".Os")


def finish(lines, sections):
    out = []
    for index, line in enumerate(lines):
        if line.strip() == "":
            previous = out[-1] if out else ""
            following = next((l for l in lines[index + 1:] if l.strip()), "")
            if previous.startswith(BREAKING) or following.startswith(BREAKING) or not previous:
                continue
            out.append(".Pp")
            continue
        if line.startswith("'"):
            line = "\\&" + line
        out.append(line)
    insert_at = next((i for i, l in enumerate(out) if l.startswith(".Sh AUTHORS")), len(out))
    return out[:insert_at] + sections + out[insert_at:]


def main():
    page = sys.argv[1]
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "kf-manual-sections.mdoc"), encoding="utf-8") as handle:
        sections = handle.read().rstrip("\n").split("\n")
    with open(page, encoding="utf-8") as handle:
        lines = handle.read().rstrip("\n").split("\n")
    if any(l.startswith(".Sh ENVIRONMENT") for l in lines):
        return
    with open(page, "w", encoding="utf-8") as handle:
        handle.write("\n".join(finish(lines, sections)) + "\n")


main()
