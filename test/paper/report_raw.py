"""No projection beside the papers' experiments: the parts of report.py's
Table 1, Figure 3 and Figure 4 sections that compare each release with plain
noise on the raw attributes (kind 'identity', k = d) at the same epsilon."""
import math

import numpy as np


def fmt(x, nd=3):
    return "n/a" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{nd}f}"


def raw_noise_table1(t1, configs, label):
    """The Table 1 bullet that compares each release with no projection."""
    parts = []
    for raw, others in (("raw_element", ("element_exact", "element_paper")),
                        ("raw_row", ("row_exact", "row_paper"))):
        wins, cells = [], 0
        for d, k in configs:
            r = t1.get((d, k, raw))
            if not r or not r["n"]:
                continue
            best = max((t1[(d, k, m)] for m in others if t1.get((d, k, m)) and t1[(d, k, m)]["n"]),
                       key=lambda s: s["mean"], default=None)
            if best is None:
                continue
            cells += 1
            if r["mean"] >= best["mean"]:
                wins.append(f"d={d} ({fmt(r['mean'])} against {fmt(best['mean'])})")
        parts.append(f"{raw[4:]}-wise raw noise is at least as accurate as the best projection "
                     f"release of its neighbour notion in {len(wins)} of {cells} settings"
                     + (": " + ", ".join(wins) if wins else ""))
    text = "; ".join(parts)
    return ("- *No projection.* " + text[:1].upper() + text[1:] + ". Raw noise keeps the clusters round and "
            "their centres 4 apart (no d/k spreading along the centre difference) and pays a "
            "noise of σ² per attribute, 2/ε² = 0.125 element-wise; the projections pay the "
            "spreading and a noise set by P's largest row. Row neighbours cost raw noise √d in "
            "L1 sensitivity, so the comparison there depends on d.")


def raw_noise_fig3(f3m, cfgs):
    """The Figure 3 paragraph that compares the spread with no projection."""
    parts, less = [], 0
    for cfg in cfgs:
        for raw, projs, what in (("raw_element", ("element_exact", "element_paper"), "element-wise"),
                                 ("raw_row", ("row_exact", "row_paper"), "row-wise")):
            r = f3m.get((cfg, raw))
            ps = [f3m[(cfg, m)] for m in projs if (cfg, m) in f3m]
            if r and ps:
                less += all(float(r["sd"]) < float(p["sd"]) for p in ps)
                parts.append(f"d = {ps[0]['d']}, k = {ps[0]['k']}, {what}: sd {float(r['sd']):.3g} "
                             "without a projection against "
                             + " and ".join(f"{float(p['sd']):.3g} ({p['calibration']} calibration, "
                                            f"MSE ×{(float(p['sd']) / float(r['sd'])) ** 2:.3g})"
                                            for p in ps))
    if not parts:
        return ""
    return ("**No projection.** The same pairs released with raw noise at the same epsilon "
            "(exact calibration, k = d, a new draw of noise per release): " + "; ".join(parts)
            + ". Without a projection there is no distortion term 2r⁴/k, and the noise terms are "
            "8σ²r² + 14dσ⁴ with σ² = 2/ε² (element-wise) or 2d/ε² (row-wise: the L1 sensitivity "
            f"of the identity for a row change of L2 norm 1 is √d). Raw noise has a smaller "
            f"spread than both calibrations of the projection in {less} of {len(parts)} settings.\n")


def fig4_distance_panel(ax1, ax3, f4s, f4methods, f4raw, ks, d, label):
    """No projection beside Figure 4: its noise sd (k = d) as horizontal lines, and
    the standard deviation of a recovered squared distance at r² = 2d (two points of
    one cluster), over P and the noise: √(2r⁴/k + 8σ²r² + 14kσ⁴) with a projection,
    √(8σ²r² + 14dσ⁴) without (DESIGN.md).  Per-coordinate noise alone does not
    compare the two: k coordinates against d."""
    r2 = 2.0 * d
    for meth in f4methods:
        s2 = np.array([f4s[(meth, k)][0] ** 2 for k in ks])
        kk = np.array(ks, dtype=float)
        ax3.plot(ks, np.sqrt(2 * r2 ** 2 / kk + 8 * s2 * r2 + 14 * kk * s2 ** 2),
                 "--" if "paper" in meth else "-", marker="o", ms=3, label=label[meth])
    for i, (meth, s2) in enumerate(f4raw.items()):
        ax1.axhline(math.sqrt(s2), color="k", ls=[":", "-."][i % 2], lw=1,
                    label=f"{label[meth]} (k = d = {d})")
        ax3.axhline(math.sqrt(8 * s2 * r2 + 14 * d * s2 ** 2), color="k", ls=[":", "-."][i % 2],
                    lw=1, label=label[meth])
    ax3.set_yscale("log")
    ax3.set_xlabel("k")
    ax3.set_ylabel("sd of a recovered squared distance")
    ax3.set_title(f"distance error at r² = 2d = {r2:g} (formula, σ² of the left panel)", fontsize=9)
    ax3.legend(fontsize=6)


def fig4_raw_reading(f4s, f4methods, f4raw, ks, d, label):
    """Where a projection's distance error falls below no projection's (right panel)."""
    r2 = 2.0 * d
    parts = []
    for meth in f4methods:
        raw = f4raw.get("raw_row" if meth.startswith("row") else "raw_element")
        if raw is None:
            continue
        sd_raw = math.sqrt(8 * raw * r2 + 14 * d * raw ** 2)
        better = [k for k in ks if math.sqrt(2 * r2 ** 2 / k + 8 * f4s[(meth, k)][0] ** 2 * r2
                                             + 14 * k * f4s[(meth, k)][0] ** 4) < sd_raw]
        parts.append(f"{label[meth]}: " + (f"smaller for k in {better}" if better else "never smaller"))
    return ("The right panel's distance error at r² = " f"{r2:g}, each projection against no "
            "projection with the same neighbour notion: " + "; ".join(parts) + ".\n")
