#!/usr/bin/env python3
"""An analyst's first result from a jldp release, in Python.

Fetch a release's sketches and what recovery needs (k and the noise
variance, from the registry), recover squared distances without bias,
find each unit's nearest neighbours, and cluster.  Reads nothing but the
released table and jldp.jl_releases: the role needs jldp_analyst and
SELECT on the released table.

    python3 analyst.py customers_private 4

connects with libpq's PG* variables (PGHOST, PGDATABASE, PGUSER, ...).
Needs psycopg2 and numpy (Debian: python3-psycopg2 python3-numpy).
"""
import argparse

import numpy as np
import psycopg2


def fetch(cur, release):
    """(ids, sketches n x k, k, noise variance, guarantee) of a release"""
    cur.execute("SELECT %s::regclass::text", (release,))
    table = cur.fetchone()[0]          # quoted and qualified by PostgreSQL
    cur.execute("SELECT k, noise_variance, info->>'guarantee' FROM jldp.jl_releases"
                " WHERE target = %s::regclass ORDER BY id DESC LIMIT 1", (release,))
    row = cur.fetchone()
    if row is None:
        raise SystemExit(f"{release} is not a release you may read (see jldp.jl_releases)")
    k, noise_variance, guarantee = row
    cur.execute(f"SELECT id, sketch FROM {table} ORDER BY id")
    rows = cur.fetchall()
    ids = np.array([r[0] for r in rows])
    sketches = np.array([r[1] for r in rows], dtype=float)
    return ids, sketches, k, noise_variance, guarantee


def recovered_dist2(a, b, k, noise_variance):
    """unbiased squared distances between the rows of a and of b: the noise
    adds 2 k sigma^2 to E||a - b||^2 (jl_recover_dist does the same)"""
    sq = (a * a).sum(1)[:, None] + (b * b).sum(1)[None, :] - 2.0 * a @ b.T
    return sq - 2.0 * k * noise_variance


def kmeans(x, n_clusters, n_init=10, max_iter=300, seed=0):
    """Lloyd's algorithm from k-means++ starts; the best of n_init by inertia"""
    rng = np.random.default_rng(seed)
    best = None
    for _ in range(n_init):
        centres = [x[rng.integers(len(x))]]
        for _ in range(1, n_clusters):
            d2 = ((x[:, None, :] - np.array(centres)[None, :, :]) ** 2).sum(2).min(1)
            centres.append(x[rng.choice(len(x), p=d2 / d2.sum())])
        centres = np.array(centres)
        for _ in range(max_iter):
            labels = ((x[:, None, :] - centres[None, :, :]) ** 2).sum(2).argmin(1)
            new = np.array([x[labels == c].mean(0) if (labels == c).any() else centres[c]
                            for c in range(n_clusters)])
            if np.allclose(new, centres):
                break
            centres = new
        inertia = ((x - centres[labels]) ** 2).sum()
        if best is None or inertia < best[2]:
            best = (labels, centres, inertia)
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("release", help="the released table, e.g. customers_private")
    ap.add_argument("clusters", type=int, nargs="?", default=3)
    ap.add_argument("--neighbours", type=int, default=5)
    ap.add_argument("--noise-variance", type=float, default=None,
                    help="override the registry's (only to see what ignoring the noise does)")
    args = ap.parse_args()

    with psycopg2.connect("") as conn, conn.cursor() as cur:
        ids, s, k, nv, guarantee = fetch(cur, args.release)
    if args.noise_variance is not None:
        nv = args.noise_variance
    print(f"release: {args.release}, {len(ids)} units, k = {k}, noise variance {nv:.6g}")
    print(f"guarantee: {guarantee}")

    d2 = recovered_dist2(s, s, k, nv)
    np.fill_diagonal(d2, np.inf)
    near = np.argsort(d2[0])[:args.neighbours]
    print(f"nearest to unit {ids[0]}: " +
          ", ".join(f"{ids[j]} ({d2[0, j]:.3f})" for j in near))
    labels, _, inertia = kmeans(s, args.clusters)
    sizes = np.bincount(labels, minlength=args.clusters)
    print(f"clusters: sizes {' '.join(map(str, sorted(sizes, reverse=True)))}, inertia {inertia:.4g}")
    # one line per unit, for whoever runs this: id, cluster, its first pairs' distances
    for i in range(len(ids)):
        print(f"unit {ids[i]} cluster {labels[i]} dist2_to_next "
              f"{d2[i, (i + 1) % len(ids)]!r}")


if __name__ == "__main__":
    main()
