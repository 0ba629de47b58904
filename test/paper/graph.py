"""Cut queries: the graph release (Blocki et al.) against per-query Laplace
noise and randomized response on the adjacency matrix, at the same epsilon.

For each graph, sizes |S| on a grid and T random sets per size (q = all the
sets asked, the queries an analyst answers):
  - blocki: one jl_release_graph (delta 1e-6, the largest r of a list whose
    overlay weight stays below n), cut estimates from its sketches with the
    formula of jl_cut_size (checked against jl_cut_size on a few sets);
  - laplace: each of the q answers + Laplace(q / eps) (sensitivity 1 per
    cut, basic composition over q queries);
  - rr: each of the n (n - 1) / 2 pairs flipped with probability
    1 / (1 + e^eps), the unbiased cut sum over the crossing pairs of
    (flipped - p) / (1 - 2p).
Laplace and randomized response are eps-DP; the graph release is
(eps, 1e-6)-DP.  Errors are root mean squares over the sets of a size.
"""
import argparse
import csv
import math
import os
import subprocess

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import networkx as nx  # noqa: E402
import numpy as np  # noqa: E402

DELTA = 1e-6
R_LIST = [100, 30, 10, 3, 1]


def psql(db, sql):
    p = subprocess.run(["psql", "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", "-d", db, "-c", sql],
                       capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(p.stderr)
    return p.stdout


def graphs(quick):
    g = {}
    n1 = 150 if quick else 500
    g["sbm"] = nx.stochastic_block_model([n1, n1], [[0.04, 0.004], [0.004, 0.04]], seed=1)
    g["preferential"] = nx.barabasi_albert_graph(300 if quick else 2000, 3, seed=1)
    g["karate"] = nx.karate_club_graph()
    g["lesmis"] = nx.les_miserables_graph()
    g["florentine"] = nx.florentine_families_graph()
    out = {}
    for name, G in g.items():
        idx = {v: i for i, v in enumerate(G.nodes())}
        E = np.array(sorted({(min(idx[a], idx[b]), max(idx[a], idx[b])) for a, b in G.edges() if a != b}))
        out[name] = (G.number_of_nodes(), E)
    return out


def release(db, name, n, E, eps):
    """the largest r of R_LIST the release accepts; (r, w, sketches n x r) or None"""
    path = os.path.join("/tmp" if not os.environ.get("TMPDIR") else os.environ["TMPDIR"],
                        f"jldp_graph_{os.getpid()}_{name}.csv")
    np.savetxt(path, E + 1, fmt="%d", delimiter=",")
    psql(db, f"DROP TABLE IF EXISTS g_{name} CASCADE")
    psql(db, f"CREATE TABLE g_{name} (u int, v int)")
    psql(db, f"\\copy g_{name} FROM '{path}' CSV")
    os.unlink(path)
    for r in R_LIST:
        tgt = f"g_{name}_rel_{str(eps).replace('.', '_')}"
        psql(db, f"DROP TABLE IF EXISTS {tgt}")
        try:
            psql(db, f"SELECT jl_release_graph('g_{name}', 'u', 'v', {n}, '{tgt}', {r}, {eps}, {DELTA})")
        except RuntimeError as e:
            if "22023" in str(e) or "overlay weight" in str(e):
                continue
            raise
        w = float(psql(db, f"SELECT info->>'w' FROM jl_releases WHERE target = '{tgt}'::regclass"))
        rows = psql(db, f"SELECT array_to_string(sketch, ',') FROM {tgt} ORDER BY vertex").split()
        X = np.array([[float(t) for t in row.split(",")] for row in rows])
        return r, w, X, tgt
    return None


def blocki_cut(X, s_idx, n, w):
    x = X[s_idx].sum(axis=0)
    r = X.shape[1]
    q = float(x @ x) / r
    s = len(s_idx)
    return (q - (w / n) * s * (n - s)) / (1 - w / n)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--db", required=True)
    ap.add_argument("--quick", type=int, default=0)
    a = ap.parse_args()
    rng = np.random.default_rng()
    T = 5 if a.quick else 20
    epsilons = [1.0] if a.quick else [1.0, 4.0]
    rows = []
    setup = []
    for name, (n, E) in graphs(a.quick).items():
        A = np.zeros((n, n), dtype=np.int8)
        A[E[:, 0], E[:, 1]] = 1
        A[E[:, 1], E[:, 0]] = 1
        sizes = sorted({s for s in [1, 2, 3, 5, 10, 20, 50, 100, 200, 500] if s <= n // 2} | {n // 2})
        sets = [(s, rng.choice(n, size=s, replace=False)) for s in sizes for _ in range(T)]
        q = len(sets)
        for eps in epsilons:
            rel = release(a.db, name, n, E, eps)
            if rel is not None:
                r, w, X, tgt = rel
                # the Python estimate is jl_cut_size's
                for s, S in sets[:3]:
                    sql = float(psql(a.db, "SELECT jl_cut_size('%s', '{%s}')" % (tgt, ",".join(str(i + 1) for i in S))))
                    assert abs(sql - blocki_cut(X, S, n, w)) <= 1e-6 * max(1.0, abs(sql)), (sql, name)
            setup.append(dict(graph=name, n=n, edges=len(E), eps=eps, q=q,
                              r=rel[0] if rel else "refused", w=round(rel[1], 3) if rel else "",
                              w_over_n=round(rel[1] / n, 3) if rel else ""))
            p = 1.0 / (1.0 + math.exp(eps))
            flips = rng.random((n, n)) < p
            flips = np.triu(flips, 1)
            flips = flips | flips.T
            Arr = np.where(flips, 1 - A, A).astype(float)
            Ahat = (Arr - p) / (1 - 2 * p)
            for s, S in sets:
                inS = np.zeros(n, dtype=bool)
                inS[S] = True
                cut = float(A[np.ix_(inS, ~inS)].sum())
                rr = float(Ahat[np.ix_(inS, ~inS)].sum())
                lap = cut + rng.laplace(scale=q / eps)
                rows.append(dict(graph=name, eps=eps, size=s, cut=cut, method="laplace", est=lap))
                rows.append(dict(graph=name, eps=eps, size=s, cut=cut, method="rr", est=rr))
                if rel is not None:
                    rows.append(dict(graph=name, eps=eps, size=s, cut=cut, method="blocki",
                                     est=blocki_cut(X, S, n, w)))
    res = os.path.join(a.out, "results")
    with open(os.path.join(res, "graph_runs.csv"), "w", newline="") as f:
        wr = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        wr.writeheader()
        wr.writerows(rows)
    with open(os.path.join(res, "graph_setup.csv"), "w", newline="") as f:
        wr = csv.DictWriter(f, fieldnames=list(setup[0].keys()))
        wr.writeheader()
        wr.writerows(setup)
    # RMS error per (graph, eps, method, size)
    summ = {}
    for x in rows:
        k = (x["graph"], x["eps"], x["method"], x["size"])
        summ.setdefault(k, []).append((x["est"] - x["cut"]) ** 2)
    cuts = {}
    for x in rows:
        cuts.setdefault((x["graph"], x["eps"], x["size"]), []).append(x["cut"])
    srows = [dict(graph=k[0], eps=k[1], method=k[2], size=k[3], rmse=math.sqrt(np.mean(v)),
                  mean_cut=float(np.mean(cuts[(k[0], k[1], k[3])])))
             for k, v in sorted(summ.items())]
    with open(os.path.join(res, "graph_summary.csv"), "w", newline="") as f:
        wr = csv.DictWriter(f, fieldnames=list(srows[0].keys()))
        wr.writeheader()
        wr.writerows(srows)
    # the figure: one panel per graph, eps = 1
    names = list(dict.fromkeys(x["graph"] for x in setup))
    fig, axes = plt.subplots(1, len(names), figsize=(4 * len(names), 3.6))
    for ax, g in zip(axes, names):
        for m, style in (("blocki", "o-"), ("laplace", "s--"), ("rr", "^:")):
            pts = [(x["size"], x["rmse"]) for x in srows if x["graph"] == g and x["eps"] == 1.0 and x["method"] == m]
            if pts:
                ax.plot(*zip(*pts), style, label=m)
        pts = [(x["size"], x["mean_cut"]) for x in srows if x["graph"] == g and x["eps"] == 1.0 and x["method"] == "rr"]
        ax.plot(*zip(*pts), "k-", lw=0.8, label="mean cut")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(g)
        ax.set_xlabel("|S|")
    axes[0].set_ylabel("RMS error of the cut (eps = 1)")
    axes[0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(a.out, "figures", "graph_cuts.png"), dpi=110)
    # the fragment
    md = ["## Cut queries: the graph release against Laplace and randomized response\n",
          "`jl_release_graph` (Blocki et al., docs/graph_cuts.md) at delta 1e-6 against per-query "
          "Laplace noise (Laplace(q/eps) per answer for q queries, eps-DP) and randomized response "
          "on the adjacency matrix (eps-DP), RMS error over %d random sets per size%s. "
          "Produced by `test/paper/graph.sh`." % (T, " (quick run)" if a.quick else ""),
          "",
          "| graph | n | edges | eps | q | r | w | w/n |", "|---|---|---|---|---|---|---|---|"]
    for x in setup:
        md.append(f"| {x['graph']} | {x['n']} | {x['edges']} | {x['eps']} | {x['q']} | {x['r']} | {x['w']} | {x['w_over_n']} |")
    md += ["", "![cut error against |S|](figures/graph_cuts.png)", "",
           "RMS error at eps = 1 (blocki / laplace / rr):", "",
           "| graph | |S| | mean cut | blocki | laplace | rr |", "|---|---|---|---|---|---|"]
    for g in names:
        for s in sorted({x["size"] for x in srows if x["graph"] == g}):
            get = {x["method"]: x for x in srows if x["graph"] == g and x["eps"] == 1.0 and x["size"] == s}
            b = "%.1f" % get["blocki"]["rmse"] if "blocki" in get else "refused"
            md.append(f"| {g} | {s} | {get['rr']['mean_cut']:.1f} | {b} | {get['laplace']['rmse']:.1f} | {get['rr']['rmse']:.1f} |")
    md.append("")
    with open(os.path.join(res, "graph_section.md"), "w") as f:
        f.write("\n".join(md))


if __name__ == "__main__":
    main()
