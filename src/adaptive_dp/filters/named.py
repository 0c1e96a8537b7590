"""Rules, odometers and accumulators by their short stable names (docs/design.md, command
line), built from a mapping of named parameters: one home for the command line's
``filter``/``odometer`` subcommands, the transcripts that ``certify`` replays and the
session store.

Parameter names are the command-line flags without ``--`` and with ``_`` for ``-``
(``epsilon``, ``delta``, ``delta_slack``, ``rho``, ``alpha``, ``mu``, ``h_log``;
odometers: ``mixture_rho``, ``mixture_v_star``, ``sides``, ``stitch_eta``, ``stitch_s``,
``stitch_form``). Values are read exactly (strings, ``Decimal``, ``int``, ``Fraction``),
as in the interchange format. A missing parameter raises
:class:`~adaptive_dp.errors.MissingParameterError`, an unknown one
:class:`~adaptive_dp.errors.ParameterError`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from adaptive_dp.errors import MissingParameterError, ParameterError
from adaptive_dp.filters.base import Rule
from adaptive_dp.filters.basic import BasicFilter, PureDPFilter
from adaptive_dp.filters.brownian import BrownianFilter, UnifiedFilter
from adaptive_dp.filters.expost import ExPostFilter
from adaptive_dp.filters.gdp import GDPFilter
from adaptive_dp.filters.rdp import RDPFilter
from adaptive_dp.filters.rruv16 import RRUV16Filter
from adaptive_dp.filters.w23 import W23Filter
from adaptive_dp.filters.zcdp import ZCDPFilter, ZCDPSumFilter
from adaptive_dp.numerics import ExactLike, exact, exact_positive
from adaptive_dp.odometers.accumulators import (
    Accumulator,
    ApproxDPAccumulator,
    BasicAccumulator,
    GDPAccumulator,
    RDPAccumulator,
    ZCDPAccumulator,
)
from adaptive_dp.odometers.rruv16 import RRUV16Odometer
from adaptive_dp.odometers.w23 import W23MixtureOdometer, W23StitchedOdometer, mixture_rho_for

__all__ = [
    "ACCUMULATORS",
    "CONCURRENT",
    "ODOMETERS",
    "RULES",
    "Books",
    "Named",
    "build_odometer",
    "build_rule",
]

Params = Mapping[str, ExactLike | None]
Books = W23StitchedOdometer | W23MixtureOdometer | RRUV16Odometer | Accumulator


@dataclass(frozen=True)
class Named:
    """One named construction: the parameters it reads (required, then optional with
    their defaults) and the builder."""

    required: tuple[str, ...]
    optional: Mapping[str, ExactLike | None]
    build: Callable[[Params], object]

    @property
    def parameters(self) -> tuple[str, ...]:
        """Every parameter name it reads."""
        return self.required + tuple(self.optional)


def _p(params: Params, name: str) -> ExactLike:
    value = params[name]
    assert value is not None  # filled by _complete
    return value


def _choice(params: Params, name: str, choices: tuple[str, ...]) -> Any:
    """A text parameter that must be one of ``choices`` (returned as the literal)."""
    value = params[name]
    if value not in choices:
        raise ParameterError(name, value, f"one of {', '.join(choices)}")
    return value


def _slack(params: Params) -> ExactLike | None:
    return params.get("delta_slack")


def _rule(required: tuple[str, ...], optional: Mapping[str, ExactLike | None],
          build: Callable[[Params], Rule]) -> Named:
    return Named(required, optional, build)


RULES: Mapping[str, Named] = {
    "basic": _rule(("epsilon",), {"delta": 0},
                   lambda p: BasicFilter(_p(p, "epsilon"), delta=_p(p, "delta"))),
    "pure": _rule(("epsilon",), {}, lambda p: PureDPFilter(_p(p, "epsilon"))),
    "w23": _rule(("epsilon", "delta"), {"delta_slack": None},
                 lambda p: W23Filter(_p(p, "epsilon"), delta=_p(p, "delta"),
                                     delta_slack=_slack(p))),
    "zcdp": _rule(("epsilon", "delta"), {"delta_slack": None},
                  lambda p: ZCDPFilter(_p(p, "epsilon"), delta=_p(p, "delta"),
                                       delta_slack=_slack(p))),
    "zcdp-sum": _rule(("rho",), {}, lambda p: ZCDPSumFilter(_p(p, "rho"))),
    "rdp": _rule(("alpha", "epsilon"), {},
                 lambda p: RDPFilter(_p(p, "alpha"), _p(p, "epsilon"))),
    "gdp": _rule(("mu",), {}, lambda p: GDPFilter(_p(p, "mu"))),
    "rruv16": _rule(("epsilon", "delta"), {"h_log": "1/delta"},
                    lambda p: RRUV16Filter(_p(p, "epsilon"), delta=_p(p, "delta"),
                                           h_log=_choice(p, "h_log", ("1/delta", "2/delta")))),
    "expost": _rule(("epsilon",), {"delta": 0},
                    lambda p: ExPostFilter(_p(p, "epsilon"), delta=_p(p, "delta"))),
    "brownian": _rule(("epsilon", "delta"), {},
                      lambda p: BrownianFilter(_p(p, "epsilon"), delta=_p(p, "delta"))),
    "unified": _rule(("epsilon", "delta"), {"delta_slack": None},
                     lambda p: UnifiedFilter(_p(p, "epsilon"), delta=_p(p, "delta"),
                                             delta_slack=_slack(p))),
}
"""The continuation rules of ``adaptive-dp filter``."""

CONCURRENT: Mapping[str, str] = {
    "basic": "H23-Cor3.5",
    "pure": "H23-Cor3.5",
    "w23": "H23-Cor3.5",
    "zcdp-sum": "H23-Thm4.10",
    "rdp": "H23-Thm4.6",
    "gdp": "H23-Thm3.4",
}
"""The rules proved valid filters for the concurrent composition of interactive
mechanisms, with the spec id of that theorem: every (epsilon, delta) filter for
noninteractive mechanisms (H23-Cor3.5; ``basic``, ``pure``, ``w23``), the zCDP and RDP sum
rules (H23-Thm4.10, H23-Thm4.6) and f-DP rules (H23-Thm3.4; ``gdp``). The R23 zCDP filter
and the ex-post, Brownian and RRUV16 rules have no such theorem here."""


def _mixture(p: Params) -> W23MixtureOdometer:
    delta, slack = _p(p, "delta"), _slack(p)
    sides = _choice(p, "sides", ("one", "two"))
    if p.get("mixture_rho") is not None:
        rho: ExactLike = _p(p, "mixture_rho")
    elif p.get("mixture_v_star") is not None:
        v_star = exact_positive(_p(p, "mixture_v_star"), "mixture_v_star")
        level = float(exact(slack if slack is not None else delta, "delta_slack"))
        rho = mixture_rho_for(float(v_star), level, sides)
    else:
        raise MissingParameterError("w23-mixture", "mixture_rho")
    return W23MixtureOdometer(delta=delta, rho=rho, delta_slack=slack, sides=sides)


ODOMETERS: Mapping[str, Named] = {
    "w23-stitched": Named(
        ("delta",),
        {"delta_slack": None, "stitch_eta": "2", "stitch_s": "1.4", "stitch_form": "poster"},
        lambda p: W23StitchedOdometer(delta=_p(p, "delta"), delta_slack=_slack(p),
                                      eta=_p(p, "stitch_eta"), s=_p(p, "stitch_s"),
                                      form=_choice(p, "stitch_form", ("poster", "exact"))),
    ),
    "w23-mixture": Named(
        ("delta",),
        {"delta_slack": None, "mixture_rho": None, "mixture_v_star": None, "sides": "one"},
        _mixture,
    ),
    "rruv16": Named(("delta", "n"), {},
                    lambda p: RRUV16Odometer(delta=_p(p, "delta"), n=_p(p, "n"))),
}
"""The time-uniform odometers of ``adaptive-dp odometer``."""

ACCUMULATORS: Mapping[str, Named] = {
    "basic": Named((), {}, lambda p: BasicAccumulator()),
    "zcdp-sum": Named((), {}, lambda p: ZCDPAccumulator()),
    "gdp": Named((), {}, lambda p: GDPAccumulator()),
    "rdp": Named(("alpha",), {}, lambda p: RDPAccumulator(_p(p, "alpha"))),
    "w23-accumulator": Named(
        ("delta",), {"delta_slack": None},
        lambda p: ApproxDPAccumulator(delta=_p(p, "delta"), delta_slack=_slack(p)),
    ),
}
"""The privacy-loss accumulators of ``adaptive-dp odometer``."""


def _complete(what: str, name: str, named: Named, params: Params) -> Params:
    for key in params:
        if key not in named.parameters:
            raise ParameterError(key, params[key], f"one of the parameters of {what} "
                                 f"{name!r}: {', '.join(named.parameters) or 'none'}")
    full = dict(named.optional) | {k: v for k, v in params.items() if v is not None}
    for key in named.required:
        if full.get(key) is None:
            raise MissingParameterError(f"{what} {name!r}", key)
    return full


def build_rule(name: str, params: Params) -> Rule:
    """The continuation rule ``name`` (a key of :data:`RULES`) with ``params``."""
    if name not in RULES:
        raise ParameterError("rule", name, f"one of {', '.join(sorted(RULES))}")
    named = RULES[name]
    rule = named.build(_complete("rule", name, named, params))
    assert isinstance(rule, Rule)
    return rule


def build_odometer(name: str, params: Params) -> Books:
    """The odometer or accumulator ``name`` (a key of :data:`ODOMETERS` or
    :data:`ACCUMULATORS`) with ``params``."""
    table = ODOMETERS if name in ODOMETERS else ACCUMULATORS
    if name not in table:
        known = sorted(ODOMETERS) + sorted(ACCUMULATORS)
        raise ParameterError("odometer", name, f"one of {', '.join(known)}")
    named = table[name]
    books = named.build(_complete("odometer", name, named, params))
    assert isinstance(books, (W23StitchedOdometer, W23MixtureOdometer, RRUV16Odometer,
                              Accumulator))
    return books
