"""Time-uniform privacy odometers of Whitehouse-Ramdas-Wu-Rogers (W23), corrected.

An odometer is a sequence of predictable bounds U_n with
"sup_{x ~ x'} P(exists n : L_n(x, x') > U_n) <= delta" (poster P6). The poster's
stitched (P8) and conjugate-mixture (P9) odometers omit the drift of the privacy loss
and are refuted (W23-StitchedOdometer, W23-MixtureOdometer, status refuted; their
negative controls override the private hooks ``_drift`` and ``_level`` in
``verify/twins/``). The forms here are the reconstructed items
W23-StitchedOdometer-Corrected and W23-MixtureOdometer-Corrected (docs/derivations.md,
sections 2.4-2.7, re-derived in the proofs):

    U_n = 1/2 V_n + Delta_n + g(V_n)   if Delta_n <= delta'',   +inf otherwise,

with V_n = sum_{m<=n} epsilon_m^2, Delta_n = sum_{m<=n} delta_m, for conditionally
(epsilon_m, delta_m)-pDP inputs (pure DP included), valid with probability
>= 1 - delta' - delta''. Readings are certified and rounded up.

The RRUV16 odometer (RRUV16-Odometer, reconstructed from a recollection and proved) is
:class:`adaptive_dp.odometers.rruv16.RRUV16Odometer`; it shares :class:`_Odometer`, keeping
its drift sum in the third sum (here the stitched boundary's start m).
"""

from __future__ import annotations

import math
from abc import abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Literal, Protocol, cast

import numpy as np
from flint import arb
from numpy.typing import ArrayLike

from adaptive_dp.evalues.boundaries import HowardStitching, NormalMixtureBoundary
from adaptive_dp.guarantees.lattice import Measure
from adaptive_dp.guarantees.spends import Spend
from adaptive_dp.ledger import FastTally, Ledger, Sums, Tally, TallyView
from adaptive_dp.numerics import (
    ExactLike,
    arb_of,
    ball_upper,
    enclose,
    exact_delta_split,
    round_down,
)
from adaptive_dp.numerics.floats import (
    BoolArray,
    FloatArray,
    Real,
    add_up,
    inflate_up,
    mul_up,
    select,
)
from adaptive_dp.numerics.search import golden_minimize

__all__ = [
    "FastOdometerState",
    "Odometer",
    "OdometerState",
    "W23MixtureOdometer",
    "W23StitchedOdometer",
    "mixture_rho_for",
]


class Odometer(Protocol):
    """W23-OdometerDef / H23-Def1.17: the odometer role (docs/design.md, principle 9): a
    time-uniform bound U_n per step, P(exists n: L_n > U_n) <= delta (for the pair in both
    orders; H23-Def1.17's two-sided ``P(|Loss| > U)`` then holds at delta_g = 2 delta)."""

    SPEC: str

    def supports(self, spend: Spend) -> bool: ...

    def start(self) -> OdometerState: ...

    def fast(self, paths: int) -> FastOdometerState: ...


class _Odometer(Ledger):
    """Shared parts of the W23 odometers (frozen slotted dataclasses): a ledger of
    conditionally pDP spends with sums (V_n, Delta_n, m), m = the first positive
    epsilon^2 (the stitched boundary's predictable start), read through a boundary
    (RRUV16Odometer keeps its drift sum in the third place)."""

    __slots__ = ()
    N_SUMS = 3
    MEASURE = Measure.PDP
    delta: Fraction
    delta_slack: Fraction
    delta_budget: Fraction

    def _increments(self, params: Sums) -> Sums:
        sq = params[0] * params[0]
        return (sq, params[1], sq)

    def _combine(self, sums: Sums, increments: Sums) -> Sums:
        start = sums[2] if sums[2] > 0 else increments[2]
        return (sums[0] + increments[0], sums[1] + increments[1], start)

    def _fast_increments(self, primary: Real, delta: Real) -> tuple[Real, ...]:
        sq = mul_up(primary, primary)
        return (sq, delta, sq)

    def _fast_combine(self, sums: tuple[Real, ...], inc: tuple[Real, ...]) -> tuple[Real, ...]:
        start = select(np.asarray(sums[2]) > 0, sums[2], inc[2])
        return (add_up(sums[0], inc[0]), add_up(sums[1], inc[1]), start)

    def _level(self) -> Fraction:
        """The level of the concentration boundary: delta' = ``delta_slack`` (private hook;
        the printed P9 uses the total delta)."""
        return self.delta_slack

    def _drift(self, v: Fraction, d: Fraction) -> arb:
        """The drift bound 1/2 V_n + Delta_n (private hook; the printed forms drop it)."""
        return arb_of(v) / 2 + arb_of(d)

    def _fast_drift(self, v: FloatArray, d: FloatArray) -> FloatArray:
        return np.asarray(add_up(v / 2, d))

    @abstractmethod
    def _boundary(self, v: Fraction, start: Fraction) -> arb: ...

    @abstractmethod
    def _fast_boundary(self, v: FloatArray, start: FloatArray) -> FloatArray: ...

    def start(self) -> OdometerState:
        """The odometer before any spend (reading 0)."""
        return OdometerState(self, Tally.zero(self.N_SUMS))

    def fast(self, paths: int) -> FastOdometerState:
        """The vectorised float fast path (readings never below the certified ones)."""
        none = np.zeros(paths, dtype=bool)
        return FastOdometerState(self, FastTally.zero(self.N_SUMS, paths), none)

    def _reading_ball(self, v: Fraction, d: Fraction, start: Fraction) -> arb | None:
        """An enclosure of U_n (None: +inf once Delta_n > delta'')."""
        if d > self.delta_budget:
            return None
        if v == 0:
            return enclose(lambda: self._drift(v, d))
        return enclose(lambda: self._drift(v, d) + self._boundary(v, start))

    def _reading(self, v: Fraction, d: Fraction, start: Fraction) -> float:
        ball = self._reading_ball(v, d, start)
        return math.inf if ball is None else ball_upper(ball)


@dataclass(frozen=True, slots=True)
class OdometerState(TallyView):
    """Immutable odometer state: the exact tally of (V_n, Delta_n, m) and n."""

    odometer: _Odometer
    tally: Tally

    def spend(self, next: Spend) -> OdometerState:
        """The state after one more conditionally pDP spend (O(1))."""
        return OdometerState(self.odometer, self.tally.plus(self.odometer.after(self.tally, next)))

    def spend_each(self, next: Spend, count: int) -> Iterator[OdometerState]:
        """The states after each of ``count`` more spends of ``next`` (:meth:`spend`
        ``count`` times; the spend's increments computed once)."""
        for tally in self.odometer.after_each(self.tally, next, count):
            yield OdometerState(self.odometer, tally)

    def reading(self) -> float:
        """U_n, certified and rounded up (+inf once Delta_n > delta'')."""
        v, d, start = self.tally.sums
        return self.odometer._reading(v, d, start)

    def reading_ball(self) -> arb | None:
        """An enclosure of U_n (None: +inf)."""
        v, d, start = self.tally.sums
        return self.odometer._reading_ball(v, d, start)


@dataclass(frozen=True, slots=True)
class FastOdometerState:
    """Vectorised odometer: float tallies of (V_n, Delta_n, m) per path, rounded up.
    Invalid spends (NaN, infinite, negative, delta outside [0, 1)) are not added and are
    flagged in ``invalid``; the reading of such a path is +inf from then on (its
    bound is no longer known to hold)."""

    odometer: _Odometer
    tally: FastTally
    invalid: BoolArray

    def spend(self, epsilon: ArrayLike, delta: ArrayLike = 0.0) -> FastOdometerState:
        """The state after one more spend on every path."""
        n = self.invalid.shape[0]
        e, d = (_per_path(np.asarray(x, dtype=np.float64), n) for x in (epsilon, delta))
        with np.errstate(all="ignore"):  # invalid entries compute NaN, then are not added
            valid, after = self.odometer.fast_after(self.tally.sums, e, d)
        ok = np.asarray(valid, dtype=bool)
        return FastOdometerState(self.odometer, self.tally.keep(ok, after), self.invalid | ~ok)

    def reading(self) -> FloatArray:
        """U_n per path, upper bounds of the certified readings."""
        o = self.odometer
        v, delta, start = (cast(FloatArray, s) for s in self.tally.sums)
        with np.errstate(all="ignore"):  # the boundary at V = 0 is not used
            g = np.where(v > 0, o._fast_boundary(v, np.where(start > 0, start, 1.0)), 0.0)
            u = np.asarray(inflate_up(o._fast_drift(v, delta) + g))
        cut = (delta > round_down(o.delta_budget)) | self.invalid
        out: FloatArray = np.where(cut, np.inf, u)
        return out


def _per_path(x: FloatArray, n: int) -> FloatArray:
    """``x`` broadcast to one entry per path (as it is when it has them already)."""
    return x if x.shape == (n,) else np.broadcast_to(x, (n,))


def _set_deltas(odometer: _Odometer, delta: ExactLike, delta_slack: ExactLike | None) -> None:
    total, slack = exact_delta_split(delta, delta_slack)
    object.__setattr__(odometer, "delta", total)
    object.__setattr__(odometer, "delta_slack", slack)
    object.__setattr__(odometer, "delta_budget", total - slack)


@dataclass(frozen=True, slots=True, init=False)
class W23StitchedOdometer(_Odometer):
    """W23-StitchedOdometer-Corrected (reconstruction; the poster's P8 plus the drift):

    "U_n = 1.7 sqrt(V_n (log log(2 V_n / epsilon_1^2) + 0.72 log(5.2 / delta')))
    + 1/2 V_n + Delta_n" on {Delta_n <= delta''}, +inf otherwise (``form="poster"``, the
    default: eta = 2, s = 1.4 rounded up, which dominates the exact boundary), or the
    exact stitched boundary of Howard et al. for any eta > 1, s > 1 (``form="exact"``):
    "k_1 sqrt(V (s log log(eta V / m) + log(zeta(s) / ((log eta)^s delta'))))",
    k_1 = (eta^{1/4} + eta^{-1/4}) / sqrt 2, m = epsilon_1^2 (the first positive
    epsilon squared, predictable). P(exists n: L_n > U_n) <= delta' + delta''. The
    boundary is :class:`~adaptive_dp.evalues.boundaries.HowardStitching` at level delta'.
    """

    delta: Fraction
    delta_slack: Fraction
    delta_budget: Fraction = field(repr=False, compare=False)
    eta: Fraction
    s: Fraction
    form: Literal["poster", "exact"]
    boundary: HowardStitching = field(repr=False, compare=False)
    SPEC = "W23-StitchedOdometer-Corrected"

    def __init__(
        self,
        *,
        delta: ExactLike,
        delta_slack: ExactLike | None = None,
        eta: ExactLike = 2,
        s: ExactLike = "1.4",
        form: Literal["poster", "exact"] = "poster",
    ) -> None:
        """``delta`` = delta' + delta'' bounds the crossing probability; ``delta_slack``
        is delta' (default: all of ``delta``), and delta'' = delta - delta_slack caps the
        sum of the spends' deltas (``delta_budget``)."""
        _set_deltas(self, delta, delta_slack)
        boundary = HowardStitching(delta=self._level(), eta=eta, s=s, form=form)
        object.__setattr__(self, "eta", boundary.eta)
        object.__setattr__(self, "s", boundary.s)
        object.__setattr__(self, "form", boundary.form)
        object.__setattr__(self, "boundary", boundary)

    def _boundary(self, v: Fraction, start: Fraction) -> arb:
        return self.boundary.threshold(v, start)

    def _fast_boundary(self, v: FloatArray, start: FloatArray) -> FloatArray:
        return np.asarray(self.boundary.threshold_float(v, start))


@dataclass(frozen=True, slots=True, init=False)
class W23MixtureOdometer(_Odometer):
    """W23-MixtureOdometer-Corrected (reconstruction; the poster's P9 with delta' in the
    logarithm, plus the drift), for rho > 0 fixed before the interaction:

    one-sided (``sides="one"``, default, the poster's closed form):
    "U_n = sqrt(2 (V_n + rho) log(1/(2 delta') sqrt((V_n + rho)/rho) + 1)) + 1/2 V_n
    + Delta_n"; two-sided (``sides="two"``, Gaussian mixture over lambda in R):
    "sqrt(2 (V_n + rho) log(1/delta' sqrt((V_n + rho)/rho))) + 1/2 V_n + Delta_n";
    +inf once Delta_n > delta''. P(exists n: L_n > U_n) <= delta' + delta''. The boundary
    is :class:`~adaptive_dp.evalues.boundaries.NormalMixtureBoundary` at level delta'.
    """

    delta: Fraction
    delta_slack: Fraction
    delta_budget: Fraction = field(repr=False, compare=False)
    rho: Fraction
    sides: Literal["one", "two"]
    boundary: NormalMixtureBoundary = field(repr=False, compare=False)
    SPEC = "W23-MixtureOdometer-Corrected"

    def __init__(
        self,
        *,
        delta: ExactLike,
        rho: ExactLike,
        delta_slack: ExactLike | None = None,
        sides: Literal["one", "two"] = "one",
    ) -> None:
        """``delta`` = delta' + delta'' bounds the crossing probability; ``delta_slack``
        is delta' (default: all of ``delta``); ``rho`` is the mixture parameter, fixed in
        advance."""
        _set_deltas(self, delta, delta_slack)
        boundary = NormalMixtureBoundary(rho, delta=self._level(), sides=sides)
        object.__setattr__(self, "rho", boundary.rho)
        object.__setattr__(self, "sides", boundary.sides)
        object.__setattr__(self, "boundary", boundary)

    def _boundary(self, v: Fraction, start: Fraction) -> arb:
        return self.boundary.threshold(v)

    def _fast_boundary(self, v: FloatArray, start: FloatArray) -> FloatArray:
        return np.asarray(self.boundary.threshold_float(v))


def mixture_rho_for(
    v_star: float, delta_prime: float, sides: Literal["one", "two"] = "one"
) -> float:
    """The rho minimising the mixture boundary at intrinsic time ``v_star`` (a search in
    floats, not certified: rho only has to be fixed before the interaction)."""

    def boundary(log_rho: float) -> float:
        r = math.exp(log_rho)
        ratio = math.sqrt((v_star + r) / r)
        inner = (
            math.log(ratio / (2 * delta_prime) + 1)
            if sides == "one"
            else math.log(ratio / delta_prime)
        )
        return math.sqrt(2 * (v_star + r) * inner)

    return math.exp(golden_minimize(boundary, math.log(v_star) - 12, math.log(v_star) + 6))
