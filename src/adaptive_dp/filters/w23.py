"""The W23 (epsilon, delta) privacy filter (primary id H23-ThmB.3).

Aliases: H23-Thm3.7 (printed with the inequality reversed; the printed form is the
refuted item H23-Thm3.7-Printed, reproduced only by a negative control overriding the
private hook ``ApproxDPAccumulator._epsilon_ok`` through ``W23Filter.ACCUMULATOR``) and
W23-Filter (the poster's P7). It is the filter of the H23-Thm3.8 accumulator
(H23-Lem2.19) at the budget (epsilon, delta' + delta'').
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import ClassVar

from adaptive_dp.filters.from_accumulator import AccumulatorFilter, ApproxBudgetFilter
from adaptive_dp.guarantees.definitions import ApproxDP
from adaptive_dp.numerics import ExactLike, exact_delta_split, exact_positive
from adaptive_dp.odometers.accumulators import ApproxDPAccumulator

__all__ = ["W23Filter"]


@dataclass(frozen=True, slots=True, init=False)
class W23Filter(ApproxBudgetFilter):
    """H23-ThmB.3 (Whitehouse-Ramdas-Rogers-Wu 2023, restated by Haney et al.): the
    (epsilon, delta) filter for conditionally (epsilon_m, delta_m)-DP mechanisms.

    With delta = delta' + delta'', delta' > 0, delta'' >= 0, the stopping time is
    "N := inf{k : epsilon < sqrt(2 log(1/delta') sum_{m<=k+1} epsilon_m^2)
    + 1/2 sum_{m<=k+1} epsilon_m^2  or  delta'' < sum_{m<=k+1} delta_m}", and
    Comp(M_1, ..., M_N) is (epsilon, delta)-DP. So the next mechanism is admitted iff
    "sqrt(2 log(1/delta') V_{k+1}) + V_{k+1}/2 <= epsilon and sum_{m<=k+1} delta_m <=
    delta''" (equality admitted; the corrected direction of H23-Thm3.7, ambiguity A30).
    The epsilon test is certified: an enclosure straddling the budget halts. This is
    exactly H23-Lem2.19 applied to H23-Thm3.8's accumulator with delta' and target delta
    at the budget (epsilon, delta).
    """

    SPEC = "H23-ThmB.3"
    ACCUMULATOR: ClassVar[type[ApproxDPAccumulator]] = ApproxDPAccumulator

    def __init__(
        self, epsilon: ExactLike, *, delta: ExactLike, delta_slack: ExactLike | None = None
    ) -> None:
        """``delta`` is the conclusion's delta = delta' + delta''; ``delta_slack`` is
        delta' (default: all of ``delta``), and delta'' = delta - delta_slack caps the
        sum of the mechanisms' deltas (``delta_budget``)."""
        eps = exact_positive(epsilon, "epsilon")
        total, slack = exact_delta_split(delta, delta_slack)
        accumulator = self.ACCUMULATOR(delta=total, delta_slack=slack)
        AccumulatorFilter.__init__(self, accumulator, ApproxDP(eps, total))

    @property
    def delta_slack(self) -> Fraction:
        """delta', the level of the concentration bound."""
        acc = self.accumulator
        assert isinstance(acc, ApproxDPAccumulator)
        return acc.delta_slack

    @property
    def delta_budget(self) -> Fraction:
        """delta'' = delta - delta', the budget of the sum of the mechanisms' deltas."""
        return self.delta - self.delta_slack
