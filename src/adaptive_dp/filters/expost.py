"""R23-Lem5.1 (basic composition of ex-post private mechanisms) and R23-Lem5.2 (the
ex-post privacy filter), seed 000, verbatim statements.

R23-Lem5.2: with each A_n (E_n(.; x), delta_n(x))-ex-post private given the past and the
budget condition "sum_{i=1}^{n-1} E_i(y_i; x) <= epsilon for all y_i" (each selected
mechanism's ex-post function "cannot exceed the remaining privacy budget"), the rule
"N = inf{n : epsilon = sum_{i in [n]} E_i(y_i; x) or delta < sum_{i in [n+1]} delta_i}"
makes A_{1:N} (epsilon, delta)-DP.  Implemented as a continuation rule: the next mechanism
is admitted iff "spent + max_epsilon_next <= epsilon" (the budget condition, a worst case
over its outcomes, known before it runs) and "delta_spent + delta_next <= delta" (the
n+1 look-ahead of the delta part, strict "<" halts); once admitted it is charged its
REALISED E_n(y_n) (R23-Rem1: the ledger is driven by the actual outcome).  The paper's
epsilon-equality halt is then automatic: at spent = epsilon only mechanisms with
max_epsilon = 0 still fit.  A refused request leaves the state unchanged
(refuse-and-continue: the refusal depends only on public quantities, so it is
post-processing); ``start(terminal=True)`` halts forever at the first refusal.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
from numpy.typing import ArrayLike

from adaptive_dp.filters.base import FastFilterState, Rule
from adaptive_dp.guarantees.definitions import ApproxDP, Guarantee
from adaptive_dp.guarantees.expost import ExPost
from adaptive_dp.guarantees.lattice import Measure
from adaptive_dp.ledger import Sums
from adaptive_dp.numerics import ExactLike, exact_delta, exact_positive, round_down
from adaptive_dp.numerics.floats import (
    BoolArray,
    Flag,
    FloatArray,
    Real,
    add_up,
    both,
    finite_at_least,
    sub_down,
)

__all__ = ["ExPostFilter", "basic_expost_composition", "fast_expost_spend"]


def basic_expost_composition(items: Iterable[ExPost]) -> ExPost:
    """R23-Lem5.1 (Rogers et al. 2023): "A_{1:m} is (sum_i E_i(A_i(.); .), sum_i delta_i)-
    ex-post private" (deltas fixed in advance).  Exact sums; ``max_epsilon`` adds too."""
    eps = Fraction(0)
    delta = Fraction(0)
    top = Fraction(0)
    for item in items:
        eps += item.epsilon
        delta += item.delta
        top += item.max_epsilon
    return ExPost(eps, delta, top)


@dataclass(frozen=True, slots=True, init=False)
class ExPostFilter(Rule):
    """R23-Lem5.2 (Rogers et al. 2023): the ex-post privacy filter.

    "N((y_n)) = inf{n : epsilon = sum_{i in [n]} E_i(y_i; x) or
    delta < sum_{i in [n+1]} delta_i(y_{1:i-1})}", under the budget condition that no
    selected mechanism's ex-post function can exceed the remaining budget; conclusion:
    A_{1:N} is (epsilon, delta)-DP (no delta'').  Admits the next mechanism iff
    "sum_{i<n} E_i + max_epsilon_n <= epsilon and sum_{i<=n} delta_i <= delta"; charges
    the realised E_n.  Running sums are exact.
    """

    epsilon: Fraction
    delta: Fraction
    _fast: tuple[float, float] = field(repr=False, compare=False)
    SPEC = "R23-Lem5.2"
    N_SUMS = 3  # realised E sum, delta sum, cumulative look-ahead excess (max E - E)
    MEASURE = Measure.EXPOST

    def __init__(self, epsilon: ExactLike, *, delta: ExactLike = 0) -> None:
        object.__setattr__(self, "epsilon", exact_positive(epsilon, "epsilon"))
        object.__setattr__(self, "delta", exact_delta(delta, "delta"))
        object.__setattr__(self, "_fast", (round_down(self.epsilon), round_down(self.delta)))

    def _increments(self, params: Sums) -> Sums:
        eps, delta, top = params
        return (eps, delta, top - eps)

    def _decision_sums(
        self, before: tuple[Fraction, ...], after: tuple[Fraction, ...]
    ) -> tuple[Fraction, ...]:
        # the budget condition: the worst case of the NEXT mechanism, before it runs
        return (after[0] + (after[2] - before[2]), after[1], after[2])

    def _admits(self, sums: tuple[Fraction, ...]) -> bool:
        return sums[0] <= self.epsilon and sums[1] <= self.delta

    def _max_next(self, sums: tuple[Fraction, ...], next_delta: Fraction) -> float | None:
        if sums[1] + next_delta > self.delta or sums[0] > self.epsilon:
            return None
        return round_down(self.epsilon - sums[0])

    def _spent(self, sums: tuple[Fraction, ...]) -> Guarantee:
        # the realised ex-post sum sum_i E_i(y_i) and sum_i delta_i (R23-Lem5.1)
        return ApproxDP(sums[0], sums[1])

    def _remaining(self, sums: tuple[Fraction, ...]) -> float:
        return round_down(self.epsilon - sums[0])

    def _fast_increments(self, primary: Real, delta: Real) -> tuple[Real, ...]:
        return (primary, delta, 0.0 * primary)

    def _fast_admits(self, sums: tuple[Real, ...]) -> Flag:
        eps, delta = self._fast
        return both(sums[0] <= eps, sums[1] <= delta)

    def _fast_remaining(self, sums: tuple[Real, ...]) -> Real | None:
        return sub_down(self._fast[0], sums[0])

    # the one private hook a "look-ahead dropped" twin overrides in the fast path
    def _fast_lookahead(self, spent: FloatArray, max_epsilon: FloatArray) -> FloatArray:
        return np.asarray(add_up(spent, max_epsilon))


def fast_expost_spend(
    state: FastFilterState,
    max_epsilon: ArrayLike,
    epsilon: ArrayLike,
    delta: ArrayLike = 0.0,
) -> tuple[BoolArray, FastFilterState]:
    """R23-Lem5.2 vectorised: admit where spent + max_epsilon <= epsilon and the delta
    sum fits (rounded toward refusal), then charge the realised ``epsilon``. Requests
    with NaN, infinite or negative values, a realised epsilon above max_epsilon or a
    delta outside [0, 1) are refused and flagged ``invalid``."""
    rule = state.rule
    if not isinstance(rule, ExPostFilter):
        raise TypeError("fast_expost_spend needs an ExPostFilter fast state")
    top, eps, d = state.per_path(max_epsilon, epsilon, delta)
    sums = state.sums
    with np.errstate(all="ignore"):  # invalid entries compute NaN or inf, then are refused
        valid = np.asarray(
            both(both(finite_at_least(eps, 0.0), finite_at_least(top, 0.0)),
                 finite_at_least(d, 0.0, 1.0)), dtype=bool) & (eps <= top)
        look = rule._fast_lookahead(sums[0], top)
        d_after: FloatArray = np.asarray(add_up(sums[1], d))
        admits = np.asarray(rule._fast_admits((look, d_after, sums[2])), dtype=bool)
        after = (np.asarray(add_up(sums[0], eps)), d_after, sums[2])
    return state.commit(admits, valid, after)
