#!/usr/bin/python3
"""k-means against scikit-learn, one core each, on the same points, from the
same start, for the same number of iterations (test/bench/bench.sh, section 9; or
alone: make -C test/unit lloyd_from && test/bench/bench_kmeans.py).

Points: n uniform in [0, 1)^20 (no clusters: Lloyd runs its full count); c
centroids started at c of the points (numpy's generator, seed 1).  Both run
max_iter iterations with tol = 0 (neither converges on these points within
them), scikit-learn as KMeans(c, init=start, n_init=1, algorithm='lloyd')
with one thread (OMP_NUM_THREADS=1, threadpoolctl), jldp as
jl_kmeans_lloyd_from (test/unit/lloyd_from, the same code as the
jl_kmeans aggregate's iterations).  Each figure is the fastest of 3 runs.
Prints a markdown table: ms per iteration of each, their ratio, the
iterations and the relative difference of the inertias.
"""
import os
import subprocess
import sys
import tempfile
import time

os.environ["OMP_NUM_THREADS"] = "1"
os.environ["OPENBLAS_NUM_THREADS"] = "1"
import numpy as np  # noqa: E402
from sklearn.cluster import KMeans  # noqa: E402
from threadpoolctl import threadpool_limits  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
LLOYD = os.path.join(HERE, "..", "unit", "lloyd_from")
K = 20
SIZES = [int(s) for s in os.environ.get("JLDP_BENCH_KMEANS_N", "10000 100000 1000000").split()]
CLUSTERS = [8, 32]
REPS = 3


def iterations_for(n):
    # about the same work for each n: fewer iterations for larger n
    return {10000: 100, 100000: 50}.get(n, 20)


def main():
    rows = []
    with tempfile.TemporaryDirectory() as tmp, threadpool_limits(limits=1):
        for n in SIZES:
            rng = np.random.default_rng(1)
            X = rng.random((n, K))
            xpath = os.path.join(tmp, "X.bin")
            X.tofile(xpath)
            for c in CLUSTERS:
                start = X[rng.choice(n, c, replace=False)]
                cpath = os.path.join(tmp, "C0.bin")
                start.tofile(cpath)
                it = iterations_for(n)
                best = None
                for _ in range(REPS):
                    t = time.perf_counter()
                    km = KMeans(c, init=start, n_init=1, max_iter=it, tol=0.0,
                                algorithm="lloyd").fit(X)
                    t = time.perf_counter() - t
                    best = t if best is None else min(best, t)
                out = subprocess.run([LLOYD, xpath, cpath, str(n), str(K), str(c), str(it), "0",
                                      str(REPS)], check=True, capture_output=True, text=True).stdout
                jit, jsec, jinertia = out.split()
                jit, jsec, jinertia = int(jit), float(jsec), float(jinertia)
                rows.append((n, c, it, km.n_iter_, jit, best, jsec, km.inertia_, jinertia))
    print("| n | clusters | iterations (scikit-learn, jldp) | scikit-learn ms/iteration | jldp ms/iteration | jldp / scikit-learn | inertia, relative difference |")
    print("|---|---|---|---|---|---|---|")
    for n, c, it, sit, jit, ssec, jsec, sin, jin in rows:
        print(f"| {n:,} | {c} | {sit}, {jit} | {1000 * ssec / sit:.2f} | {1000 * jsec / jit:.2f} | "
              f"{(jsec / jit) / (ssec / sit):.2f} | {abs(jin - sin) / sin:.1e} |")


if __name__ == "__main__":
    sys.exit(main())
