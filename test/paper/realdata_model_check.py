#!/usr/bin/env python3
"""The clustering model of jl_advise against the real-data measurements,
without new releases.

Reads RESULTS/realdata_{sets,runs}.csv (test/paper/realdata.sh). For every
cell (data set, noise, epsilon) and key it ranks the measured options by the
model with the advisor's public inputs (dist2 = d/6, cluster_var = 1/24,
n = rows) and each option's noise variance of that key, takes rank 1 and
judges it as realdata_report.py does: within one standard error of the best
measured option, paired over keys.  Models: 'old' (centres estimated from
n/2 rows: c / sqrt(1 + 4 k sigma^2 / (n r2))) and a number m, centres
averaged from m rows (m = 1: k-means's seeds, src/math/estimate/advise.c):
c / sqrt(1 + 1/m + (2/m + 1/m^2) k sigma^2 / r2).

Usage: realdata_model_check.py RESULTS_DIR [old|m ...]   (default: old 1)
"""
import math
import os
import sys
from collections import defaultdict

import numpy as np
from scipy.stats import norm, t as tdist

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from realdata_report import read, accuracies, Cells, mean_se  # noqa: E402


def m4(kind, d):
    """E[(sqrt(k) P_ij)^4]; sparse at its default density 1/sqrt(d)."""
    return {"rademacher": 1.0, "gaussian": 3.0, "achlioptas": 3.0}.get(kind, math.sqrt(d))


def score(model, kind, k, d, n, s2, tau2=1 / 24):
    r2 = d / 6
    ident = kind == "identity"
    rho = 1.0 if ident else (d + k + m4(kind, d) - 2) / k
    sg = tau2 * rho + s2
    q = k * sg / r2
    c = math.sqrt(r2) / (2 * math.sqrt(sg))
    if model == "old":
        c /= math.sqrt(1 + 4 * q / n)
    else:
        c /= math.sqrt(1 + 1 / model + q * (2 / model + 1 / model ** 2))
    return norm.logsf(c) if ident else tdist.logsf(c, k)


def check(res, model):
    sets = read(os.path.join(res, "realdata_sets.csv"))
    runs = read(os.path.join(res, "realdata_runs.csv"))
    cells = Cells(runs, accuracies(runs))
    s2 = {(r["ds"], r["noise"], float(r["epsilon"]), int(r["rep"]), r["kind"], int(r["k"])):
          float(r["noise_variance"]) for r in runs if not r["refused"]}
    within = 0
    for st in sets:
        ds, d, n = st["ds"], int(st["d"]), int(st["n"])
        for noise in ("laplace", "gaussian"):
            for eps in sorted({float(r["epsilon"]) for r in runs}):
                opts = [(kd, k) for (a, nz, e, kd, k) in cells.val if (a, nz, e) == (ds, noise, eps)]
                acc = {o: cells.series(ds, noise, eps, *o, "acc") for o in opts}
                reps = sorted({rp for o in opts for rp in acc[o]})
                full = [o for o in opts if len(acc[o]) == len(reps)]
                best = max(full, key=lambda o: np.mean(list(acc[o].values())))
                diff, picks = [], defaultdict(int)
                for rp in reps:
                    o = min((score(model, kd, k, d, n, s2[(ds, noise, eps, rp, kd, k)]), (kd, k))
                            for kd, k in opts if rp in acc[(kd, k)])[1]
                    picks[o] += 1
                    diff.append(acc[best][rp] - acc[o][rp])
                dm, dse = mean_se(diff)
                ok = dm <= 0 or dm <= (0 if math.isnan(dse) else dse)
                within += ok
                print(f"{ds} {noise} {eps:g}: {'within' if ok else 'NOT within'} one se; "
                      f"best {best} {np.mean(list(acc[best].values())):.3f}, "
                      f"model's rank 1 {dict(picks)}, behind by {dm:.3f} ± {dse:.3f}")
    return within


def main():
    res = sys.argv[1] if len(sys.argv) > 1 else "test/paper/results"
    for m in sys.argv[2:] or ["old", "1"]:
        model = "old" if m == "old" else float(m)
        print(f"model {m}: within one se in {check(res, model)} cells")


if __name__ == "__main__":
    main()
