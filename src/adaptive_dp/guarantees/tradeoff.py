"""Trade-off functions (f-DP): H23-Def3.1, H23-Def3.2, H23-FEpsDelta, EXT-GaussianTradeoff.

A trade-off function f lower-bounds the type II error of every test at type I error
alpha, so a *smaller* f is a weaker guarantee: values are certified with ``arb`` and
rounded DOWN (toward more privacy loss).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Protocol, runtime_checkable

from flint import arb

from adaptive_dp.errors import NonFiniteError, ParameterError, ParameterTypeError
from adaptive_dp.numerics import (
    ExactLike,
    arb_of,
    ball_lower,
    enclose,
    exact_delta,
    exact_nonnegative,
    round_down,
)

__all__ = ["ApproxDPTradeoff", "GaussianTradeoff", "TradeoffFunction"]


@runtime_checkable
class TradeoffFunction(Protocol):
    """H23-Def3.1: a trade-off function T(P, Q)(alpha) = inf{beta_phi : alpha_phi <= alpha},
    convex, continuous, non-increasing, f(alpha) <= 1 - alpha on [0, 1]."""

    def __call__(self, alpha: float) -> float: ...


def _type_one(alpha: object) -> Fraction:
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)):
        raise ParameterTypeError("alpha", alpha, "a float in [0, 1]")
    if not math.isfinite(alpha):
        raise NonFiniteError("alpha", alpha, "a float in [0, 1]")
    if not 0 <= alpha <= 1:
        raise ParameterError("alpha", alpha, "a type I error in [0, 1]")
    return Fraction(alpha)


@dataclass(frozen=True, slots=True, init=False)
class GaussianTradeoff:
    """EXT-GaussianTradeoff (Dong-Roth-Su): "G_mu(alpha) = Phi(Phi^{-1}(1 - alpha) - mu)", the
    trade-off function of N(0, 1) versus N(mu, 1); mu-GDP is f-DP (H23-Def3.2) with
    f = G_mu. Evaluated as erfc(mu/sqrt 2 - erfcinv(2 alpha)) / 2, certified and rounded
    down."""

    mu: Fraction

    def __init__(self, mu: ExactLike) -> None:
        object.__setattr__(self, "mu", exact_nonnegative(mu, "mu"))

    def __call__(self, alpha: float) -> float:
        a = _type_one(alpha)
        if a == 0:
            return 1.0
        if a == 1:
            return 0.0
        mu = self.mu

        def evaluate() -> arb:
            z = (2 * arb_of(a)).erfcinv()  # Phi^{-1}(1 - alpha) / sqrt 2
            return (arb_of(mu) / arb(2).sqrt() - z).erfc() / 2

        return min(max(ball_lower(enclose(evaluate)), 0.0), 1.0)


@dataclass(frozen=True, slots=True, init=False)
class ApproxDPTradeoff:
    """H23-FEpsDelta (seed 003, after Thm 3.3): the trade-off function of
    (epsilon, delta)-DP,

        "f_{epsilon,delta}(alpha) = max{0, 1 - delta - e^epsilon alpha,
                                        e^{-epsilon} (1 - delta - alpha)}",

    certified and rounded down."""

    epsilon: Fraction
    delta: Fraction

    def __init__(self, epsilon: ExactLike, delta: ExactLike) -> None:
        object.__setattr__(self, "epsilon", exact_nonnegative(epsilon, "epsilon"))
        object.__setattr__(self, "delta", exact_delta(delta, "delta"))

    def __call__(self, alpha: float) -> float:
        a = _type_one(alpha)
        eps, delta = self.epsilon, self.delta

        def evaluate() -> arb:
            e = arb_of(eps).exp()
            one = 1 - arb_of(delta)
            first = one - e * arb_of(a)
            second = (one - arb_of(a)) / e
            return first.max(second)

        if eps == 0:  # exact: max(0, 1 - delta - alpha)
            return max(round_down(1 - delta - a), 0.0)
        return max(ball_lower(enclose(evaluate)), 0.0)
