"""The RRUV16 privacy odometer (Rogers-Roth-Ullman-Vadhan 2016), reconstructed
(RRUV16-Odometer; the paper's text was not retrieved, the form is a recollection checked
and proved in proofs/RRUV16-Odometer.md).

With V_k = sum_{j<=k} epsilon_j^2, Delta_k = sum_{j<=k} delta_j, n >= 2 and delta_g fixed in
advance:

    U_k = sum_{j<=k} epsilon_j (e^{epsilon_j} - 1)/2 + Delta_k
          + sqrt(2 (V_k + 1/n^2)(1 + 1/2 log(1 + n^2 V_k)) log(4 log_2(n) / delta_g))

while Delta_k <= delta_g / 2, +inf after. For pure steps this is the recalled form; the
concentration term dominates the two-sided normal-mixture boundary with rho = 1/n^2 at
level delta_g / (4 log_2 n) and the drift dominates epsilon tanh(epsilon/2)
(W23-PureStepMean); Delta_k is the W23-ClippedPDPStep correction for pDP steps, without
which the recalled form is crossed surely by pDP inputs. The interface is the W23
odometers' (:class:`adaptive_dp.odometers.w23.Odometer`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
from flint import arb

from adaptive_dp.errors import ParameterError
from adaptive_dp.ledger import Ledger, Sums
from adaptive_dp.numerics import (
    ExactLike,
    arb_of,
    ball_upper,
    enclose,
    exact,
    exact_delta,
    exact_upper,
)
from adaptive_dp.numerics.floats import (
    FloatArray,
    Real,
    add_up,
    expm1,
    inflate_up,
    log1p,
    mul_up,
    sqrt,
)
from adaptive_dp.odometers.w23 import _Odometer, _set_deltas

__all__ = ["RRUV16Odometer", "rruv16_drift_fast", "rruv16_drift_upper"]


def rruv16_drift_upper(epsilon: Fraction) -> Fraction:
    """RRUV16's drift per step, epsilon (e^epsilon - 1) / 2 (at least epsilon
    tanh(epsilon/2), W23-PureStepMean): an exact rational upper bound (certified); a
    ParameterError where no finite enclosure exists (epsilon of order 1e300). Shared with
    the RRUV16 filter."""
    if epsilon == 0:
        return Fraction(0)
    ball = enclose(lambda: arb_of(epsilon) * arb_of(epsilon).expm1() / 2)
    if not ball.is_finite():
        raise ParameterError("epsilon", float(epsilon), "a spend whose drift "
                             "epsilon (e^epsilon - 1)/2 has a finite enclosure")
    return exact_upper(ball)


def rruv16_drift_fast(epsilon: Real) -> Real:
    """:func:`rruv16_drift_upper` on the float fast path, rounded up."""
    return inflate_up(epsilon * expm1(epsilon) / 2)


@dataclass(frozen=True, slots=True, init=False)
class RRUV16Odometer(_Odometer):
    """RRUV16-Odometer (reconstruction; the recollection of the "original odometer" plus
    the pDP term Delta_k): for conditionally (epsilon_j, delta_j)-pDP steps,

    "U_k = sum_{j<=k} epsilon_j (e^{epsilon_j} - 1)/2 + sum_{j<=k} delta_j
    + sqrt(2 (sum_{j<=k} epsilon_j^2 + 1/n^2)(1 + 1/2 log(1 + n^2 sum_{j<=k} epsilon_j^2))
    log(4 log_2(n) / delta_g))" while sum_{j<=k} delta_j <= delta_g/2, +inf after;
    P(exists k: L_k > U_k) <= delta_g / (4 log_2 n) + delta_g / 2 <= delta_g. n >= 2 is an
    integer fixed in advance (the recollection's range epsilon_j in [1/n, 1] is not needed).
    Sums: (V_k, Delta_k, the drift sum as exact certified rational upper bounds).
    """

    delta: Fraction
    delta_slack: Fraction
    delta_budget: Fraction = field(repr=False, compare=False)
    n: int
    _fast: tuple[float, float, float] = field(repr=False, compare=False)
    SPEC = "RRUV16-Odometer"

    def __init__(self, *, delta: ExactLike, n: ExactLike) -> None:
        """``delta`` is delta_g in (0, 1): delta_g/2 caps sum delta_j (``delta_budget``) and
        bounds the crossing probability with the concentration term; ``n`` an integer in
        [2, 2^53] (so that n^2 is a float)."""
        dg = exact_delta(delta, "delta", allow_zero=False)
        size = exact(n, "n")
        if size.denominator != 1 or not 2 <= size <= 2**53:
            raise ParameterError("n", n, "an integer 2 <= n <= 2^53")
        _set_deltas(self, dg, dg / 2)
        object.__setattr__(self, "n", int(size))
        object.__setattr__(self, "_fast", (
            ball_upper(enclose(self._rho)), float(int(size) ** 2),
            ball_upper(enclose(self._log_term)),
        ))

    def _rho(self) -> arb:
        return 1 / arb(self.n) ** 2

    def _log_term(self) -> arb:
        """log(4 log_2(n) / delta_g)."""
        return (4 * arb(self.n).log() / arb(2).log() / arb_of(self.delta)).log()

    def _increments(self, params: Sums) -> Sums:
        eps, delta = params
        return (eps * eps, delta, rruv16_drift_upper(eps))

    def _combine(self, sums: Sums, increments: Sums) -> Sums:
        return Ledger._combine(self, sums, increments)

    def _fast_increments(self, primary: Real, delta: Real) -> tuple[Real, ...]:
        return (mul_up(primary, primary), delta, rruv16_drift_fast(primary))

    def _fast_combine(self, sums: tuple[Real, ...], inc: tuple[Real, ...]) -> tuple[Real, ...]:
        return tuple(map(add_up, sums, inc))

    def _drift(self, v: Fraction, d: Fraction) -> arb:
        """Delta_k (the epsilon drift is the third sum, read in ``_boundary``)."""
        return arb_of(d)

    def _fast_drift(self, v: FloatArray, d: FloatArray) -> FloatArray:
        return d

    def _concentration(self, v: Fraction) -> arb:
        av, n2 = arb_of(v), arb(self.n) ** 2
        return (2 * (av + self._rho()) * (1 + (1 + n2 * av).log() / 2)
                * self._log_term()).sqrt()

    def _boundary(self, v: Fraction, start: Fraction) -> arb:
        """The drift sum (``start`` holds it here) plus the concentration term."""
        return arb_of(start) + self._concentration(v)

    def _fast_boundary(self, v: FloatArray, start: FloatArray) -> FloatArray:
        rho, n2, c = self._fast
        conc = sqrt(2 * add_up(v, rho) * (1 + log1p(mul_up(n2, v)) / 2) * c)
        return np.asarray(add_up(start, inflate_up(conc)))
