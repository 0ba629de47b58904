#!/usr/bin/env python3
"""The outputs README.md shows, compared with what its SQL printed.

Usage: readme_outputs.py README.md psql-output

The psql output is test/integration/readme.sh's: each run block announced by a line
"== README.md:LINE" (LINE the block's first line).  Compared:
  - every ```text block, against the output of the last sql block run
    before it: each of its lines must be a line of that output;
  - every line "--  shown" inside a run sql block (two spaces after the
    dashes; a trailing "   (remark)" is not part of it), against that
    block's own output.
Lines are compared with runs of blanks collapsed, and psql's continuation
"+" and a trailing comma dropped.  A text block marked <!-- noisy --> (the
last non-blank line before it) shows fresh noise: its numbers are masked on
both sides, so that its shape (columns, labels, rows) is compared and not
its values.  A text block marked <!-- not output --> is not compared.
Exit status 1 when a shown line is missing, with each one listed.
"""
import re
import sys

NUM = re.compile(r"-?\d+(\.\d+)?(e[-+]?\d+)?")


def norm(line, noisy):
    # psql names the script line of an error: "psql:FILE:LINE: ERROR: ..."
    s = re.sub(r"^psql:[^ ]*:\d+: ", "", line.rstrip())
    if s.endswith("+"):
        s = s[:-1].rstrip()
    s = s.rstrip(",")
    s = " ".join(s.split())
    if noisy:
        s = NUM.sub("#", s)
        s = re.sub(r"-+", "-", s)
    return s


def blocks(path):
    """(kind, first line, lines, mark) of each fenced block, in order."""
    out, mark, inblock = [], "", None
    for no, line in enumerate(open(path, encoding="utf-8").read().split("\n"), 1):
        if line.startswith("```"):
            if inblock is None:
                inblock = (line[3:].strip().split(" ")[0], no + 1, [], mark)
            else:
                out.append(inblock)
                inblock = None
            mark = ""
            continue
        if inblock is not None:
            inblock[2].append(line)
        elif line.strip():
            m = re.match(r"^<!--\s*(.*?)\s*-->\s*$", line)
            mark = m.group(1) if m else ""
    return out


def segments(path):
    seg, cur = {}, None
    for line in open(path, encoding="utf-8", errors="replace").read().split("\n"):
        m = re.match(r"^== .*:(\d+)$", line)
        if m:
            cur = int(m.group(1))
            seg[cur] = []
        elif cur is not None:
            seg[cur].append(line)
    return seg


def main():
    readme, output = sys.argv[1], sys.argv[2]
    seg = segments(output)
    last, missing, compared, lines = None, [], 0, 0
    for kind, first, body, mark in blocks(readme):
        if kind == "sql" and first in seg:
            last = first
            got = {norm(l, False) for l in seg[first]}
            for i, l in enumerate(body):
                m = re.match(r"^--  (.*?)(\s{3,}\(.*\))?\s*$", l)
                if m and m.group(1).strip():
                    lines += 1
                    if norm(m.group(1), False) not in got:
                        missing.append(f"{readme}:{first + i}: {m.group(1).strip()}")
        elif kind == "text" and mark != "not output":
            if last is None:
                missing.append(f"{readme}:{first}: a text block before any SQL ran")
                continue
            noisy = mark == "noisy"
            got = {norm(l, noisy) for l in seg[last]}
            compared += 1
            for i, l in enumerate(body):
                if not l.strip():
                    continue
                lines += 1
                if norm(l, noisy) not in got:
                    missing.append(f"{readme}:{first + i}: {l.strip()}   (output of the block at line {last})")
    if missing:
        print(f"FAIL {readme}: {len(missing)} shown output lines are not what the SQL printed:")
        for m in missing:
            print("     " + m)
        return 1
    print(f"ok   {readme}: {compared} output blocks and {lines} shown lines match what the SQL printed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
