"""The lattice of implications between guarantees: what a spend implies in a measure.

One question, answered once for every ledger, compositor and conversion: given a spend,
which guarantee of a stated *measure* does it imply, exactly? :func:`implies` returns the
measure's parameters, or ``None`` when no edge leads there (a query, never an exception
from deep inside a rule); :func:`supports` is the same as a yes/no question. Each edge
carries its exact rule and its source in :data:`EDGES`; an implication through another
measure (pure DP -> zCDP -> RDP at an order) is a ``via`` edge, so every chain is
spelled out once. Conversions that need a slack (zCDP -> (epsilon, delta)-DP) are bounds,
not edges: they live in :mod:`adaptive_dp.guarantees.bounds` and the conversion modules.

Parameters per measure (exact rationals):

============  ==========================================================
PURE          ``(epsilon,)``
APPROX        ``(epsilon, delta)``
PDP           ``(epsilon, delta)``: conditionally probabilistic DP
ZCDP          ``(rho,)``
APPROX_ZCDP   ``(rho, delta)``: delta-approximate rho-zCDP
RDP           ``(epsilon,)`` at the order ``alpha`` given to :func:`implies`
GDP           ``(mu,)``
EXPOST        ``(epsilon, delta, max_epsilon)``: realised E(y), delta, worst case
============  ==========================================================
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from adaptive_dp.errors import UnsupportedGuaranteeError
from adaptive_dp.guarantees.definitions import (
    GDP,
    RDP,
    ZCDP,
    ApproxDP,
    ApproxZCDP,
    ProbabilisticDP,
    PureDP,
    RDPCurve,
)
from adaptive_dp.guarantees.expost import ExPost
from adaptive_dp.guarantees.spends import Spend

__all__ = ["EDGES", "Edge", "Measure", "implies", "measure_of", "require", "spend_in", "supports",
           "within"]

Params = tuple[Fraction, ...]
_ZERO = Fraction(0)


class Measure(enum.Enum):
    """A privacy measure, in which a ledger keeps its books."""

    PURE = "pure"
    APPROX = "approx"
    PDP = "pdp"
    ZCDP = "zcdp"
    APPROX_ZCDP = "approx-zcdp"
    RDP = "rdp"
    GDP = "gdp"
    EXPOST = "expost"


@dataclass(frozen=True, slots=True)
class Edge:
    """One implication: a spend of type ``source`` (or, with ``via``, anything that
    implies the measure ``via``) implies ``target`` with the parameters ``apply`` returns
    (``None``: the edge does not apply to this value, e.g. a nonzero delta)."""

    target: Measure
    source: type | Measure
    rule: str
    spec: str
    apply: Callable[[Any, Fraction | None], Params | None]


def _if_exact(delta: Fraction, params: Params) -> Params | None:
    return params if delta == 0 else None


def _rdp_point(curve: RDPCurve, alpha: Fraction | None) -> Params | None:
    return next(((p.epsilon,) for p in curve.points if p.alpha == alpha), None)


EDGES: tuple[Edge, ...] = (
    Edge(Measure.PURE, PureDP, "epsilon-DP", "CS2080-PureDP", lambda g, a: (g.epsilon,)),
    Edge(Measure.PURE, ApproxDP, "(epsilon, 0)-DP is epsilon-DP", "R23-Def2.1",
         lambda g, a: _if_exact(g.delta, (g.epsilon,))),
    Edge(Measure.APPROX, ApproxDP, "(epsilon, delta)-DP", "R23-Def2.1",
         lambda g, a: (g.epsilon, g.delta)),
    Edge(Measure.APPROX, ProbabilisticDP,
         "(epsilon, delta)-pDP implies (epsilon, delta)-DP", "W23-pDP",
         lambda g, a: (g.epsilon, g.delta)),
    Edge(Measure.APPROX, Measure.PURE, "epsilon-DP is (epsilon, 0)-DP", "R23-Def2.1",
         lambda p, a: (p[0], _ZERO)),
    Edge(Measure.PDP, ProbabilisticDP, "(epsilon, delta)-pDP", "W23-pDP",
         lambda g, a: (g.epsilon, g.delta)),
    Edge(Measure.PDP, Measure.PURE, "epsilon-DP bounds the loss by epsilon surely",
         "W23-pDP", lambda p, a: (p[0], _ZERO)),
    Edge(Measure.ZCDP, ZCDP, "rho-zCDP", "H23-Def4.4", lambda g, a: (g.rho,)),
    Edge(Measure.ZCDP, ApproxZCDP, "0-approximate rho-zCDP is rho-zCDP", "R23-Def2.4",
         lambda g, a: _if_exact(g.delta, (g.rho,))),
    Edge(Measure.ZCDP, Measure.PURE, "epsilon-DP implies epsilon^2/2-zCDP", "R23-Lem2.3",
         lambda p, a: (p[0] * p[0] / 2,)),
    Edge(Measure.APPROX_ZCDP, ApproxZCDP, "delta-approximate rho-zCDP", "R23-Def2.4",
         lambda g, a: (g.rho, g.delta)),
    Edge(Measure.APPROX_ZCDP, ApproxDP,
         "(epsilon, delta)-DP implies delta-approximate epsilon^2/2-zCDP", "R23-Lem2.3",
         lambda g, a: (g.epsilon * g.epsilon / 2, g.delta)),
    Edge(Measure.APPROX_ZCDP, Measure.ZCDP, "rho-zCDP is 0-approximate rho-zCDP",
         "R23-Def2.4", lambda p, a: (p[0], _ZERO)),
    Edge(Measure.RDP, RDP, "(alpha, epsilon)-RDP at the same order", "H23-Def1.3",
         lambda g, a: (g.epsilon,) if g.alpha == a else None),
    Edge(Measure.RDP, RDPCurve, "the curve's point at the order", "H23-Def1.3", _rdp_point),
    Edge(Measure.RDP, Measure.ZCDP, "rho-zCDP is (alpha, rho alpha)-RDP", "H23-Def4.4",
         lambda p, a: None if a is None else (p[0] * a,)),
    Edge(Measure.GDP, GDP, "mu-GDP", "EXT-GDP", lambda g, a: (g.mu,)),
    Edge(Measure.EXPOST, ExPost, "(E(y), delta) ex-post privacy", "R23-Def4.1",
         lambda g, a: (g.epsilon, g.delta, g.max_epsilon)),
    Edge(Measure.EXPOST, ProbabilisticDP,
         "(epsilon, delta)-pDP is ex-post private with E = epsilon", "R23-Def4.1",
         lambda g, a: (g.epsilon, g.delta, g.epsilon)),
    Edge(Measure.EXPOST, Measure.PURE, "epsilon-DP is ex-post private with E = epsilon",
         "R23-Def4.1", lambda p, a: (p[0], _ZERO, p[0])),
)
"""Every implication, with its rule and source."""

_DIRECT: dict[tuple[Measure, type], Edge] = {
    (e.target, e.source): e for e in EDGES if isinstance(e.source, type)
}
_VIA: dict[Measure, tuple[Edge, ...]] = {
    m: tuple(e for e in EDGES if e.target is m and isinstance(e.source, Measure))
    for m in Measure
}


def implies(spend: Spend, measure: Measure, alpha: Fraction | None = None) -> Params | None:
    """The parameters of the ``measure`` guarantee that ``spend`` implies (exact), or
    ``None`` if no edge of :data:`EDGES` leads there. ``alpha`` is the Rényi order of an
    RDP measure."""
    edge = _DIRECT.get((measure, type(spend)))
    if edge is not None:
        found = edge.apply(spend, alpha)
        if found is not None:
            return found
    for via in _VIA[measure]:
        assert isinstance(via.source, Measure)
        inner = implies(spend, via.source, alpha)
        if inner is not None:
            return via.apply(inner, alpha)
    return None


def require(
    spend: Spend, measure: Measure, *, name: str, alpha: Fraction | None = None
) -> Params:
    """:func:`implies`, or UnsupportedGuaranteeError naming ``name`` and the measure."""
    found = implies(spend, measure, alpha)
    if found is None:
        raise UnsupportedGuaranteeError(
            f"{name}={spend!r} is a {type(spend).__name__}: it implies no "
            f"{measure.value} guarantee"
        )
    return found


def supports(spend: Spend, measure: Measure, alpha: Fraction | None = None) -> bool:
    """Whether ``spend`` implies a guarantee of ``measure`` (a query, never raises)."""
    return implies(spend, measure, alpha) is not None


_MEASURE_OF: dict[type, Measure] = {
    PureDP: Measure.PURE,
    ApproxDP: Measure.APPROX,
    ProbabilisticDP: Measure.PDP,
    ZCDP: Measure.ZCDP,
    ApproxZCDP: Measure.APPROX_ZCDP,
    RDP: Measure.RDP,
    GDP: Measure.GDP,
    ExPost: Measure.EXPOST,
}


def measure_of(guarantee: Spend) -> Measure | None:
    """The measure a single guarantee is stated in (``None`` for a curve or a BM run)."""
    return _MEASURE_OF.get(type(guarantee))


def _params(guarantee: Spend) -> Params:
    measure = measure_of(guarantee)
    assert measure is not None
    alpha = guarantee.alpha if isinstance(guarantee, RDP) else None
    found = implies(guarantee, measure, alpha)
    assert found is not None
    return found


def within(declared: Spend, parameter: Spend) -> bool:
    """H23-Def1.10's check "M' is d'-D DP": a mechanism that declares ``declared`` is
    ``parameter``-DP, i.e. ``declared`` implies ``parameter``'s measure with every
    parameter <= ``parameter``'s (exact comparisons)."""
    measure = measure_of(parameter)
    if measure is None:
        return False
    alpha = parameter.alpha if isinstance(parameter, RDP) else None
    found = implies(declared, measure, alpha)
    if found is None:
        return False
    return all(a <= b for a, b in zip(found, _params(parameter), strict=True))


def spend_in(
    measure: Measure,
    value: float | Fraction,
    delta: float | Fraction = 0,
    alpha: Fraction | None = None,
) -> Spend | None:
    """The weakest spend stated in ``measure`` with primary parameter ``value`` and
    ``delta`` (None where the measure has no delta and ``delta`` is not 0)."""
    if measure is Measure.APPROX:
        return ApproxDP(value, delta)
    if measure is Measure.PDP:
        return ProbabilisticDP(value, delta)
    if measure is Measure.APPROX_ZCDP:
        return ApproxZCDP(value, delta)
    if measure is Measure.EXPOST:
        return ExPost(value, delta)
    if delta != 0:
        return None
    if measure is Measure.PURE:
        return PureDP(value)
    if measure is Measure.ZCDP:
        return ZCDP(value)
    if measure is Measure.GDP:
        return GDP(value)
    assert alpha is not None, "an RDP measure needs its order"
    return RDP(alpha, value)
