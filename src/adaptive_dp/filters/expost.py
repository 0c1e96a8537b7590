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
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from numpy.typing import ArrayLike

from adaptive_dp.filters.base import BoolArray, FastFilterState, FloatArray, Rule, add_up
from adaptive_dp.guarantees.definitions import ApproxDP, Guarantee, ProbabilisticDP, PureDP
from adaptive_dp.guarantees.expost import ExPost
from adaptive_dp.interchange import ExPostSpend
from adaptive_dp.numerics import ExactLike, exact_delta, exact_positive, round_down

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


def _expost_parts(spend: object, owner: str) -> tuple[Fraction, Fraction, Fraction]:
    """(realised E, delta, max E) of an ex-post spend."""
    if isinstance(spend, ExPost):
        return spend.epsilon, spend.delta, spend.max_epsilon
    if isinstance(spend, ExPostSpend):
        return spend.epsilon, spend.delta, spend.max_epsilon
    if isinstance(spend, PureDP):
        return spend.epsilon, Fraction(0), spend.epsilon
    if isinstance(spend, ProbabilisticDP):
        return spend.epsilon, spend.delta, spend.epsilon
    from adaptive_dp.errors import UnsupportedGuaranteeError

    raise UnsupportedGuaranteeError(
        f"{owner} accepts ex-post spends (ExPost, pure DP, pDP), not {type(spend).__name__}"
    )


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
    SPEC = "R23-Lem5.2"
    N_SUMS = 3  # realised E sum, delta sum, cumulative look-ahead excess (max E - E)

    def __init__(self, epsilon: ExactLike, delta: ExactLike = 0) -> None:
        object.__setattr__(self, "epsilon", exact_positive(epsilon, "epsilon"))
        object.__setattr__(self, "delta", exact_delta(delta, "delta"))

    def _increments(self, spend: object) -> tuple[Fraction, ...]:
        eps, delta, top = _expost_parts(spend, "ExPostFilter")
        return (eps, delta, top - eps)

    def _decision_sums(
        self, before: tuple[Fraction, ...], after: tuple[Fraction, ...]
    ) -> tuple[Fraction, ...]:
        # the budget condition: the worst case of the NEXT mechanism, before it runs
        return (after[0] + (after[2] - before[2]), after[1], after[2])

    def _admits(self, sums: tuple[Fraction, ...]) -> bool:
        return sums[0] <= self.epsilon and sums[1] <= self.delta

    def _primary_spend(self, value: float, next_delta: Fraction) -> object:
        return ExPost(value, next_delta)

    def _max_next(self, sums: tuple[Fraction, ...], next_delta: Fraction) -> float | None:
        if sums[1] + next_delta > self.delta or sums[0] > self.epsilon:
            return None
        return round_down(self.epsilon - sums[0])

    def _spent(self, sums: tuple[Fraction, ...]) -> Guarantee:
        # the realised ex-post sum sum_i E_i(y_i) and sum_i delta_i (R23-Lem5.1)
        return ApproxDP(sums[0], sums[1])

    def _remaining(self, sums: tuple[Fraction, ...]) -> float:
        return round_down(self.epsilon - sums[0])

    def _fast_increments(self, primary: FloatArray, delta: FloatArray) -> tuple[FloatArray, ...]:
        return (primary, delta, np.zeros_like(primary))

    def _fast_admits(self, sums: tuple[FloatArray, ...]) -> BoolArray:
        ok: BoolArray = (sums[0] <= round_down(self.epsilon)) & (
            sums[1] <= round_down(self.delta)
        )
        return ok

    # the one private hook a "look-ahead dropped" twin overrides in the fast path
    def _fast_lookahead(self, spent: FloatArray, max_epsilon: FloatArray) -> FloatArray:
        return add_up(spent, max_epsilon)


def fast_expost_spend(
    state: FastFilterState,
    max_epsilon: ArrayLike,
    epsilon: ArrayLike,
    delta: ArrayLike = 0.0,
) -> tuple[BoolArray, FastFilterState]:
    """R23-Lem5.2 vectorised: admit where spent + max_epsilon <= epsilon and the delta
    sum fits (rounded toward refusal), then charge the realised ``epsilon``."""
    rule = state.rule
    if not isinstance(rule, ExPostFilter):
        raise TypeError("fast_expost_spend needs an ExPostFilter fast state")
    n = state.halted.shape[0]
    top = np.broadcast_to(np.asarray(max_epsilon, dtype=np.float64), (n,))
    eps = np.broadcast_to(np.asarray(epsilon, dtype=np.float64), (n,))
    d = np.broadcast_to(np.asarray(delta, dtype=np.float64), (n,))
    look = rule._fast_lookahead(state.sums[0], top)
    d_after = add_up(state.sums[1], d)
    ok: BoolArray = rule._fast_admits((look, d_after, state.sums[2])) & ~state.halted
    charged = add_up(state.sums[0], eps)
    sums = (
        np.where(ok, charged, state.sums[0]),
        np.where(ok, d_after, state.sums[1]),
        state.sums[2],
    )
    halted = state.halted | ~ok if state.terminal else state.halted
    return ok, FastFilterState(rule, sums, halted, state.terminal)
