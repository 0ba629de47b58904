#!/usr/bin/env python3
"""The data sets of test/paper/clusters.sh, as CSV for COPY.

scikit-learn's bundled data sets (read from the package's own files, no
download): iris, wine, breast_cancer, digits, each attribute scaled to
[0, 1] by its minimum and maximum over the data set; and a synthetic table
of N rows in d = 8 attributes with five clusters of unequal size (45%, 25%,
15%, 10% and 5% of the rows), centres drawn uniformly in [0.15, 0.85]^8,
rows N(centre, 0.08^2) per attribute clipped to [0, 1].  Writes into DIR:
  sets.csv  ds, ord, d, n, classes
  rows.csv  ds, id, label, x (a float8[] literal with 17 significant digits)

Usage: clusters_data.py DIR N DS [DS ...]   (DS: a data set, or synthetic)
"""
import csv
import sys

import numpy as np

# the bundled data sets, scaled as the real-data experiment scales them
from realdata_data import LOADERS, scaled

SHARES = [0.45, 0.25, 0.15, 0.10, 0.05]


def synthetic(n, rng):
    d = 8
    centres = rng.uniform(0.15, 0.85, (len(SHARES), d))
    sizes = [int(round(s * n)) for s in SHARES]
    sizes[0] += n - sum(sizes)
    y = np.repeat(np.arange(len(SHARES)), sizes)
    x = np.clip(centres[y] + rng.normal(0.0, 0.08, (n, d)), 0.0, 1.0)
    perm = rng.permutation(n)
    return x[perm], y[perm]


def main():
    out, n_syn, names = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    rng = np.random.default_rng(20261128)
    with open(f"{out}/sets.csv", "w", newline="") as fs, open(f"{out}/rows.csv", "w", newline="") as fr:
        ws, wr = csv.writer(fs), csv.writer(fr)
        ws.writerow(["ds", "ord", "d", "n", "classes"])
        for ord_, ds in enumerate(names, 1):
            if ds == "synthetic":
                x, y = synthetic(n_syn, rng)
            else:
                bunch = LOADERS[ds]()
                x, y = scaled(np.asarray(bunch.data, dtype=float)), np.asarray(bunch.target)
            n, d = x.shape
            for i in range(n):
                wr.writerow([ds, i + 1, int(y[i]) + 1, "{" + ",".join(f"{v:.17g}" for v in x[i]) + "}"])
            ws.writerow([ds, ord_, d, n, len(np.unique(y))])


if __name__ == "__main__":
    main()
