"""The RRUV16 filter COMP_{epsilon_g, delta_g} (Rogers-Roth-Ullman-Vadhan 2016), with its
mixture parameter H named (RRUV16-Filter)."""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Literal

from flint import arb

from adaptive_dp.errors import DeltaRangeError
from adaptive_dp.filters.base import Rule
from adaptive_dp.guarantees.definitions import ApproxDP, Guarantee
from adaptive_dp.guarantees.lattice import Measure
from adaptive_dp.ledger import Sums
from adaptive_dp.numerics import (
    ExactLike,
    arb_of,
    ball_lower,
    ball_upper,
    enclose,
    exact_delta,
    exact_lower,
    exact_positive,
    exact_upper,
    round_down,
)
from adaptive_dp.numerics.floats import Flag, Real, both, inflate_up, log1p, mul_up, sqrt
from adaptive_dp.numerics.search import bisect_increasing
from adaptive_dp.odometers.rruv16 import rruv16_drift_fast, rruv16_drift_upper

__all__ = ["RRUV16Filter", "rruv16_drift_upper"]

HLog = Literal["1/delta", "2/delta"]


@dataclass(frozen=True, slots=True, init=False)
class RRUV16Filter(Rule):
    """RRUV16-Filter (reconstruction from two third-party readings; paper text not in a
    seed): COMP_{epsilon_g, delta_g} halts iff
    "sum_{j<=k} delta_j > delta_g/2  or  sqrt(2 (V_k + H)(1 + 1/2 log(V_k/H + 1))
    log(2/delta_g)) + sum_{j<=k} epsilon_j (e^{epsilon_j} - 1)/2 > epsilon_g",
    V_k = sum_{j<=k} epsilon_j^2, k counting the proposed mechanism (look-ahead), and
    continues otherwise, for 0 < delta_g < 1/e.

    The mixture parameter is named: ``h_log="1/delta"`` (default, Sherpa.ai's reading and
    the recalled paper form) gives H = epsilon_g^2 / (28.04 log(1/delta_g));
    ``h_log="2/delta"`` (Winograd-Cort's composedp.ml) uses log(2/delta_g). Validity for
    every fixed H > 0: the rule halts whenever the W23 filter H23-ThmB.3 with
    delta' = delta'' = delta_g/2 halts, so the stopped composition is
    (epsilon_g, delta_g)-DP (proofs/RRUV16-Filter.md). The drift sum is kept as an exact
    sum of certified rational upper bounds.
    """

    epsilon: Fraction
    delta: Fraction
    h_log: HLog
    _fast: tuple[float, float, float, float, float] = field(repr=False, compare=False)
    SPEC = "RRUV16-Filter"
    N_SUMS = 3
    MEASURE = Measure.APPROX

    def __init__(
        self, epsilon: ExactLike, *, delta: ExactLike, h_log: HLog = "1/delta"
    ) -> None:
        """``epsilon`` and ``delta`` are the paper's epsilon_g and delta_g."""
        object.__setattr__(self, "epsilon", exact_positive(epsilon, "epsilon"))
        dg = exact_delta(delta, "delta", allow_zero=False)
        if dg >= Fraction(367879441171442, 10**15):  # 1/e rounded down
            raise DeltaRangeError("delta", delta, "0 < delta < 1/e")
        object.__setattr__(self, "delta", dg)
        if h_log not in ("1/delta", "2/delta"):
            raise DeltaRangeError("h_log", h_log, "'1/delta' or '2/delta'")
        object.__setattr__(self, "h_log", h_log)
        h_ball = enclose(self._h)
        c = ball_upper(enclose(lambda: (arb(2) / arb_of(dg)).log()))
        object.__setattr__(self, "_fast", (
            ball_lower(h_ball), ball_upper(h_ball), c, round_down(self.epsilon),
            round_down(dg / 2),
        ))

    def _h(self) -> arb:
        num = 1 if self.h_log == "1/delta" else 2
        return arb_of(self.epsilon) ** 2 / (
            arb(2804) / 100 * (arb(num) / arb_of(self.delta)).log()
        )

    @property
    def H(self) -> float:
        """The mixture parameter H (nearest float; shown for reference)."""
        return float(ball_upper(enclose(self._h)))

    def _increments(self, params: Sums) -> Sums:
        eps, delta = params
        return (eps * eps, rruv16_drift_upper(eps), delta)

    def _bound(self, sums: Sums) -> arb:
        v, drift, dg = sums[0], sums[1], self.delta

        def evaluate() -> arb:
            h = self._h()
            av = arb_of(v)
            conc = (
                2 * (av + h) * (1 + (av / h + 1).log() / 2) * (arb(2) / arb_of(dg)).log()
            ).sqrt()
            return conc + arb_of(drift)

        return enclose(evaluate)

    def _admits(self, sums: Sums) -> bool:
        if sums[2] > self.delta / 2:
            return False
        return exact_upper(self._bound(sums)) <= self.epsilon

    def _max_next(self, sums: Sums, next_delta: Fraction) -> float | None:
        if sums[2] + next_delta > self.delta / 2:
            return None

        def admitted(x: float) -> float:
            after = self._combine(sums, self.increments(ApproxDP(x, next_delta)))
            return 0.0 if self._admits(after) else 1.0

        if admitted(0.0) > 0:
            return None
        return bisect_increasing(admitted, 0.0, float(self.epsilon), 0.5, iterations=80)

    def _straddles(self, sums: Sums) -> bool:
        return sums[2] <= self.delta / 2 and exact_lower(self._bound(sums)) <= self.epsilon

    def _spent_ball(self, sums: Sums) -> arb:
        return self._bound(sums)

    def _spent(self, sums: Sums) -> Guarantee:
        return ApproxDP(ball_upper(self._bound(sums)), self.delta)

    def _remaining_ball(self, sums: Sums) -> arb:
        bound = self._bound(sums)
        eg = self.epsilon
        return enclose(lambda: arb_of(eg) - bound)

    def _remaining(self, sums: Sums) -> float:
        return ball_lower(self._remaining_ball(sums))

    def _fast_increments(self, primary: Real, delta: Real) -> tuple[Real, ...]:
        drift = rruv16_drift_fast(primary)
        return (mul_up(primary, primary), drift, delta)

    def _fast_admits(self, sums: tuple[Real, ...]) -> Flag:
        # (V + H)(1 + log(V/H + 1)/2) increases in V and, for fixed V, is bounded by
        # using H_up in (V + H) and H_lo inside the logarithm.
        h_lo, h_up, c, eps, half_delta = self._fast
        v = sums[0]
        conc = sqrt(2 * (v + h_up) * (1 + log1p(v / h_lo) / 2) * c)
        return both(inflate_up(conc + sums[1]) <= eps, sums[2] <= half_delta)
