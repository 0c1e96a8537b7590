"""Continuation rules (privacy filters) for noninteractive mechanisms.

Every rule is an immutable value; ``rule.start()`` gives a :class:`FilterState` with
``decide``, ``spend``, ``max_next``, ``spent`` and ``remaining`` (docs/design.md, principle 2), and
``rule.fast(paths)`` the vectorised float fast path. See :mod:`adaptive_dp.filters.base`.
"""

from adaptive_dp.filters.base import (
    ContinuationRule,
    Decision,
    FastFilterState,
    FilterState,
    Rule,
)
from adaptive_dp.filters.basic import BasicFilter, PureDPFilter
from adaptive_dp.filters.from_accumulator import AccumulatorFilter
from adaptive_dp.filters.gdp import GDPFilter
from adaptive_dp.filters.rdp import RDPFilter
from adaptive_dp.filters.rruv16 import RRUV16Filter
from adaptive_dp.filters.w23 import W23Filter
from adaptive_dp.filters.zcdp import ZCDPFilter, ZCDPSumFilter

__all__ = [
    "AccumulatorFilter",
    "BasicFilter",
    "ContinuationRule",
    "Decision",
    "FastFilterState",
    "FilterState",
    "GDPFilter",
    "PureDPFilter",
    "RDPFilter",
    "RRUV16Filter",
    "Rule",
    "W23Filter",
    "ZCDPFilter",
    "ZCDPSumFilter",
]
