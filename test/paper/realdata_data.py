#!/usr/bin/env python3
"""The real data sets of test/paper/realdata.sh, as CSV for COPY.

scikit-learn's bundled data sets (Debian's python3-sklearn reads them from
the package's own files, no download): iris, wine, breast_cancer, digits.
Each attribute is scaled to [0, 1] by its minimum and maximum over the data
set (a constant attribute becomes 0).  Writes into DIR:
  sets.csv   ds, ord, d, n, classes, and public-free statistics of the data
             (mean squared distance of the sampled pairs, mean within-class
             variance per attribute, squared distance of the two farthest
             class centres) that the report uses to explain the advisor
  rows.csv   ds, id, label, x (a float8[] literal with 17 significant digits)
  pairs.csv  ds, pair, a, b: a fixed sample of distinct pairs per data set

Usage: realdata_data.py DIR PAIRS DS [DS ...]
"""
import csv
import sys

import numpy as np
from sklearn import datasets

LOADERS = {
    "iris": datasets.load_iris,
    "wine": datasets.load_wine,
    "breast_cancer": datasets.load_breast_cancer,
    "digits": datasets.load_digits,
}


def scaled(x):
    lo, hi = x.min(axis=0), x.max(axis=0)
    span = np.where(hi > lo, hi - lo, 1.0)
    return np.clip((x - lo) / span, 0.0, 1.0)


def main():
    out, n_pairs, names = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    rng = np.random.default_rng(20240601)
    with open(f"{out}/sets.csv", "w", newline="") as fs, \
            open(f"{out}/rows.csv", "w", newline="") as fr, \
            open(f"{out}/pairs.csv", "w", newline="") as fp:
        ws, wr, wp = csv.writer(fs), csv.writer(fr), csv.writer(fp)
        ws.writerow(["ds", "ord", "d", "n", "classes", "mean_pair_dist2",
                     "within_class_var", "max_centre_dist2", "min_centre_dist2"])
        for ord_, ds in enumerate(names, 1):
            bunch = LOADERS[ds]()
            x, y = scaled(np.asarray(bunch.data, dtype=float)), np.asarray(bunch.target)
            n, d = x.shape
            classes = np.unique(y)
            for i in range(n):
                wr.writerow([ds, i + 1, int(y[i]) + 1,
                             "{" + ",".join(f"{v:.17g}" for v in x[i]) + "}"])
            a = rng.integers(0, n, n_pairs)
            b = (a + rng.integers(1, n, n_pairs)) % n
            for p in range(n_pairs):
                wp.writerow([ds, p + 1, int(a[p]) + 1, int(b[p]) + 1])
            centres = np.array([x[y == c].mean(axis=0) for c in classes])
            within = float(np.mean([x[y == c].var(axis=0).mean() for c in classes]))
            cd = [float(((centres[i] - centres[j]) ** 2).sum())
                  for i in range(len(classes)) for j in range(i + 1, len(classes))]
            pair_d2 = float(((x[a] - x[b]) ** 2).sum(axis=1).mean())
            ws.writerow([ds, ord_, d, n, len(classes), pair_d2, within, max(cd), min(cd)])


if __name__ == "__main__":
    main()
