"""R23-Eq3 / R23-Lem6.2 (privacy filter for Brownian noise reductions only) and
R23-Eq4 / R23-Thm6 (the unified filter: approximate-zCDP mechanisms and BMs under one
budget).  Reconstructions: seed 002 strips every formula; proofs/R23-Lem6.2.md and
proofs/R23-Thm6.md derive them.  Built on R23-Thm2 (:class:`ZCDPFilter`), which is the
unified filter with no BM rounds.

R23-Thm6 (reconstructed): epsilon > 0, delta >= 0, delta'' > 0.  Round n is either
delta_n-approximate rho_n-zCDP (chosen from the past) or a BM with declared l2
sensitivity Delta_n, grid smallest time value t_min,n and realised stop t_n.  A BM round
is charged rho_n := Delta_n^2/(2 t_n) (never the data-dependent c_n); R_n = sum of the
charges.  Condition (4), before a BM runs: "epsilon >= (R_{n-1} + Delta_n^2/(2 t_min,n))
+ 2 sqrt(log(1/delta'') (R_{n-1} + Delta_n^2/(2 t_min,n)))"; a zCDP round is admitted as in
R23-Thm2 with its declared rho_n (n+1 look-ahead, strict "<" halts) and
"sum delta_m <= delta".  Then A_{1:N} is (epsilon, delta + delta'')-DP.  Equivalently the
charges stay within rho* with epsilon = rho* + 2 sqrt(rho* log(1/delta'')): at
epsilon = 10, delta'' = 1e-6, 2 rho* = 2.706 (R23 section 7: "roughly 2.705").

R23-Lem6.2 (reconstructed): BMs only, delta = 0, budget (epsilon, delta); condition (3) is
(4) without zCDP rounds; A_{1:N} is (epsilon, delta)-DP.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from numpy.typing import ArrayLike

from adaptive_dp.filters.base import FastFilterState, FilterState
from adaptive_dp.filters.zcdp import ZCDPFilter
from adaptive_dp.guarantees.spends import BrownianSpend, Spend
from adaptive_dp.ledger import Sums
from adaptive_dp.numerics import ExactLike, exact, exact_nonnegative, round_up
from adaptive_dp.numerics.floats import (
    BoolArray,
    FloatArray,
    Real,
    add_up,
    both,
    finite_at_least,
    inflate_up,
)

__all__ = [
    "BrownianFilter",
    "UnifiedFilter",
    "fast_bm_spend",
    "fast_zcdp_spend",
    "smallest_time_value",
]


@dataclass(frozen=True, slots=True, init=False)
class UnifiedFilter(ZCDPFilter):
    """R23-Thm6 (reconstructed; R23-Eq4 is its pre-check): the unified privacy filter.

    "A BM is charged sensitivity^2/(2 t_stop) with the declared sensitivity; before it runs,
    sensitivity^2/(2 t_min) <= the remaining rho" (docs/design.md), in R23-Thm2's form:
    a BM round n is admitted iff "epsilon >= R + 2 sqrt(log(1/delta'') R)" at
    R = R_{n-1} + Delta^2/(2 t_min) (R23-Eq4), and charged Delta^2/(2 t_stop); a zCDP round
    exactly as R23-Thm2 (admitted iff the bound at R_{n-1} + rho_n is <= epsilon and
    D_{n-1} + delta_n <= delta).  Conclusion: (epsilon, delta + delta'')-DP.
    """

    SPEC = "R23-Thm6"
    N_SUMS = 3  # rho charged, delta, cumulative BM look-ahead excess

    def _charge(self, spend: Spend) -> Sums | None:
        if isinstance(spend, BrownianSpend):
            d2 = spend.sensitivity * spend.sensitivity
            charge = d2 / (2 * self._charged_time(spend))
            look = d2 / (2 * spend.t_min)
            return (charge, Fraction(0), look - charge)
        found = ZCDPFilter._charge(self, spend)
        return None if found is None else (*found, Fraction(0))

    def _charged_time(self, spend: BrownianSpend) -> Fraction:
        """The time value a BM is charged at: where it stopped (the last released)."""
        return spend.t_stop

    def _decision_sums(self, before: Sums, after: Sums) -> Sums:
        # condition (4): the BM's worst-case charge Delta^2/(2 t_min) before it runs
        return (after[0] + (after[2] - before[2]), after[1], after[2])

    def _fast_increments(self, primary: Real, delta: Real) -> tuple[Real, ...]:
        return (primary, delta, 0.0 * primary)

    # private hooks of the vectorised BM spend (negative controls override one of them)
    def _fast_lookahead(
        self, spent: FloatArray, t_min: FloatArray, t_stop: FloatArray, d2: float
    ) -> FloatArray:
        return np.asarray(add_up(spent, inflate_up(d2 / (2 * t_min))))

    def _fast_charged_time(self, t_first: FloatArray, t_stop: FloatArray) -> FloatArray:
        return t_stop

    def _fast_zcdp_lookahead(self, spent: FloatArray, rho: FloatArray) -> FloatArray:
        return np.asarray(add_up(spent, rho))


@dataclass(frozen=True, slots=True, init=False)
class BrownianFilter(UnifiedFilter):
    """R23-Lem6.2 (reconstructed; R23-Eq3 is its pre-check): the privacy filter for BMs.

    BMs with declared l2 sensitivity, adaptively chosen grids satisfying (3):
    "R_{n-1} + Delta_n^2/(2 t_min,n) <= rho*(epsilon, delta)", charged Delta_n^2/(2 t_n);
    conclusion (epsilon, delta)-DP, since P[sum L_i >= epsilon] <= exp(-(epsilon -
    rho*)^2/(4 rho*)) = delta.  Only BM spends.
    """

    SPEC = "R23-Lem6.2"

    def __init__(self, epsilon: ExactLike, *, delta: ExactLike) -> None:
        UnifiedFilter.__init__(self, epsilon, delta=delta)

    def _charge(self, spend: Spend) -> Sums | None:
        if not isinstance(spend, BrownianSpend):
            return None
        return UnifiedFilter._charge(self, spend)

    def primary(self, value: float | Fraction, delta: float | Fraction = 0) -> Spend | None:
        """A BM of sensitivity 1 whose charge 1/(2t) is exactly ``value`` (delta 0)."""
        if delta != 0:
            return None
        rho = Fraction(value)
        if rho == 0:
            return BrownianSpend(0, 1)
        return BrownianSpend(1, 1 / (2 * rho))


def smallest_time_value(state: FilterState, sensitivity: ExactLike) -> float | None:
    """R23-Eq3 / R23-Eq4: the pre-check solved for the time value, the smallest admissible
    t_min for a BM of this sensitivity, rounded UP, or None.

    "sensitivity^2/(2 t_min) <= remaining rho": t = Delta^2/(2 rho_room), rho_room the
    largest admissible rho (rounded down), then stepped up until ``decide`` admits it.
    """
    if not isinstance(state.rule, UnifiedFilter):
        raise TypeError("smallest_time_value needs a UnifiedFilter or BrownianFilter state")
    d = exact_nonnegative(sensitivity, "sensitivity")
    room = state.max_next(0)
    if room is None or room <= 0:
        return None
    t = round_up(d * d / (2 * exact(room, "room")))
    if t == 0.0:
        t = 5e-324
    for _ in range(64):
        if state.decide(BrownianSpend(d, t)):
            return t
        t = math.nextafter(t, math.inf) if t < 1e300 else math.inf
    return None


def fast_bm_spend(
    state: FastFilterState,
    sensitivity: float,
    t_min: ArrayLike,
    t_stop: ArrayLike,
    t_first: ArrayLike | None = None,
) -> tuple[BoolArray, FastFilterState]:
    """R23-Thm6 / Lem6.2 vectorised BM round: admit where the pre-check (4) holds at
    Delta^2/(2 t_min) (rounded toward refusal), then charge Delta^2/(2 t_stop) rounded up.
    Time values that are not positive and finite, or t_stop < t_min, are refused and
    flagged ``invalid``.

    ``t_first`` (the grid's largest time value) is only read by negative controls.
    """
    rule = state.rule
    if not isinstance(rule, UnifiedFilter):
        raise TypeError("fast_bm_spend needs a UnifiedFilter or BrownianFilter fast state")
    tm, ts, tf = state.per_path(t_min, t_stop, t_stop if t_first is None else t_first)
    d2 = float(round_up(exact_nonnegative(sensitivity, "sensitivity") ** 2))
    sums = state.sums
    with np.errstate(all="ignore"):  # invalid entries compute NaN or inf, then are refused
        valid = np.asarray(both(finite_at_least(tm, 5e-324), finite_at_least(ts, 5e-324)),
                           dtype=bool) & (ts >= tm)
        look = rule._fast_lookahead(sums[0], tm, ts, d2)
        admits = np.asarray(rule._fast_admits((look, sums[1], sums[2])), dtype=bool)
        charge = np.asarray(inflate_up(d2 / (2 * rule._fast_charged_time(tf, ts))))
        after = (np.asarray(add_up(sums[0], charge)), sums[1], sums[2])
    return state.commit(admits, valid, after)


def fast_zcdp_spend(
    state: FastFilterState, rho: ArrayLike, delta: ArrayLike = 0.0
) -> tuple[BoolArray, FastFilterState]:
    """R23-Thm6 / Thm2 vectorised zCDP round: admit where the bound at the charges so far
    plus the declared ``rho`` fits (the n+1 look-ahead), then charge ``rho``; invalid
    requests (NaN, infinite, negative, delta outside [0, 1)) are refused and flagged."""
    rule = state.rule
    if not isinstance(rule, UnifiedFilter):
        raise TypeError("fast_zcdp_spend needs a UnifiedFilter fast state")
    r, d = state.per_path(rho, delta)
    sums = state.sums
    with np.errstate(all="ignore"):  # invalid entries compute NaN or inf, then are refused
        valid = np.asarray(both(finite_at_least(r, 0.0), finite_at_least(d, 0.0, 1.0)),
                           dtype=bool)
        look = rule._fast_zcdp_lookahead(sums[0], r)
        d_after = np.asarray(add_up(sums[1], d))
        admits = np.asarray(rule._fast_admits((look, d_after, sums[2])), dtype=bool)
        after = (np.asarray(add_up(sums[0], r)), d_after, sums[2])
    return state.commit(admits, valid, after)
