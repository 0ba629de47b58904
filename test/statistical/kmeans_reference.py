#!/usr/bin/python3
"""k-means against independent implementations, from the same start.

  make -C test/unit lloyd_from && test/statistical/kmeans_reference.py

jldp's Lloyd iterations (jl_kmeans_lloyd_from, through test/unit/lloyd_from:
the code of the jl_kmeans aggregate's iterations) against:
  1. a direct numpy Lloyd written here (assign each point to the nearest
     centroid, the first on ties; move each centroid to the mean of its
     points): the same centroids after 25 iterations (or, where Lloyd
     converges before, two short of its end) to 1e-9 relative, on
     three data sets (Gaussian blobs in 20 dimensions, uniform points in 20
     and 5 dimensions; c = 8, 32, 4);
  2. scikit-learn's KMeans(algorithm='lloyd') with its default tol = 1e-4,
     from the same start: the same number of iterations (n_iter_) and the
     inertia to 1e-9 relative, on the same data sets; and with tol = 0 and
     max_iter = 300 (stopping only when no assignment changes);
  3. negative controls, which must fail the same comparisons: the numpy
     Lloyd one iteration short, and scikit-learn with tol = 1e-2.
Deterministic (fixed seeds): a failure is a defect, not chance.  Exits
non-zero on any failure.
"""
import os
import subprocess
import sys
import tempfile

os.environ["OMP_NUM_THREADS"] = "1"
import numpy as np  # noqa: E402
from sklearn.cluster import KMeans  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
LLOYD = os.path.join(HERE, "..", "unit", "lloyd_from")
failures = 0


def check(what, ok):
    global failures
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures += 1


def jldp(X, start, max_iter, tol, tmp):
    n, k = X.shape
    c = start.shape[0]
    xp, cp, op = (os.path.join(tmp, f) for f in ("X.bin", "C0.bin", "C.bin"))
    np.ascontiguousarray(X).tofile(xp)
    np.ascontiguousarray(start).tofile(cp)
    out = subprocess.run([LLOYD, xp, cp, str(n), str(k), str(c), str(max_iter), repr(tol), "1", op],
                         check=True, capture_output=True, text=True).stdout.split()
    return int(out[0]), float(out[2]), np.fromfile(op).reshape(c, k)


def numpy_lloyd(X, start, iterations):
    C = start.copy()
    for _ in range(iterations):
        d = ((X[:, None, :] - C[None, :, :]) ** 2).sum(axis=2)
        labels = d.argmin(axis=1)          # the first on ties
        for j in range(C.shape[0]):
            members = X[labels == j]
            if len(members):               # no empty cluster on these data
                C[j] = members.mean(axis=0)
    return C


def relative(a, b):
    return float(np.max(np.abs(a - b)) / max(np.max(np.abs(b)), 1e-300))


def data_sets():
    rng = np.random.default_rng(20261128)
    centres = rng.normal(0, 3, (8, 20))
    blobs = centres[rng.integers(0, 8, 4000)] + rng.normal(0, 1, (4000, 20))
    yield "blobs, 4000 x 20, c = 8", blobs, blobs[rng.choice(4000, 8, replace=False)]
    uniform = rng.random((5000, 20))
    yield "uniform, 5000 x 20, c = 32", uniform, uniform[rng.choice(5000, 32, replace=False)]
    low = rng.random((3000, 5))
    yield "uniform, 3000 x 5, c = 4", low, low[rng.choice(3000, 4, replace=False)]


def main():
    with tempfile.TemporaryDirectory() as tmp:
        for name, X, start in data_sets():
            # 25 iterations, or fewer where Lloyd converges before: two
            # short of its end, while the centroids still move
            it, _, C = jldp(X, start, 25, 0.0, tmp)
            if it < 25:
                it, _, C = jldp(X, start, it - 2, 0.0, tmp)
            ref = numpy_lloyd(X, start, it)
            r = relative(C, ref)
            check(f"{name}: the numpy Lloyd's centroids after {it} iterations, to 1e-9 relative ({r:.1e})",
                  r <= 1e-9)
            short = relative(C, numpy_lloyd(X, start, it - 1))
            check(f"{name}: negative control, the numpy Lloyd one iteration short differs ({short:.1e} > 1e-9)",
                  short > 1e-9)
            for tol, max_iter in ((1e-4, 300), (0.0, 300)):
                jit, jinertia, _ = jldp(X, start, max_iter, tol, tmp)
                km = KMeans(start.shape[0], init=start, n_init=1, max_iter=max_iter, tol=tol,
                            algorithm="lloyd").fit(X)
                rin = abs(jinertia - km.inertia_) / km.inertia_
                check(f"{name}: tol = {tol:g}: scikit-learn's iterations ({km.n_iter_}) and inertia "
                      f"(relative difference {rin:.1e})", jit == km.n_iter_ and rin <= 1e-9)
            loose = KMeans(start.shape[0], init=start, n_init=1, max_iter=300, tol=1e-2,
                           algorithm="lloyd").fit(X)
            jit, _, _ = jldp(X, start, 300, 1e-4, tmp)
            check(f"{name}: negative control, scikit-learn at tol = 1e-2 stops elsewhere ({loose.n_iter_} against {jit})",
                  loose.n_iter_ != jit)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
