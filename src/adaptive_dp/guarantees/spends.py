"""What a spend is: every kind of the interchange format as a frozen value.

A *spend* is what a ledger (filter, accumulator, odometer) is charged for one
mechanism: a privacy guarantee of :mod:`adaptive_dp.guarantees.definitions`, an ex-post
guarantee (:class:`~adaptive_dp.guarantees.expost.ExPost`, R23-Def4.1) or a Brownian
mechanism run (:class:`BrownianSpend`). The kind names are those of the interchange
format (docs/design.md, interchange format); :mod:`adaptive_dp.interchange` only reads and
writes them as JSON.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import TypeAlias

from adaptive_dp.errors import ParameterError
from adaptive_dp.guarantees.definitions import (
    GDP,
    RDP,
    ZCDP,
    ApproxDP,
    ApproxZCDP,
    Guarantee,
    ProbabilisticDP,
    PureDP,
    RDPCurve,
)
from adaptive_dp.guarantees.expost import ExPost
from adaptive_dp.numerics import ExactLike, exact_nonnegative, exact_positive

__all__ = ["KINDS", "BrownianSpend", "Spend", "kind_of"]


@dataclass(frozen=True, slots=True, init=False)
class BrownianSpend:
    """A Brownian mechanism (R23-Def4.4) as a spend: the declared l2 ``sensitivity``, the
    grid's smallest time value ``t_min`` and the time value ``t_stop`` where it stopped.

    Charged "sensitivity^2 / (2 t_stop)" with the declared sensitivity, never the
    data-dependent distance; its pre-check before it runs is "sensitivity^2 / (2 t_min)
    <= remaining rho" (R23-Eq3, R23-Eq4). ``t_stop`` defaults to ``t_min`` (the charge as
    if it ran to the end of its grid); time values decrease, so ``t_stop >= t_min``.
    """

    sensitivity: Fraction
    t_min: Fraction
    t_stop: Fraction

    def __init__(
        self, sensitivity: ExactLike, t_min: ExactLike, t_stop: ExactLike | None = None
    ) -> None:
        tm = exact_positive(t_min, "t_min")
        ts = tm if t_stop is None else exact_positive(t_stop, "t_stop")
        if ts < tm:
            raise ParameterError("t_stop", t_stop, f"a time value >= t_min = {tm}")
        object.__setattr__(self, "sensitivity", exact_nonnegative(sensitivity, "sensitivity"))
        object.__setattr__(self, "t_min", tm)
        object.__setattr__(self, "t_stop", ts)


Spend: TypeAlias = Guarantee | ExPost | BrownianSpend
"""Anything a ledger can be charged: a guarantee, an ex-post guarantee or a BM run."""

KINDS = ("pure", "approx", "pdp", "zcdp", "rdp", "gdp", "expost", "bm")
"""The interchange kinds, in the order of docs/design.md."""

_KIND_OF: dict[type, str] = {
    PureDP: "pure",
    ApproxDP: "approx",
    ProbabilisticDP: "pdp",
    ZCDP: "zcdp",
    ApproxZCDP: "zcdp",
    RDP: "rdp",
    RDPCurve: "rdp",
    GDP: "gdp",
    ExPost: "expost",
    BrownianSpend: "bm",
}


def kind_of(spend: Spend) -> str:
    """The interchange kind of a spend value."""
    return _KIND_OF[type(spend)]
