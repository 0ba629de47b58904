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
  - Gaussian releases that carry a dominating shift mu (an atom of delta /
    1024 on one side and N(mu, 1) against N(0, 1)): the shifts compose to
    sqrt(sum mu^2) and the pure releases' exact losses L_j add to theirs, so
    delta(eps) = sum_j p_j delta_mu(eps - L_j) + sum delta / 1024, with
    delta_mu(c) = Phi(-c/mu + mu/2) - e^c Phi(-c/mu - mu/2) from scipy, the
    other zCDP releases by RDP with the same splits; the accountant's PLD
    is the better of this and the above, and must lie between it and 1%
    above;
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
from scipy.stats import norm

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


def gdp_delta(mu, c):
    """delta of N(mu, 1) against N(0, 1) at c (any real c)"""
    return norm.cdf(-c / mu + mu / 2) - np.exp(c) * norm.cdf(-c / mu - mu / 2)


def gauss_pld_epsilon(losses, dist, mu, target):
    """least eps with sum_j dist_j delta_mu(eps - L_j) <= target"""
    def d(eps):
        return float(np.sum(dist * gdp_delta(mu, eps - losses)))
    if d(0.0) <= target:
        return 0.0
    hi = float(losses.max()) + mu * (mu / 2 + 40)
    return brentq(lambda e: d(e) - target, 0.0, hi, xtol=1e-12)


def reference(seq, delta):
    basic_e = sum(r[1] for r in seq)
    basic_d = sum(r[2] for r in seq)
    approx_e = sum(r[1] for r in seq if r[0] == "approx")
    approx_d = sum(r[2] for r in seq if r[0] == "approx")
    rem = delta - approx_d
    pure = [r[1] for r in seq if r[0] == "pure"]
    zcdp = [r[3] for r in seq if r[0] == "zcdp"]
    shifts = [(r[4], r[2]) for r in seq if r[0] == "zcdp" and r[4] > 0]
    rest = [r[3] for r in seq if r[0] == "zcdp" and not r[4] > 0]
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
        if shifts:
            mu = float(np.sqrt(sum(m * m for m, _ in shifts)))
            d0 = sum(d for _, d in shifts) / 1024
            losses, dist = pld_dist(pure) if pure else (np.zeros(1), np.ones(1))
            rc = ALPHAS * sum(rest)
            for s in (SPLITS if rest else [1.0]):
                t = s * rem - d0
                if t > 0:
                    e = gauss_pld_epsilon(losses, dist, mu, t) + approx_e
                    if rest:
                        e += rdp_epsilon(rc, (1 - s) * rem)
                    pld = min(pld, e)
    return basic_e, basic_d, rdp, pld, exact


def accountant(seq, delta):
    text = "%r\n" % delta + "".join("%s %r %r %r %r\n" % r for r in seq)
    out = subprocess.run([COMPOSE], input=text, capture_output=True, text=True, check=True).stdout.split()
    return [float(x) for x in out[:5]] + [out[5]]


def within(c, r):
    if np.isinf(r):
        return np.isinf(c)
    return r * (1 - 1e-9) <= c <= r * 1.01 + 1e-12


sigma = 4.224678889326871          # Balle-Wang's sigma at (1, 1e-6), sensitivity 1
rho = 1 / (2 * sigma ** 2)
# the dominating shift of a release's discrete noise at (1, 1e-6): at most
# 1.0021 times 1 / sigma (test/unit/test_gaussian_dominance.c)
mu_sampled = 1.0021 / sigma
rng = np.random.default_rng(20261128)
sequences = [
    ("100 Laplace releases at epsilon 0.1", [("pure", 0.1, 0.0, 0.0, 0.0)] * 100, 1e-6),
    ("12 Gaussian releases at (1, 1e-6) by rho", [("zcdp", 1.0, 1e-6, rho, 0.0)] * 12, 1e-5),
    ("12 Gaussian releases at (1, 1e-6) with their shift", [("zcdp", 1.0, 1e-6, rho, mu_sampled)] * 12, 1e-5),
    ("50 at 0.1 and 50 at 0.07", [("pure", 0.1, 0.0, 0.0, 0.0)] * 50 + [("pure", 0.07, 0.0, 0.0, 0.0)] * 50, 1e-5),
    ("100 Laplace at 0.1 and 12 Gaussian with their shift",
     [("pure", 0.1, 0.0, 0.0, 0.0)] * 100 + [("zcdp", 1.0, 1e-6, rho, mu_sampled)] * 12, 1e-5),
]
for t in range(4):
    seq = []
    for _ in range(int(rng.integers(5, 40))):
        k = rng.choice(["pure", "pure", "zcdp", "approx"])
        e = GRID * int(rng.integers(2, 200))
        if k == "pure":
            seq.append(("pure", e, 0.0, 0.0, 0.0))
        elif k == "zcdp":
            r = e * e / float(rng.uniform(4, 40))
            # two in three with a dominating shift a little above sqrt(2 rho)
            m = float(np.sqrt(2 * r) * rng.uniform(1.0, 1.01)) if rng.integers(3) else 0.0
            seq.append(("zcdp", e, 1e-7, r, m))
        else:
            seq.append(("approx", e, 1e-8, 0.0, 0.0))
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

# the example of the issue: twelve Gaussian releases at (1, 1e-6) compose at
# 1e-5 to within 1% of twelve continuous Gaussians at Balle-Wang's sigma
exact12 = brentq(lambda e: gdp_delta(np.sqrt(12) / sigma, e) - 1e-5, 0.0, 20.0, xtol=1e-12)
c = accountant(sequences[2][1], 1e-5)
check(c[5] == "pld" and exact12 <= c[4] <= 1.01 * exact12 and c[4] < 0.3 * c[0],
      "12 Gaussian releases: %.4f by %s, within 1%% of the continuous Gaussians' exact %.4f (basic %.0f)"
      % (c[4], c[5], exact12, c[0]))

# negative control: an accountant that read rho as epsilon would be far below
be, bd, rr, pr, exact = reference(sequences[0][1], 1e-6)
check(100 * 0.1 ** 2 / 2 < exact, "negative control: rho read as epsilon (0.5) is below the exact %.4f: flagged" % exact)
print("# accountant_reference: %d failed" % failures)
sys.exit(1 if failures else 0)
