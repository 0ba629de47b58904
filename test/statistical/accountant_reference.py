#!/usr/bin/env python3
"""The accountant (src/math/accounting/accountant.c) against an independent
implementation in numpy and scipy, written from the papers' formulas.

  make -C test/unit compose_from && test/statistical/accountant_reference.py

For each sequence of releases (Laplace releases as pure epsilon, Gaussian
releases as rho-zCDP at their (epsilon, delta), randomized response as
pure, covariance releases as (epsilon, delta) only), at the target delta:
  - basic composition: the sums, equal;
  - RDP: randomized response's Renyi divergence for a pure release
    (np.logaddexp), alpha rho for zCDP, summed, converted by Canonne, Kamath
    and Steinke's bound minimised over a dense grid of orders here (20,000
    against the accountant's 160): the accountant's epsilon must lie
    between this and 1% above it (never below: a coarser grid of orders
    can only be pessimistic);
  - PLD of the pure releases: the epsilons are multiples of 0.005, so
    their randomized responses' summed loss is computed exactly here by
    convolution on that grid (no rounding); with zCDP releases, the same
    five splits of delta as the accountant, the zCDP part by RDP: again
    the accountant must lie between this and 1% above;
  - where the sequence is pure, the exact composition is a lower bound for
    every method: none may go below it.
The two examples of the accounting notes are among the sequences.  Exits
non-zero on any failure.
"""
import os
import subprocess
import sys

import numpy as np
from scipy.optimize import brentq

HERE = os.path.dirname(os.path.abspath(__file__))
COMPOSE = os.path.join(HERE, "..", "unit", "compose_from")
ALPHAS = 1.0 + np.logspace(-3, 4, 20000)
SPLITS = [0.5, 0.9, 0.1, 0.99, 0.01]
GRID = 0.005

failures = 0


def check(ok, what):
    global failures
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures += 1


def rdp_pure(eps, a):
    return (np.logaddexp(a * eps, (1 - a) * eps) - np.logaddexp(0.0, eps)) / (a - 1)


def rdp_epsilon(curve, delta):
    a = ALPHAS
    e = curve + (np.log(1 / delta) + (a - 1) * np.log1p(-1 / a) - np.log(a)) / (a - 1)
    return max(float(np.min(e)), 0.0)


def pld_dist(eps_list):
    """the exact distribution of the summed losses (multiples of GRID)"""
    dist = np.array([1.0])
    offset = 0          # index of loss 0
    for e in eps_list:
        m = int(round(e / GRID))
        assert abs(m * GRID - e) < 1e-12
        p = 1.0 / (1.0 + np.exp(-e))
        step = np.zeros(2 * m + 1)
        step[0] = 1 - p
        step[-1] = p
        dist = np.convolve(dist, step)
        offset += m
    losses = (np.arange(len(dist)) - offset) * GRID
    return losses, dist


def pld_epsilon(losses, dist, delta):
    def d(eps):
        return float(np.sum(dist * np.clip(-np.expm1(eps - losses), 0, None)))
    top = float(losses.max())
    if d(0.0) <= delta:
        return 0.0
    return brentq(lambda e: d(e) - delta, 0.0, top, xtol=1e-12)


def reference(seq, delta):
    basic_e = sum(r[1] for r in seq)
    basic_d = sum(r[2] for r in seq)
    approx_e = sum(r[1] for r in seq if r[0] == "approx")
    approx_d = sum(r[2] for r in seq if r[0] == "approx")
    rem = delta - approx_d
    pure = [r[1] for r in seq if r[0] == "pure"]
    zcdp = [r[3] for r in seq if r[0] == "zcdp"]
    rdp = pld = np.inf
    exact = None
    if rem > 0 and (pure or zcdp):
        curve = sum((rdp_pure(e, ALPHAS) for e in pure), np.zeros_like(ALPHAS)) + ALPHAS * sum(zcdp)
        rdp = rdp_epsilon(curve, rem) + approx_e
        if pure:
            losses, dist = pld_dist(pure)
            if not zcdp:
                pld = pld_epsilon(losses, dist, rem) + approx_e
                if not approx_e:
                    exact = pld
            else:
                zc = ALPHAS * sum(zcdp)
                pld = min(pld_epsilon(losses, dist, s * rem) + rdp_epsilon(zc, (1 - s) * rem) + approx_e
                          for s in SPLITS)
    return basic_e, basic_d, rdp, pld, exact


def accountant(seq, delta):
    text = "%r\n" % delta + "".join("%s %r %r %r\n" % r for r in seq)
    out = subprocess.run([COMPOSE], input=text, capture_output=True, text=True, check=True).stdout.split()
    return [float(x) for x in out[:5]] + [out[5]]


def within(c, r):
    if np.isinf(r):
        return np.isinf(c)
    return r * (1 - 1e-9) <= c <= r * 1.01 + 1e-12


sigma = 4.224678889326871          # Balle-Wang's sigma at (1, 1e-6), sensitivity 1
rho = 1 / (2 * sigma ** 2)
rng = np.random.default_rng(20261128)
sequences = [
    ("100 Laplace releases at epsilon 0.1", [("pure", 0.1, 0.0, 0.0)] * 100, 1e-6),
    ("12 Gaussian releases at (1, 1e-6)", [("zcdp", 1.0, 1e-6, rho)] * 12, 1e-5),
    ("50 at 0.1 and 50 at 0.07", [("pure", 0.1, 0.0, 0.0)] * 50 + [("pure", 0.07, 0.0, 0.0)] * 50, 1e-5),
]
for t in range(4):
    seq = []
    for _ in range(int(rng.integers(5, 40))):
        k = rng.choice(["pure", "pure", "zcdp", "approx"])
        e = GRID * int(rng.integers(2, 200))
        if k == "pure":
            seq.append(("pure", e, 0.0, 0.0))
        elif k == "zcdp":
            seq.append(("zcdp", e, 1e-7, e * e / float(rng.uniform(4, 40))))
        else:
            seq.append(("approx", e, 1e-8, 0.0))
    sequences.append(("mixed sequence %d (%d releases: Laplace, Gaussian, randomized response, covariance)"
                      % (t + 1, len(seq)), seq, [1e-6, 1e-5, 1e-4, 1e-3][t]))

for name, seq, delta in sequences:
    be, bd, rr, pr, exact = reference(seq, delta)
    c = accountant(seq, delta)
    print("#    %s at delta %g: basic %.4f, rdp %.4f (numpy %.4f), pld %.4f (numpy %.4f)%s, used %s %.4f"
          % (name, delta, c[0], c[2], rr, c[3], pr,
             "" if exact is None else ", exact %.4f" % exact, c[5], c[4]))
    check(abs(c[0] - be) <= 1e-9 * be and abs(c[1] - bd) <= 1e-15 + 1e-9 * bd, name + ": basic equal")
    check(within(c[2], rr), name + ": RDP within [numpy, numpy + 1%]")
    check(within(c[3], pr), name + ": PLD within [numpy, numpy + 1%]")
    if exact is not None:
        check(min(c[2], c[3], c[4]) >= exact * (1 - 1e-9), name + ": no method below the exact composition")
    check(c[4] <= c[0] or c[1] > delta, name + ": never worse than basic")

# negative control: an accountant that read rho as epsilon would be far below
be, bd, rr, pr, exact = reference(sequences[0][1], 1e-6)
check(100 * 0.1 ** 2 / 2 < exact, "negative control: rho read as epsilon (0.5) is below the exact %.4f: flagged" % exact)
print("# accountant_reference: %d failed" % failures)
sys.exit(1 if failures else 0)
