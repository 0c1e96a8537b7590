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

from adaptive_dp.numerics import (
    DEFAULT_PRECISION,
    arb_of,
    ball_upper,
    enclose,
    exact_delta,
    exact_upper,
)
from adaptive_dp.numerics.floats import Real, add_up, inflate_up, mul_up, sqrt
from adaptive_dp.numerics.tight import tight_upper

__all__ = ["BunSteinkeBound", "W23Bound", "cks20_delta_upper", "cks20_epsilon_ball"]

# exp(x) < 2**-1074 (the smallest positive float) for x below this.
_LOG_TINY = Fraction(-745)


@dataclass(frozen=True, slots=True)
class _SlackBound:
    """A closed form in a sum x and c = log(1/delta_slack): ``_value`` (on balls) gives
    the bound, ``_room`` the x at which it equals a budget, ``upper`` the float rounded
    up from ``c_up``, c certified and rounded up once."""

    delta_slack: Fraction
    c_up: float = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        slack = exact_delta(self.delta_slack, "delta_slack", allow_zero=False)
        object.__setattr__(self, "delta_slack", slack)
        object.__setattr__(self, "c_up", ball_upper(enclose(lambda: (1 / arb_of(slack)).log())))

    def _c(self) -> arb:
        return (1 / arb_of(self.delta_slack)).log()

    def _value(self, x: arb, c: arb) -> arb:
        raise NotImplementedError

    def _root(self, epsilon: arb, c: arb) -> arb:
        raise NotImplementedError

    def ball(self, x: Fraction) -> arb:
        """Enclosure of the bound at an exact x (0 at x = 0)."""
        if x == 0:
            return arb(0)
        return enclose(lambda: self._value(arb_of(x), self._c()))

    def room(self, epsilon: Fraction) -> arb:
        """Enclosure of the x at which the bound equals ``epsilon``."""
        return enclose(lambda: self._root(arb_of(epsilon), self._c()) ** 2)


@dataclass(frozen=True, slots=True)
class W23Bound(_SlackBound):
    """H23-ThmB.3 / H23-Thm3.8 (Whitehouse et al. 2023): "sqrt(2 log(1/delta') V) + V/2"
    for V = sum_m epsilon_m^2 and a slack 0 < delta' < 1; ``room``: sqrt(V*) =
    sqrt(2c + 2 epsilon) - sqrt(2c)."""

    def _value(self, x: arb, c: arb) -> arb:
        return (2 * c * x).sqrt() + x / 2

    def _root(self, epsilon: arb, c: arb) -> arb:
        return (2 * c + 2 * epsilon).sqrt() - (2 * c).sqrt()

    def upper(self, v: Real) -> Real:
        """The bound at float V (or per path), rounded up."""
        return inflate_up(sqrt(mul_up(v, 2 * self.c_up)) + v / 2)


@dataclass(frozen=True, slots=True)
class BunSteinkeBound(_SlackBound):
    """R23-Lem2.3 (ii) (Bun-Steinke 2016): "rho + 2 sqrt(rho log(1/delta''))", the
    epsilon of delta-approximate rho-zCDP at the extra delta'' (0 < delta'' < 1); with
    rho = R the sum of the rho_m, R23-Thm2's condition; ``room``: sqrt(rho*) =
    sqrt(c + epsilon) - sqrt(c)."""

    def _value(self, x: arb, c: arb) -> arb:
        return x + 2 * (x * c).sqrt()

    def _root(self, epsilon: arb, c: arb) -> arb:
        return (c + epsilon).sqrt() - c.sqrt()

    def upper(self, rho: Real) -> Real:
        """The bound at float rho (or per path), rounded up."""
        return inflate_up(add_up(2 * sqrt(mul_up(rho, self.c_up)), rho))


# Canonne, Kamath, Steinke 2020, Prop. 12: if D_alpha(P||Q) <= tau for one alpha > 1,
# then P, Q are (epsilon, delta)-indistinguishable with
#     delta = exp((alpha - 1)(tau - epsilon)) / (alpha - 1) * (1 - 1/alpha)^alpha,
# equivalently
#     epsilon = tau + (log(1/delta) + (alpha - 1) log(1 - 1/alpha) - log(alpha)) / (alpha - 1).


def cks20_delta_upper(alpha: Fraction, tau: Fraction, epsilon: Fraction) -> float:
    """EXT-CKS20 (Prop. 12) at one order: "delta = exp((alpha-1)(tau-epsilon)) / (alpha-1)
    * (1-1/alpha)^alpha" for (alpha, tau)-RDP at ``epsilon``, certified, rounded up and
    within two ulps (:func:`tight_upper`), at most 1 (and the smallest positive float
    when it underflows)."""

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
    return min(tight_upper(lambda bits: enclose(lambda: log_delta().exp(), bits)), 1.0)


def cks20_epsilon_ball(
    alpha: Fraction, tau: Fraction, delta: Fraction, precision: int = DEFAULT_PRECISION
) -> arb:
    """EXT-CKS20 (Prop. 12) at one order: the epsilon for (alpha, tau)-RDP at ``delta``.

    "epsilon = tau + (log(1/delta) + (alpha-1) log(1-1/alpha) - log(alpha)) / (alpha-1)",
    the same expression as EXT-BBGHS20. Returned as a certified ball (may be negative:
    the caller takes max(0, .)), enclosed from ``precision`` bits up.
    """

    def evaluate() -> arb:
        a = arb_of(alpha)
        am1 = arb_of(alpha - 1)
        num = -arb_of(delta).log() + am1 * (-(1 / am1).log1p()) - a.log()
        return arb_of(tau) + num / am1

    return enclose(evaluate, precision)
