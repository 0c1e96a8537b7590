"""Continuation rules (privacy filters) for noninteractive mechanisms.

Every rule is an immutable value; ``rule.supports(spend)`` says whether it takes a spend,
``rule.start()`` gives a :class:`FilterState` with ``decide``, ``spend``, ``max_next``,
``spent`` and ``remaining`` (docs/design.md, principle 2), ``rule.fast(paths)`` the
vectorised float fast path and ``rule.float_session()`` its one-session scalar route.
See :mod:`adaptive_dp.filters.base`.
"""

from adaptive_dp.filters.base import (
    ContinuationRule,
    Decision,
    FastFilterState,
    FilterState,
    FloatFilterState,
    Rule,
)
from adaptive_dp.filters.basic import BasicFilter, PureDPFilter
from adaptive_dp.filters.brownian import BrownianFilter, UnifiedFilter
from adaptive_dp.filters.expost import ExPostFilter
from adaptive_dp.filters.from_accumulator import AccumulatorFilter
from adaptive_dp.filters.gdp import GDPFilter
from adaptive_dp.filters.rdp import RDPCurveFilter, RDPFilter
from adaptive_dp.filters.rruv16 import RRUV16Filter
from adaptive_dp.filters.w23 import W23Filter
from adaptive_dp.filters.zcdp import ZCDPFilter, ZCDPSumFilter

__all__ = [
    "AccumulatorFilter",
    "BasicFilter",
    "BrownianFilter",
    "ContinuationRule",
    "Decision",
    "ExPostFilter",
    "FastFilterState",
    "FilterState",
    "FloatFilterState",
    "GDPFilter",
    "PureDPFilter",
    "RDPCurveFilter",
    "RDPFilter",
    "RRUV16Filter",
    "Rule",
    "UnifiedFilter",
    "W23Filter",
    "ZCDPFilter",
    "ZCDPSumFilter",
]
