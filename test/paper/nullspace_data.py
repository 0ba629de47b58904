#!/usr/bin/env python3
"""The scene data set (Mulan; the null-space cleaning paper's Table 1) as
one CSV for \\copy: id, features as a float8[] literal (294), labels as a
float8[] literal (6).  The two files of the distribution are plain CSV
without a header (see the data set's README); together they are the
paper's 2407 instances.

Usage: nullspace_data.py DATA_DIR OUT.csv
"""
import csv
import os
import sys


def main():
    src, dst = sys.argv[1], sys.argv[2]
    n = 0
    with open(dst, "w", newline="") as f:
        w = csv.writer(f)
        for name in ("scene-train.arff", "scene-test.arff"):
            with open(os.path.join(src, name)) as g:
                for line in g:
                    line = line.strip()
                    if not line:
                        continue
                    v = line.split(",")
                    if len(v) != 300:
                        sys.exit(f"{name}: a row of {len(v)} values, not 300")
                    n += 1
                    w.writerow([n, "{" + ",".join(v[:294]) + "}", "{" + ",".join(v[294:]) + "}"])
    if n != 2407:
        sys.exit(f"scene: {n} rows, not the paper's 2407")


if __name__ == "__main__":
    main()
