"""zCDP conversions and composition: R23-Lem2.3, R23-Lem2.4, EXT-CKS20.

Every returned epsilon or delta is an upper bound certified with an ``arb`` enclosure
and rounded up to a float (docs/design.md, principle 5); exact rational results (``eps^2/2``,
sums of rhos and deltas) stay exact. Searches for an optimal Rényi order run in
mpmath; the bound is then certified at the order found, which is valid for *any*
order, so a search that misses the optimum only costs tightness, never validity.

Method labels (used by the ``convert`` command and in reports): ``"bun-steinke"``
(R23-Lem2.3 (ii)) and ``"cks20"`` (EXT-CKS20).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from fractions import Fraction

import mpmath

from adaptive_dp.errors import UnsupportedGuaranteeError
from adaptive_dp.guarantees.bounds import BunSteinkeBound, cks20_delta_upper, cks20_epsilon_ball
from adaptive_dp.guarantees.definitions import ZCDP, ApproxDP, ApproxZCDP, PureDP
from adaptive_dp.numerics import (
    ExactLike,
    ball_upper,
    exact_delta,
    exact_nonnegative,
)
from adaptive_dp.numerics.search import golden_minimize, mp_precision

__all__ = [
    "approx_to_approx_zcdp",
    "compose_zcdp",
    "pure_to_zcdp",
    "zcdp_delta_optimal",
    "zcdp_to_dp_bun_steinke",
    "zcdp_to_dp_optimal",
]

# Search range for t = log(alpha - 1): alpha - 1 from e^-800 to e^800 covers rho from
# 1e-300 to 1e300 with deltas down to 1e-300 (the optimal order is about
# 1 + sqrt(log(1/delta)/rho)).
_T_LO = -800.0
_T_HI = 800.0
_GRID = 400
_SEARCH_DPS = 40  # decimal digits of every search, whatever mpmath's global precision


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
    A plain ``ZCDP`` has delta = 0.
    """
    _require(guarantee, (ZCDP, ApproxZCDP), "guarantee")
    slack = exact_delta(delta_slack, "delta_slack", allow_zero=False)
    base = guarantee.delta if isinstance(guarantee, ApproxZCDP) else Fraction(0)
    total = exact_delta(base + slack, "delta + delta_slack")
    epsilon = ball_upper(BunSteinkeBound(slack).ball(guarantee.rho))
    return ApproxDP(epsilon, total)


def _alpha_of(t: float) -> Fraction:
    return 1 + Fraction(math.exp(t))


def _minimise_over_t(objective: Callable[[mpmath.mpf], mpmath.mpf]) -> float:
    """Grid scan then golden section in t = log(alpha - 1); an mpmath search."""
    with mp_precision(_SEARCH_DPS):

        def f(t: float) -> float:
            value = float(objective(mpmath.mpf(t)))
            return value if math.isfinite(value) else math.inf

        step = (_T_HI - _T_LO) / _GRID
        grid = [_T_LO + i * step for i in range(_GRID + 1)]
        values = [f(t) for t in grid]
        best = min(range(len(grid)), key=lambda i: values[i])
        lo = grid[max(best - 1, 0)]
        hi = grid[min(best + 1, _GRID)]
        return golden_minimize(f, lo, hi, iterations=120)


def _zcdp_eps_objective(rho: Fraction, delta: Fraction) -> Callable[[mpmath.mpf], mpmath.mpf]:
    r = mpmath.mpf(rho.numerator) / rho.denominator
    log_inv_delta = -mpmath.log(mpmath.mpf(delta.numerator) / delta.denominator)

    def objective(t: mpmath.mpf) -> mpmath.mpf:
        am1 = mpmath.exp(t)
        log_a = mpmath.log1p(am1)
        return (1 + am1) * r + (log_inv_delta - am1 * mpmath.log1p(1 / am1) - log_a) / am1

    return objective


def zcdp_to_dp_optimal(guarantee: ZCDP, delta: ExactLike) -> ApproxDP:
    """EXT-CKS20 (Canonne-Kamath-Steinke 2020, Prop. 12 / Cor. 13): rho-zCDP implies
    (epsilon, delta)-DP with the smallest epsilon of the Rényi-based conversion

        "epsilon = inf_{alpha > 1} alpha rho
                   + (log(1/delta) + (alpha - 1) log(1 - 1/alpha) - log(alpha)) / (alpha - 1)".

    The order alpha is found by an mpmath search; epsilon is certified at that order
    (valid at any order) and rounded up; a negative value is replaced by 0 (an
    (epsilon, delta) guarantee with epsilon < 0 implies the one with 0). Requires
    0 < delta < 1; rho = 0 gives (0, delta) exactly.
    """
    _require(guarantee, ZCDP, "guarantee")
    d = exact_delta(delta, "delta", allow_zero=False)
    rho = guarantee.rho
    if rho == 0:
        return ApproxDP(0, d)
    with mp_precision(_SEARCH_DPS):  # the objective's constants at the search's precision
        objective = _zcdp_eps_objective(rho, d)
    t = _minimise_over_t(objective)
    alpha = _alpha_of(t)
    epsilon = ball_upper(cks20_epsilon_ball(alpha, alpha * rho, d))
    return ApproxDP(max(epsilon, 0.0), d)


def zcdp_delta_optimal(guarantee: ZCDP, epsilon: ExactLike) -> float:
    """EXT-CKS20 (Canonne-Kamath-Steinke 2020, Cor. 13): rho-zCDP implies
    (epsilon, delta)-DP for

        "delta = inf_{alpha > 1} exp((alpha - 1)(alpha rho - epsilon)) / (alpha - 1)
                 * (1 - 1/alpha)^alpha".

    Searched in mpmath, certified at the order found, rounded up, and at most 1 (delta
    = 1 always holds). rho = 0 gives 0.
    """
    _require(guarantee, ZCDP, "guarantee")
    eps = exact_nonnegative(epsilon, "epsilon")
    rho = guarantee.rho
    if rho == 0:
        return 0.0
    with mp_precision(_SEARCH_DPS):  # the objective's constants at the search's precision
        r = mpmath.mpf(rho.numerator) / rho.denominator
        e = mpmath.mpf(eps.numerator) / eps.denominator

    def objective(t: mpmath.mpf) -> mpmath.mpf:
        am1 = mpmath.exp(t)
        return am1 * ((1 + am1) * r - e) - am1 * mpmath.log1p(1 / am1) - mpmath.log1p(am1)

    t = _minimise_over_t(objective)
    alpha = _alpha_of(t)
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

