"""zCDP conversions and composition: R23-Lem2.3, R23-Lem2.4, EXT-CKS20.

Every returned epsilon or delta is an upper bound certified with an ``arb`` enclosure
and rounded up to a float within two ulps (docs/design.md, principle 5); exact rational
results (``eps^2/2``, sums of rhos and deltas) stay exact. Optimal Rényi orders are
float roots of the stationarity condition; the bound is then certified at the order
found, which is valid for *any* order, so a search that misses the optimum only costs
tightness, never validity (docs/numerics.md, "Tight conversions").

Method labels (used by the ``convert`` command and in reports): ``"bun-steinke"``
(R23-Lem2.3 (ii)) and ``"cks20"`` (EXT-CKS20).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from fractions import Fraction

from adaptive_dp.errors import NonFiniteResultError, UnsupportedGuaranteeError
from adaptive_dp.guarantees.bounds import BunSteinkeBound, cks20_delta_upper, cks20_epsilon_ball
from adaptive_dp.guarantees.definitions import ZCDP, ApproxDP, ApproxZCDP, PureDP
from adaptive_dp.numerics import (
    ExactLike,
    ball_upper,
    exact_delta,
    exact_nonnegative,
)
from adaptive_dp.numerics.search import bisect_increasing, log_float
from adaptive_dp.numerics.tight import tight_upper

__all__ = [
    "approx_to_approx_zcdp",
    "compose_zcdp",
    "pure_to_zcdp",
    "zcdp_delta_optimal",
    "zcdp_to_dp_bun_steinke",
    "zcdp_to_dp_optimal",
]

# Orders searched for the delta conversion: alpha - 1 from e^-700 to e^700.
_T_MAX = 700.0


def _require(value: object, kind: type | tuple[type, ...], name: str) -> None:
    if not isinstance(value, kind):
        raise UnsupportedGuaranteeError(
            f"{name}={value!r} is a {type(value).__name__}: expected "
            + (" or ".join(k.__name__ for k in kind) if isinstance(kind, tuple) else kind.__name__)
        )


def pure_to_zcdp(guarantee: PureDP) -> ZCDP:
    """R23-Lem2.3 (i) with delta = 0 (Bun-Steinke): "epsilon-DP implies (epsilon^2/2)-zCDP".

    Exact: rho = epsilon^2 / 2 as a rational.
    """
    _require(guarantee, PureDP, "guarantee")
    return ZCDP(guarantee.epsilon**2 / 2)


def approx_to_approx_zcdp(guarantee: ApproxDP) -> ApproxZCDP:
    """R23-Lem2.3 (i) (Bun-Steinke): "If M is (epsilon, delta)-DP, then M is also
    delta-approximate epsilon^2/2-zCDP".

    Exact: (rho, delta) = (epsilon^2 / 2, delta).
    """
    _require(guarantee, ApproxDP, "guarantee")
    return ApproxZCDP(guarantee.epsilon**2 / 2, guarantee.delta)


def zcdp_to_dp_bun_steinke(guarantee: ZCDP | ApproxZCDP, delta_slack: ExactLike) -> ApproxDP:
    """R23-Lem2.3 (ii) (Bun-Steinke): "If M is delta-approximate rho-zCDP, then M is also
    (rho + 2 sqrt(rho log(1/delta'')), delta + delta'')-DP for delta'' > 0".

    ``delta_slack`` is delta'' (0 < delta'' < 1). epsilon is certified and rounded up;
    the delta is the exact sum delta + delta'' (a ``DeltaRangeError`` if it reaches 1).
    A plain ``ZCDP`` has delta = 0. An epsilon beyond the float range raises
    ``NonFiniteResultError``.
    """
    _require(guarantee, (ZCDP, ApproxZCDP), "guarantee")
    slack = exact_delta(delta_slack, "delta_slack", allow_zero=False)
    base = guarantee.delta if isinstance(guarantee, ApproxZCDP) else Fraction(0)
    total = exact_delta(base + slack, "delta + delta_slack")
    epsilon = ball_upper(BunSteinkeBound(slack).ball(guarantee.rho))
    if not math.isfinite(epsilon):
        raise NonFiniteResultError(f"rho={guarantee.rho}: the epsilon is beyond the float range")
    return ApproxDP(epsilon, total)


def _order(beta: float) -> Fraction:
    """alpha = 1 + beta as an exact rational (beta > 0; the smallest float if not)."""
    return 1 + Fraction(beta if beta > 0 and math.isfinite(beta) else math.ulp(0.0))


def _epsilon_order(rho: Fraction, delta: Fraction) -> Fraction:
    """Float search: the order minimising the EXT-CKS20 epsilon. With beta = alpha - 1
    and L = log(1/delta), d epsilon / d beta = rho - (L - log(1 + beta)) / beta^2, so the
    minimiser is the root of the increasing "rho beta^2 + log(1 + beta) = L", found by
    bisection in t = log beta."""
    log_rho = log_float(rho)
    big_l = -math.log1p(-float(1 - delta)) if delta > Fraction(1, 2) else -log_float(delta)
    if not (big_l > 0 and math.isfinite(big_l) and math.isfinite(log_rho)):
        return _order(0.0)

    def lhs(t: float) -> float:
        return math.exp(min(2 * t + log_rho, 709.0)) + math.log1p(math.exp(min(t, 709.0)))

    # rho beta^2 <= L and log(1 + beta) <= L bound beta* above; one is >= L/2 at it
    log_l = math.log(big_l)
    hi = min((log_l - log_rho) / 2, math.log(math.expm1(min(big_l, 700.0)))) + 1
    lo = min((log_l - math.log(2) - log_rho) / 2, math.log(math.expm1(big_l / 2))) - 1
    return _order(math.exp(min(bisect_increasing(lhs, lo, hi, big_l), 709.0)))


def _delta_order(rho: Fraction, epsilon: Fraction) -> Fraction:
    """Float search: the order minimising the EXT-CKS20 delta. Its log has derivative
    (2 beta + 1) rho - epsilon - log(1 + 1/beta) in beta = alpha - 1: the minimiser is
    the root of that increasing function, found by bisection in t = log beta."""
    r, e = float(rho), float(epsilon)

    def derivative(t: float) -> float:
        return (2 * math.exp(t) + 1) * r - math.log1p(math.exp(-t))

    return _order(math.exp(bisect_increasing(derivative, -_T_MAX, _T_MAX, e)))


def zcdp_to_dp_optimal(guarantee: ZCDP, delta: ExactLike) -> ApproxDP:
    """EXT-CKS20 (Canonne-Kamath-Steinke 2020, Prop. 12 / Cor. 13): rho-zCDP implies
    (epsilon, delta)-DP with the smallest epsilon of the Rényi-based conversion

        "epsilon = inf_{alpha > 1} alpha rho
                   + (log(1/delta) + (alpha - 1) log(1 - 1/alpha) - log(alpha)) / (alpha - 1)".

    Exact: max(0, that infimum). The order is the float root of the stationarity
    condition (:func:`_epsilon_order`); epsilon is certified at that order (valid at any
    order) within two ulps of the formula there, which is within far less than an ulp
    of the infimum; a negative value is replaced by 0 (an (epsilon, delta) guarantee
    with epsilon < 0 implies the one with 0). Requires 0 < delta < 1; rho = 0 gives
    (0, delta) exactly.
    """
    _require(guarantee, ZCDP, "guarantee")
    d = exact_delta(delta, "delta", allow_zero=False)
    rho = guarantee.rho
    if rho == 0:
        return ApproxDP(0, d)
    alpha = _epsilon_order(rho, d)
    epsilon = tight_upper(lambda bits: cks20_epsilon_ball(alpha, alpha * rho, d, bits))
    return ApproxDP(max(epsilon, 0.0), d)


def zcdp_delta_optimal(guarantee: ZCDP, epsilon: ExactLike) -> float:
    """EXT-CKS20 (Canonne-Kamath-Steinke 2020, Cor. 13): rho-zCDP implies
    (epsilon, delta)-DP for

        "delta = inf_{alpha > 1} exp((alpha - 1)(alpha rho - epsilon)) / (alpha - 1)
                 * (1 - 1/alpha)^alpha".

    Exact: min(1, that infimum). The order is the float root of the stationarity
    condition (:func:`_delta_order`); delta is certified at that order, rounded up
    within two ulps, and at most 1 (delta = 1 always holds). rho = 0 gives 0.
    """
    _require(guarantee, ZCDP, "guarantee")
    eps = exact_nonnegative(epsilon, "epsilon")
    rho = guarantee.rho
    if rho == 0:
        return 0.0
    alpha = _delta_order(rho, eps)
    return cks20_delta_upper(alpha, alpha * rho, eps)


def compose_zcdp(guarantees: Iterable[ZCDP | ApproxZCDP]) -> ZCDP | ApproxZCDP:
    """R23-Lem2.4 (Bun-Steinke): "If M1 is delta1-approximate rho1-zCDP and M2 is
    delta2-approximate rho2-zCDP in its first coordinate, then M = (M1, M2(., M1)) is
    (delta1 + delta2)-approximate (rho1 + rho2)-zCDP".

    Exact sums, for parameters fixed in advance (adaptively chosen parameters need a
    filter, R23-Thm2). All plain ``ZCDP`` gives ``ZCDP``; an empty sequence gives
    ``ZCDP(0)``. A total delta >= 1 raises ``DeltaRangeError``.
    """
    items = list(guarantees)
    for i, g in enumerate(items):
        _require(g, (ZCDP, ApproxZCDP), f"guarantees[{i}]")
    rho = sum((g.rho for g in items), Fraction(0))
    if all(isinstance(g, ZCDP) for g in items):
        return ZCDP(rho)
    delta = sum((g.delta for g in items if isinstance(g, ApproxZCDP)), Fraction(0))
    return ApproxZCDP(rho, exact_delta(delta, "sum of deltas"))

