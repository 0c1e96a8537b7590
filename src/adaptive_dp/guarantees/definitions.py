"""Privacy guarantees as immutable, validated values.

Every parameter is stored exactly as a ``Fraction`` (docs/design.md, principle 6): decimal
text is exact, a float is its exact binary value. Constructors reject NaN,
infinities, negative budgets and deltas outside [0, 1) with the errors of
:mod:`adaptive_dp.errors`.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from typing import TypeAlias

from adaptive_dp.errors import GridError, OrderError, ParameterTypeError, iterable
from adaptive_dp.numerics.exact import (
    ExactLike,
    exact,
    exact_delta,
    exact_nonnegative,
)
from adaptive_dp.numerics.rounding import round_up

__all__ = [
    "GDP",
    "RDP",
    "ZCDP",
    "ApproxDP",
    "ApproxZCDP",
    "Guarantee",
    "ProbabilisticDP",
    "PureDP",
    "RDPCurve",
    "upper_fields",
]


def _order(value: object, name: str = "alpha") -> Fraction:
    a = exact(value, name)
    if a <= 1:
        raise OrderError(name, value, "a Rényi order alpha > 1")
    return a


@dataclass(frozen=True, slots=True, init=False)
class PureDP:
    """CS2080-PureDP (= R23-Def2.1 with delta = 0): epsilon-DP.

    "Pr[M(x) in T] <= e^epsilon Pr[M(x') in T] for all neighbours x, x' and sets T."
    """

    epsilon: Fraction

    def __init__(self, epsilon: ExactLike) -> None:
        object.__setattr__(self, "epsilon", exact_nonnegative(epsilon, "epsilon"))


@dataclass(frozen=True, slots=True, init=False)
class ApproxDP:
    """R23-Def2.1 / W23-ConditionalDP (= H23-Def1.1, CS2080-ApproxDP): (epsilon, delta)-DP.

    "Pr[M(x) in T] <= e^epsilon Pr[M(x') in T] + delta for all neighbours x, x' and
    sets T", with 0 <= delta < 1.
    """

    epsilon: Fraction
    delta: Fraction

    def __init__(self, epsilon: ExactLike, delta: ExactLike) -> None:
        object.__setattr__(self, "epsilon", exact_nonnegative(epsilon, "epsilon"))
        object.__setattr__(self, "delta", exact_delta(delta, "delta"))


@dataclass(frozen=True, slots=True, init=False)
class ProbabilisticDP:
    """W23-pDP / W23-ConditionalPDP (seed 004): probabilistic DP.

    "sup over neighbours x ~ x' of P(L(x, x') > epsilon) <= delta", the loss taken
    over the mechanism's output on x. Implies, but is not equivalent to,
    (epsilon, delta)-DP.
    """

    epsilon: Fraction
    delta: Fraction

    def __init__(self, epsilon: ExactLike, delta: ExactLike) -> None:
        object.__setattr__(self, "epsilon", exact_nonnegative(epsilon, "epsilon"))
        object.__setattr__(self, "delta", exact_delta(delta, "delta"))


@dataclass(frozen=True, slots=True, init=False)
class ZCDP:
    """H23-Def4.4 (Bun-Steinke 2016): rho-zCDP.

    "D_alpha(M(x) || M(x')) <= rho alpha for all alpha in (1, inf)."
    """

    rho: Fraction

    def __init__(self, rho: ExactLike) -> None:
        object.__setattr__(self, "rho", exact_nonnegative(rho, "rho"))


@dataclass(frozen=True, slots=True, init=False)
class ApproxZCDP:
    """R23-Def2.4: delta-approximate rho-zCDP.

    "There are events E, E' with P[M(x) in E], P[M(x') in E'] >= 1 - delta such that
    D_alpha(M(x)|E || M(x')|E') <= rho alpha for all alpha >= 1."
    """

    rho: Fraction
    delta: Fraction

    def __init__(self, rho: ExactLike, delta: ExactLike) -> None:
        object.__setattr__(self, "rho", exact_nonnegative(rho, "rho"))
        object.__setattr__(self, "delta", exact_delta(delta, "delta"))


@dataclass(frozen=True, slots=True, init=False)
class RDP:
    """H23-Def1.3 / Def4.2 (Mironov 2017): (alpha, epsilon)-Rényi DP at one order.

    "D_alpha(M(x) || M(x')) <= epsilon for all neighbours x, x'", alpha > 1.
    """

    alpha: Fraction
    epsilon: Fraction

    def __init__(self, alpha: ExactLike, epsilon: ExactLike) -> None:
        object.__setattr__(self, "alpha", _order(alpha))
        object.__setattr__(self, "epsilon", exact_nonnegative(epsilon, "epsilon"))


@dataclass(frozen=True, slots=True, init=False)
class RDPCurve:
    """H23-Def1.3 on a finite grid of orders: (alpha_j, epsilon_j)-RDP for every j.

    Orders are stored strictly increasing; duplicates are rejected.
    """

    points: tuple[RDP, ...]

    def __init__(self, points: Iterable[RDP | tuple[ExactLike, ExactLike]]) -> None:
        items: list[RDP] = []
        for p in iterable(points, "points"):
            if isinstance(p, RDP):
                items.append(p)
            elif isinstance(p, (tuple, list)) and len(p) == 2:
                items.append(RDP(p[0], p[1]))
            else:
                raise ParameterTypeError("points", p, "RDP values or (alpha, epsilon) pairs")
        if not items:
            raise GridError("points", (), "at least one (alpha, epsilon) pair")
        items.sort(key=lambda p: p.alpha)
        for a, b in itertools.pairwise(items):
            if a.alpha == b.alpha:
                raise GridError("points", b.alpha, "distinct Rényi orders")
        object.__setattr__(self, "points", tuple(items))

    @property
    def orders(self) -> tuple[Fraction, ...]:
        """The grid of orders, increasing."""
        return tuple(p.alpha for p in self.points)


@dataclass(frozen=True, slots=True, init=False)
class GDP:
    """EXT-GDP (Dong-Roth-Su 2019): mu-Gaussian DP, f-DP with f = G_mu.

    "T(M(x), M(x')) >= G_mu, G_mu(a) = Phi(Phi^{-1}(1 - a) - mu)."
    """

    mu: Fraction

    def __init__(self, mu: ExactLike) -> None:
        object.__setattr__(self, "mu", exact_nonnegative(mu, "mu"))


Guarantee: TypeAlias = (
    PureDP | ApproxDP | ProbabilisticDP | ZCDP | ApproxZCDP | RDP | RDPCurve | GDP
)
"""Any privacy guarantee value."""


def upper_fields(guarantee: object) -> dict[str, float]:
    """A guarantee's numeric fields as floats rounded up (upper bounds), by name: the
    form in which every answer prints a loss (docs/design.md, interchange format)."""
    if not dataclasses.is_dataclass(guarantee) or isinstance(guarantee, type):
        raise TypeError(f"not a guarantee: {guarantee!r}")
    return {f.name: round_up(v) for f in dataclasses.fields(guarantee)
            if isinstance(v := getattr(guarantee, f.name), Fraction)}
