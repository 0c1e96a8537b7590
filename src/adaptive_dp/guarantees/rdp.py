"""Rényi DP: conversion to (epsilon, delta)-DP, zCDP curves, Gaussian RDP, composition.

Spec ids: EXT-Mironov17, EXT-BBGHS20, EXT-CKS20 (conversions), EXT-GaussianRDP,
H23-Def1.3 (RDP), H23-Def4.4 (zCDP as an RDP curve). Epsilons are certified with
``arb`` and rounded up; exact rational quantities stay exact.

Method labels: ``"bbghs20"`` (default), ``"mironov17"``, ``"cks20"``. At a single order
the CKS20 Prop. 12 conversion and the BBGHS20 one are the same expression; both labels
are accepted and give the same number.
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from functools import partial
from typing import Literal

from flint import arb

from adaptive_dp.errors import GridError, ParameterError, UnsupportedGuaranteeError
from adaptive_dp.guarantees.bounds import cks20_epsilon_ball
from adaptive_dp.guarantees.definitions import RDP, ZCDP, ApproxDP, RDPCurve
from adaptive_dp.numerics import (
    ExactLike,
    arb_of,
    enclose,
    exact_delta,
    exact_nonnegative,
    exact_positive,
)
from adaptive_dp.numerics.tight import tight_upper

__all__ = [
    "RDP_METHODS",
    "compose_rdp",
    "gaussian_rdp",
    "rdp_to_dp",
    "zcdp_rdp_curve",
]

RDP_METHODS = ("bbghs20", "mironov17", "cks20")
"""Accepted ``method`` labels of :func:`rdp_to_dp`."""


def _mironov_ball(point: RDP, delta: Fraction, precision: int) -> arb:
    def evaluate() -> arb:
        return arb_of(point.epsilon) - arb_of(delta).log() / arb_of(point.alpha - 1)

    return enclose(evaluate, precision)


def _points(guarantee: RDP | RDPCurve) -> tuple[RDP, ...]:
    if isinstance(guarantee, RDP):
        return (guarantee,)
    if isinstance(guarantee, RDPCurve):
        return guarantee.points
    raise UnsupportedGuaranteeError(
        f"guarantee={guarantee!r} is a {type(guarantee).__name__}: expected RDP or RDPCurve"
    )


def rdp_to_dp(
    guarantee: RDP | RDPCurve,
    delta: ExactLike,
    method: Literal["bbghs20", "mironov17", "cks20"] = "bbghs20",
) -> ApproxDP:
    """EXT-BBGHS20 / EXT-Mironov17 / EXT-CKS20: (alpha, epsilon)-RDP implies
    (epsilon', delta)-DP for 0 < delta < 1, with

    - ``"mironov17"`` (Mironov 2017, Prop. 3): "epsilon' = epsilon + log(1/delta)/(alpha-1)";
    - ``"bbghs20"`` (Balle-Barthe-Gaboardi-Hsu-Sato 2020, Thm. 21):
      "epsilon' = epsilon + log((alpha-1)/alpha) - (log delta + log alpha)/(alpha-1)";
    - ``"cks20"`` (Canonne-Kamath-Steinke 2020, Prop. 12): the same expression as bbghs20.

    On a curve, the smallest certified epsilon' over its orders. Exact: max(0, the
    minimum over the given orders of the formula); each order's epsilon' is certified,
    rounded up and certified within two ulps (:func:`tight_upper`), so their minimum is
    too. A negative value is replaced by 0 (valid: it implies the 0 one).
    """
    if method not in RDP_METHODS:
        raise ParameterError("method", method, " | ".join(RDP_METHODS))
    points = _points(guarantee)
    d = exact_delta(delta, "delta", allow_zero=False)

    def ball(point: RDP, bits: int) -> arb:
        if method == "mironov17":
            return _mironov_ball(point, d, bits)
        return cks20_epsilon_ball(point.alpha, point.epsilon, d, bits)

    best = min(tight_upper(partial(ball, p)) for p in points)
    return ApproxDP(max(best, 0.0), d)


def zcdp_rdp_curve(guarantee: ZCDP, orders: Iterable[ExactLike]) -> RDPCurve:
    """H23-Def4.4 (Bun-Steinke): "D_alpha(M(x) || M(x')) <= rho alpha for all alpha > 1",
    sampled at the given orders: the exact curve (alpha, alpha rho)."""
    if not isinstance(guarantee, ZCDP):
        raise UnsupportedGuaranteeError(
            f"guarantee={guarantee!r} is a {type(guarantee).__name__}: expected ZCDP"
        )
    points = [RDP(a, 1) for a in orders]  # validates each order
    return RDPCurve(RDP(p.alpha, p.alpha * guarantee.rho) for p in points)


def gaussian_rdp(sensitivity: ExactLike, sigma: ExactLike, alpha: ExactLike) -> RDP:
    """EXT-GaussianRDP (Mironov 2017, Prop. 7): the Gaussian mechanism with l2
    sensitivity Delta and noise N(0, sigma^2) has "D_alpha = alpha Delta^2 / (2 sigma^2)".

    Exact rational (sensitivity >= 0, sigma > 0, alpha > 1).
    """
    s = exact_nonnegative(sensitivity, "sensitivity")
    sg = exact_positive(sigma, "sigma")
    order = RDP(alpha, 0).alpha
    return RDP(order, order * s**2 / (2 * sg**2))


def compose_rdp(guarantees: Iterable[RDP | RDPCurve]) -> RDP | RDPCurve:
    """H23-Thm4.3 (Lyu 2022: concurrent composition of RDP mechanisms; its sequential,
    adaptive special case is Mironov 2017, Prop. 1): mechanisms that are (alpha, eps_i)-RDP
    compose to (alpha, sum_i eps_i)-RDP.

    Every guarantee must have the same orders (``GridError`` otherwise); epsilons add
    exactly. All single ``RDP`` values give an ``RDP``; otherwise an ``RDPCurve``.
    """
    items = list(guarantees)
    if not items:
        raise GridError("guarantees", (), "at least one RDP guarantee")
    grids = [_points(g) for g in items]
    orders = tuple(p.alpha for p in grids[0])
    for i, grid in enumerate(grids[1:], start=1):
        other = tuple(p.alpha for p in grid)
        if other != orders:
            raise GridError(
                f"guarantees[{i}].orders",
                tuple(str(a) for a in other),
                f"the same orders as guarantees[0]: {tuple(str(a) for a in orders)}",
            )
    sums = [sum((grid[j].epsilon for grid in grids), Fraction(0)) for j in range(len(orders))]
    if all(isinstance(g, RDP) for g in items):
        return RDP(orders[0], sums[0])
    return RDPCurve(RDP(a, e) for a, e in zip(orders, sums, strict=True))
