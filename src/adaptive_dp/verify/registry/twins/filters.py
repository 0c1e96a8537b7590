"""Negative controls of the privacy filters and of accumulators read through their filter
(H23-Lem2.19): each subclasses the valid rule of :mod:`adaptive_dp.filters` and overrides
exactly one private hook.

- ``lookahead-dropped``: the condition is evaluated on the sums *before* the proposed
  spend (``Rule._decision_sums`` returns ``before``), so the n+1 look-ahead of every
  theorem here is lost and one request that overruns the budget is admitted:
  :class:`LookaheadDroppedPureDP` (CS2080-PureDPFilter), :class:`LookaheadDroppedBasic`
  (RRUV16-BasicFilter, the basic filter), :class:`LookaheadDroppedW23` (H23-ThmB.3),
  :class:`LookaheadDroppedZCDP` (R23-Thm2), :class:`LookaheadDroppedRDP` (H23-Thm4.6),
  :class:`LookaheadDroppedRRUV16` (RRUV16-Filter), :class:`LookaheadDroppedGDP`
  (EXT-ST22), :class:`LookaheadDroppedAccumulator` (H23-Thm3.8, H23-Thm4.9, H23-Thm4.11,
  EXT-GDPAccumulator through H23-Lem2.19).
- ``printed-reversed``: :class:`PrintedReversedFilter` (H23-Thm3.7-Printed): the W23
  filter with the first indicator as extracted from seed 003,
  "I(epsilon <= sqrt(2 log(1/delta') sum epsilon_m^2) + 1/2 sum epsilon_m^2)": it continues
  exactly when the advanced-composition bound has *reached* the budget. Through the
  hook ``ApproxDPAccumulator._epsilon_ok`` of the filter's accumulator. It halts at once
  on every small request, but admits any single request whose bound exceeds the budget,
  which is how it is caught (one randomized response of epsilon = 3 against a budget
  of 2: true delta 0.60 at eps = 2).
- ``largest-order-only``: :class:`LargestOrderOnlyRDP` (EXT-Lecuyer21): the grid filter
  compares only the largest order's sum with its budget (``_admits``), so a spend within
  the largest order's budget but over a smaller, binding order's is admitted.

These hooks act on the certified path (``rule.start()``); the claims run twins through
:class:`adaptive_dp.verify.judge.simulate.GroupedRule` on adversaries whose requests do not
depend on the outputs, so every path shares one public prefix and the exact rule runs
once per step. Validity of the rules themselves is never touched: nothing here is
exported from ``filters/``.
"""

from __future__ import annotations

from fractions import Fraction

from adaptive_dp.filters.basic import BasicFilter, PureDPFilter
from adaptive_dp.filters.from_accumulator import AccumulatorFilter
from adaptive_dp.filters.gdp import GDPFilter
from adaptive_dp.filters.rdp import RDPCurveFilter, RDPFilter
from adaptive_dp.filters.rruv16 import RRUV16Filter
from adaptive_dp.filters.w23 import W23Filter
from adaptive_dp.filters.zcdp import ZCDPFilter
from adaptive_dp.numerics import exact_lower
from adaptive_dp.odometers.accumulators import ApproxDPAccumulator

__all__ = [
    "LargestOrderOnlyRDP",
    "LookaheadDroppedAccumulator",
    "LookaheadDroppedBasic",
    "LookaheadDroppedGDP",
    "LookaheadDroppedPureDP",
    "LookaheadDroppedRDP",
    "LookaheadDroppedRRUV16",
    "LookaheadDroppedW23",
    "LookaheadDroppedZCDP",
    "PrintedReversedFilter",
]

Sums = tuple[Fraction, ...]


class LookaheadDroppedPureDP(PureDPFilter):
    """Twin of CS2080-PureDPFilter: "sum_{i <= k} epsilon_i <= epsilon" (without the next)."""

    __slots__ = ()

    def _decision_sums(self, before: Sums, after: Sums) -> Sums:
        return before


class LookaheadDroppedBasic(BasicFilter):
    """Twin of the basic approximate-DP filter (RRUV16-BasicFilter): look-ahead dropped."""

    __slots__ = ()

    def _decision_sums(self, before: Sums, after: Sums) -> Sums:
        return before


class LookaheadDroppedW23(W23Filter):
    """Twin of H23-ThmB.3: the W23 condition on sum_{m <= k} instead of sum_{m <= k+1}."""

    __slots__ = ()

    def _decision_sums(self, before: Sums, after: Sums) -> Sums:
        return before


class _ReversedAccumulator(ApproxDPAccumulator):
    """H23-Thm3.8's accumulator compared with the reversed inequality of H23-Thm3.7 as
    printed: within the budget iff "epsilon <= sqrt(2 log(1/delta') V) + V/2"
    (certified: the lower end of the enclosure reaches epsilon)."""

    __slots__ = ()

    def _epsilon_ok(self, v: Fraction, epsilon: Fraction) -> bool:
        return exact_lower(self.bound.ball(v)) >= epsilon


class PrintedReversedFilter(W23Filter):
    """H23-Thm3.7-Printed: continue iff "epsilon <= sqrt(2 log(1/delta') V) + V/2", the
    reversed inequality of the extracted seed 003 (ambiguity A30), through the hook
    ``_epsilon_ok`` of the filter's accumulator (``ACCUMULATOR``)."""

    __slots__ = ()
    ACCUMULATOR = _ReversedAccumulator


class LookaheadDroppedZCDP(ZCDPFilter):
    """Twin of R23-Thm2: the strict n+1 look-ahead replaced by the sums so far."""

    __slots__ = ()

    def _decision_sums(self, before: Sums, after: Sums) -> Sums:
        return before


class LookaheadDroppedRDP(RDPFilter):
    """Twin of H23-Thm4.6: "sum_{i <= k} epsilon_i <= epsilon" without the next."""

    __slots__ = ()

    def _decision_sums(self, before: Sums, after: Sums) -> Sums:
        return before


class LargestOrderOnlyRDP(RDPCurveFilter):
    """Twin of EXT-Lecuyer21: only the largest order's sum is compared with its budget
    (the smaller orders' budgets are never checked)."""

    __slots__ = ()

    def _admits(self, sums: Sums) -> bool:
        return sums[-1] <= self._params[-1]


class LookaheadDroppedRRUV16(RRUV16Filter):
    """Twin of RRUV16-Filter: k no longer counts the proposed mechanism."""

    __slots__ = ()

    def _decision_sums(self, before: Sums, after: Sums) -> Sums:
        return before


class LookaheadDroppedGDP(GDPFilter):
    """Twin of EXT-ST22: "sum_{i <= k} mu_i^2 <= mu^2" without the next."""

    __slots__ = ()

    def _decision_sums(self, before: Sums, after: Sums) -> Sums:
        return before


class LookaheadDroppedAccumulator(AccumulatorFilter):
    """Twin of an accumulator read through H23-Lem2.19: I(G(d_1, ..., d_k) <= d) decided
    before d_{k+1} is added."""

    __slots__ = ()

    def _decision_sums(self, before: Sums, after: Sums) -> Sums:
        return before
