"""The closed-form privacy bounds, each defined once: a certified enclosure and a float
rounded up, under one rounding policy (docs/design.md, rounding).

* :class:`W23Bound`: "sqrt(2 log(1/delta') V) + V/2", V a sum of squared epsilons: the
  advanced-composition form of Whitehouse et al. (H23-ThmB.3, H23-Thm3.8, CS2080-AdvComp
  in its Bun-Steinke form).
* :class:`BunSteinkeBound`: "rho + 2 sqrt(rho log(1/delta''))": zCDP to (epsilon,
  delta)-DP (R23-Lem2.3 (ii)), and R23-Thm2's filter condition on the sum of rhos.
* :func:`cks20_epsilon_ball` and :func:`cks20_delta_upper`: EXT-CKS20, Prop. 12, at one
  Rényi order.

Each bound class fixes its slack delta at construction and certifies its constant once
(an ``arb`` enclosure rounded up), so the float route costs a few float operations:
``upper(x)`` is never below the exact value, ``ball(x)`` encloses it, and ``room(budget)``
is the largest argument whose bound is within ``budget`` (an enclosure; rules take its
lower end). The time-uniform boundaries (Ville, normal mixture, stitching) live in
:mod:`adaptive_dp.evalues.boundaries`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

from flint import arb

from adaptive_dp.numerics import arb_of, ball_upper, enclose, exact_upper
from adaptive_dp.numerics.floats import Real, add_up, inflate_up, mul_up, sqrt

__all__ = ["BunSteinkeBound", "W23Bound", "cks20_delta_upper", "cks20_epsilon_ball"]

# exp(x) < 2**-1074 (the smallest positive float) for x below this.
_LOG_TINY = Fraction(-745)


def _log_inverse_up(delta: Fraction, scale: int) -> float:
    """scale * log(1/delta), certified and rounded up."""
    return ball_upper(enclose(lambda: scale * (1 / arb_of(delta)).log()))


@dataclass(frozen=True, slots=True)
class W23Bound:
    """H23-ThmB.3 / H23-Thm3.8 (Whitehouse et al. 2023): "sqrt(2 log(1/delta') V) + V/2"
    for V = sum_m epsilon_m^2 and a slack 0 < delta' < 1."""

    delta_slack: Fraction
    c2_up: float = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "c2_up", _log_inverse_up(self.delta_slack, 2))

    def ball(self, v: Fraction) -> arb:
        """Enclosure of the bound at an exact V (0 at V = 0)."""
        if v == 0:
            return arb(0)
        dp = self.delta_slack
        return enclose(lambda: (2 * (1 / arb_of(dp)).log() * arb_of(v)).sqrt() + arb_of(v) / 2)

    def upper(self, v: Real) -> Real:
        """The bound at float V (or per path), rounded up."""
        return inflate_up(sqrt(mul_up(self.c2_up, v)) + v / 2)

    def room(self, epsilon: Fraction) -> arb:
        """Enclosure of V* with bound(V*) = epsilon: sqrt(V*) = sqrt(2c + 2 epsilon) -
        sqrt(2c), c = log(1/delta')."""
        dp = self.delta_slack

        def value() -> arb:
            c2 = 2 * (1 / arb_of(dp)).log()
            root = (c2 + 2 * arb_of(epsilon)).sqrt() - c2.sqrt()
            return root * root

        return enclose(value)


@dataclass(frozen=True, slots=True)
class BunSteinkeBound:
    """R23-Lem2.3 (ii) (Bun-Steinke 2016): "rho + 2 sqrt(rho log(1/delta''))", the
    epsilon of delta-approximate rho-zCDP at the extra delta'' (0 < delta'' < 1); with
    rho = R the sum of the rho_m, R23-Thm2's condition."""

    delta_slack: Fraction
    c_up: float = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "c_up", _log_inverse_up(self.delta_slack, 1))

    def ball(self, rho: Fraction) -> arb:
        """Enclosure of the bound at an exact rho (0 at rho = 0)."""
        if rho == 0:
            return arb(0)
        slack = self.delta_slack
        return enclose(
            lambda: arb_of(rho) + 2 * (arb_of(rho) * (1 / arb_of(slack)).log()).sqrt()
        )

    def upper(self, rho: Real) -> Real:
        """The bound at float rho (or per path), rounded up."""
        return inflate_up(add_up(2 * sqrt(mul_up(self.c_up, rho)), rho))

    def room(self, epsilon: Fraction) -> arb:
        """Enclosure of rho* with bound(rho*) = epsilon: sqrt(rho*) = sqrt(c + epsilon) -
        sqrt(c), c = log(1/delta'')."""
        slack = self.delta_slack

        def value() -> arb:
            c = (1 / arb_of(slack)).log()
            root = (c + arb_of(epsilon)).sqrt() - c.sqrt()
            return root * root

        return enclose(value)


# Canonne, Kamath, Steinke 2020, Prop. 12: if D_alpha(P||Q) <= tau for one alpha > 1,
# then P, Q are (epsilon, delta)-indistinguishable with
#     delta = exp((alpha - 1)(tau - epsilon)) / (alpha - 1) * (1 - 1/alpha)^alpha,
# equivalently
#     epsilon = tau + (log(1/delta) + (alpha - 1) log(1 - 1/alpha) - log(alpha)) / (alpha - 1).


def cks20_delta_upper(alpha: Fraction, tau: Fraction, epsilon: Fraction) -> float:
    """EXT-CKS20 (Prop. 12) at one order: "delta = exp((alpha-1)(tau-epsilon)) / (alpha-1)
    * (1-1/alpha)^alpha" for (alpha, tau)-RDP at ``epsilon``, certified and rounded up,
    at most 1 (and the smallest positive float when it underflows)."""

    def log_delta() -> arb:
        a = arb_of(alpha)
        am1 = arb_of(alpha - 1)
        return am1 * (arb_of(tau) - arb_of(epsilon)) + am1 * (-(1 / am1).log1p()) - a.log()

    log_ball = enclose(log_delta)
    if not log_ball.is_finite():
        return 1.0
    upper = exact_upper(log_ball)
    if upper >= 0:
        return 1.0
    if upper < _LOG_TINY:
        return math.ulp(0.0)
    return min(ball_upper(enclose(lambda: log_delta().exp())), 1.0)


def cks20_epsilon_ball(alpha: Fraction, tau: Fraction, delta: Fraction) -> arb:
    """EXT-CKS20 (Prop. 12) at one order: the epsilon for (alpha, tau)-RDP at ``delta``.

    "epsilon = tau + (log(1/delta) + (alpha-1) log(1-1/alpha) - log(alpha)) / (alpha-1)",
    the same expression as EXT-BBGHS20. Returned as a certified ball (may be negative:
    the caller takes max(0, .)).
    """

    def evaluate() -> arb:
        a = arb_of(alpha)
        am1 = arb_of(alpha - 1)
        num = -arb_of(delta).log() + am1 * (-(1 / am1).log1p()) - a.log()
        return arb_of(tau) + num / am1

    return enclose(evaluate)
