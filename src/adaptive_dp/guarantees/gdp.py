"""Gaussian DP: exact (epsilon, delta) curve, the way back, composition.

Spec ids: EXT-DRS19 (Dong-Roth-Su 2019/2022, Cor. 2.13: the exact privacy profile of
G_mu), EXT-GDPComposition. The curve is certified with ``arb`` erfc (mpmath's interval
context has no erfc); roots (the smallest epsilon, the largest mu) are searched in
mpmath and then certified at the point found, nudged in the safe direction until the
certificate holds.

Method label: ``"drs19"``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from fractions import Fraction

import mpmath
from flint import arb

from adaptive_dp.errors import UnsupportedGuaranteeError
from adaptive_dp.guarantees.definitions import GDP, ApproxDP
from adaptive_dp.numerics import (
    ExactLike,
    arb_of,
    ball_upper,
    enclose,
    exact_delta,
    exact_nonnegative,
    exact_upper,
)
from adaptive_dp.numerics.search import mp_precision

__all__ = ["compose_gdp", "gdp_delta", "gdp_mu_for", "gdp_to_dp"]

# Phi(-x) < exp(-x^2/2) < 2**-1074 once x >= 39: the curve underflows every float.
_FAR_TAIL = Fraction(39)


def _check(guarantee: object) -> GDP:
    if not isinstance(guarantee, GDP):
        raise UnsupportedGuaranteeError(
            f"guarantee={guarantee!r} is a {type(guarantee).__name__}: expected GDP"
        )
    return guarantee


def _delta_ball(mu: Fraction, epsilon: Fraction) -> arb:
    """EXT-DRS19: Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2), as a certified ball."""

    def evaluate() -> arb:
        m = arb_of(mu)
        e = arb_of(epsilon)
        root2 = arb(2).sqrt()
        # Phi(x) = erfc(-x / sqrt 2) / 2
        a = (e / m - m / 2) / root2
        b = (e / m + m / 2) / root2
        return (a.erfc() - e.exp() * b.erfc()) / 2

    return enclose(evaluate)


def _delta_upper_exact(mu: Fraction, epsilon: Fraction) -> Fraction:
    """An exact rational upper bound on delta_mu(epsilon) (used for certificates)."""
    if mu == 0:
        return Fraction(0)
    if epsilon / mu - mu / 2 >= _FAR_TAIL:
        return Fraction(math.ulp(0.0))
    return max(exact_upper(_delta_ball(mu, epsilon)), Fraction(0))


def gdp_delta(guarantee: GDP, epsilon: ExactLike) -> float:
    """EXT-DRS19 (Dong-Roth-Su, Cor. 2.13): mu-GDP is (epsilon, delta(epsilon))-DP for
    every epsilon >= 0 with

        "delta(epsilon) = Phi(-epsilon/mu + mu/2) - e^epsilon Phi(-epsilon/mu - mu/2)",

    the exact privacy profile of the Gaussian mechanism with sensitivity/sigma = mu.
    Certified and rounded up, at most 1 (mu = 0 gives 0).
    """
    g = _check(guarantee)
    eps = exact_nonnegative(epsilon, "epsilon")
    if g.mu == 0:
        return 0.0
    if eps / g.mu - g.mu / 2 >= _FAR_TAIL:
        return math.ulp(0.0)
    return min(max(ball_upper(_delta_ball(g.mu, eps)), 0.0), 1.0)


def _mp_delta(mu: mpmath.mpf, eps: mpmath.mpf) -> mpmath.mpf:
    return mpmath.ncdf(-eps / mu + mu / 2) - mpmath.exp(eps) * mpmath.ncdf(-eps / mu - mu / 2)


def _mp(x: Fraction) -> mpmath.mpf:
    return mpmath.mpf(x.numerator) / x.denominator


def _bisect(pred: Callable[[mpmath.mpf], bool], lo: mpmath.mpf, hi: mpmath.mpf) -> mpmath.mpf:
    """pred(lo) False, pred(hi) True, pred monotone: the boundary (to ~1e-40 relative)."""
    for _ in range(300):
        mid = (lo + hi) / 2
        if hi - lo <= mpmath.mpf(10) ** -40 * hi:
            break
        if pred(mid):
            hi = mid
        else:
            lo = mid
    return hi


def gdp_to_dp(guarantee: GDP, delta: ExactLike) -> ApproxDP:
    """EXT-DRS19: mu-GDP is (epsilon, delta)-DP for the smallest epsilon >= 0 with
    "Phi(-epsilon/mu + mu/2) - e^epsilon Phi(-epsilon/mu - mu/2) <= delta" (0 < delta < 1).

    Root found in mpmath; the returned float epsilon is certified: the ``arb`` upper
    bound of the curve at it is <= delta (epsilon is nudged up until it is).
    """
    g = _check(guarantee)
    d = exact_delta(delta, "delta", allow_zero=False)
    mu = g.mu
    if mu == 0 or _delta_upper_exact(mu, Fraction(0)) <= d:
        return ApproxDP(0, d)
    with mp_precision(60):
        m, dd = _mp(mu), _mp(d)
        hi = m * m / 2 + m * mpmath.sqrt(2 * mpmath.log(1 / dd)) + 1
        while _mp_delta(m, hi) > dd:
            hi *= 2
        root = _bisect(lambda e: _mp_delta(m, e) <= dd, mpmath.mpf(0), hi)
        eps = float(root)
    eps = math.nextafter(eps, math.inf)
    step = math.ulp(eps)
    while _delta_upper_exact(mu, Fraction(eps)) > d:
        eps += step
        step *= 2
    return ApproxDP(eps, d)


def gdp_mu_for(epsilon: ExactLike, delta: ExactLike) -> GDP:
    """EXT-DRS19, the way back: the LARGEST mu whose exact curve satisfies
    "Phi(-epsilon/mu + mu/2) - e^epsilon Phi(-epsilon/mu - mu/2) <= delta".

    A permission, so rounded DOWN: the float mu returned is certified (the ``arb`` upper
    bound of its curve at epsilon is <= delta). delta = 0 gives mu = 0.
    """
    eps = exact_nonnegative(epsilon, "epsilon")
    d = exact_delta(delta, "delta")
    if d == 0:
        return GDP(0)
    with mp_precision(60):
        e, dd = _mp(eps), _mp(d)
        hi = mpmath.mpf(1)
        while _mp_delta(hi, e) <= dd:
            hi *= 2
        root = _bisect(lambda m: _mp_delta(m, e) > dd, mpmath.mpf(0), hi)
        mu = float(root)
    mu = math.nextafter(mu, 0.0)
    step = math.ulp(mu)
    while mu > 0 and _delta_upper_exact(Fraction(mu), eps) > d:
        mu = max(mu - step, 0.0)
        step *= 2
    return GDP(mu)


def _exact_sqrt(x: Fraction) -> Fraction | None:
    p, q = math.isqrt(x.numerator), math.isqrt(x.denominator)
    if p * p == x.numerator and q * q == x.denominator:
        return Fraction(p, q)
    return None


def compose_gdp(guarantees: Iterable[GDP]) -> GDP:
    """EXT-GDPComposition (Dong-Roth-Su, Cor. 3.3): "the composition of mu_i-GDP
    mechanisms is sqrt(mu_1^2 + ... + mu_k^2)-GDP".

    Exact when the sum of squares is a rational square, otherwise certified and rounded
    up. An empty sequence gives GDP(0).
    """
    total = sum((_check(g).mu ** 2 for g in guarantees), Fraction(0))
    root = _exact_sqrt(total)
    if root is not None:
        return GDP(root)
    return GDP(ball_upper(enclose(lambda: arb_of(total).sqrt())))
