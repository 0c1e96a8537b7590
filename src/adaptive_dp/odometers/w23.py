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

The RRUV16 odometer is omitted: its formula was not retrieved (spec item RRUV16-Odometer,
memory only), and a reconstruction would be a new result, not RRUV16's.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal, Protocol

import numpy as np
from flint import arb
from numpy.typing import ArrayLike, NDArray

from adaptive_dp.errors import DeltaRangeError, NegativeParameterError
from adaptive_dp.numerics import (
    ExactLike,
    arb_of,
    ball_upper,
    enclose,
    exact,
    exact_delta,
    exact_positive,
)
from adaptive_dp.numerics.search import golden_minimize
from adaptive_dp.odometers._coerce import as_pdp
from adaptive_dp.odometers._fastmath import add_up, inflate_up, mul_up

__all__ = [
    "FastOdometerState",
    "Odometer",
    "OdometerState",
    "W23MixtureOdometer",
    "W23StitchedOdometer",
    "mixture_rho_for",
]

FloatArray = NDArray[np.float64]


class Odometer(Protocol):
    """The odometer role (docs/design.md, principle 9): a time-uniform bound U_n per step."""

    SPEC: str

    def start(self) -> OdometerState: ...

    def fast(self, paths: int) -> FastOdometerState: ...


class _Odometer(ABC):
    """Shared parts of the W23 odometers (frozen slotted dataclasses)."""

    __slots__ = ()
    SPEC: str = ""
    delta_prime: Fraction
    delta_double_prime: Fraction

    def _level(self) -> Fraction:
        """The level of the concentration boundary: delta' (private hook; the printed P9
        uses the total delta)."""
        return self.delta_prime

    def _drift(self, v: Fraction, d: Fraction) -> arb:
        """The drift bound 1/2 V_n + Delta_n (private hook; the printed forms drop it)."""
        return arb_of(v) / 2 + arb_of(d)

    def _fast_drift(self, v: FloatArray, d: FloatArray) -> FloatArray:
        return add_up(v / 2, d)

    @abstractmethod
    def _boundary(self, v: Fraction, start: Fraction) -> arb: ...

    @abstractmethod
    def _fast_boundary(self, v: FloatArray, start: FloatArray) -> FloatArray: ...

    def start(self) -> OdometerState:
        """The odometer before any spend (reading 0)."""
        return OdometerState(self, Fraction(0), Fraction(0), Fraction(0), 0)

    def fast(self, paths: int) -> FastOdometerState:
        """The vectorised float fast path (readings never below the certified ones)."""
        z = np.zeros(paths)
        return FastOdometerState(self, z, z.copy(), z.copy())

    def _reading(self, v: Fraction, d: Fraction, start: Fraction) -> float:
        if d > self.delta_double_prime:
            return math.inf
        if v == 0:
            return ball_upper(enclose(lambda: self._drift(v, d)))
        return ball_upper(enclose(lambda: self._drift(v, d) + self._boundary(v, start)))


@dataclass(frozen=True, slots=True)
class OdometerState:
    """Immutable odometer state: V_n, Delta_n, the starting intrinsic time (epsilon_1^2
    for the stitched boundary: the first positive epsilon squared) and n."""

    odometer: _Odometer
    sum_sq: Fraction
    sum_delta: Fraction
    start_time: Fraction
    count: int

    def spend(self, next: object) -> OdometerState:
        """The state after one more conditionally pDP spend (O(1))."""
        eps, delta = as_pdp(next, type(self.odometer).__name__)
        sq = eps * eps
        start = self.start_time if self.start_time > 0 else sq
        return OdometerState(
            self.odometer, self.sum_sq + sq, self.sum_delta + delta, start, self.count + 1
        )

    def reading(self) -> float:
        """U_n, certified and rounded up (+inf once Delta_n > delta'')."""
        return self.odometer._reading(self.sum_sq, self.sum_delta, self.start_time)


@dataclass(frozen=True, slots=True)
class FastOdometerState:
    """Vectorised odometer: arrays of V_n, Delta_n and starting times, one per path."""

    odometer: _Odometer
    sum_sq: FloatArray
    sum_delta: FloatArray
    start_time: FloatArray

    def spend(self, epsilon: ArrayLike, delta: ArrayLike = 0.0) -> FastOdometerState:
        """The state after one more spend on every path."""
        n = self.sum_sq.shape[0]
        e = np.broadcast_to(np.asarray(epsilon, dtype=np.float64), (n,))
        d = np.broadcast_to(np.asarray(delta, dtype=np.float64), (n,))
        sq = mul_up(e, e)
        start = np.where(self.start_time > 0, self.start_time, sq)
        return FastOdometerState(
            self.odometer, add_up(self.sum_sq, sq), add_up(self.sum_delta, d), start
        )

    def reading(self) -> FloatArray:
        """U_n per path, upper bounds of the certified readings."""
        o = self.odometer
        v = self.sum_sq
        with np.errstate(divide="ignore", invalid="ignore"):
            g = np.where(
                v > 0, o._fast_boundary(v, np.where(self.start_time > 0, self.start_time, 1.0)), 0.0
            )
        u = inflate_up(o._fast_drift(v, self.sum_delta) + g)
        cut = self.sum_delta > float(o.delta_double_prime)
        out: FloatArray = np.where(cut, np.inf, u)
        return out


def _validate_deltas(
    delta_prime: ExactLike, delta_double_prime: ExactLike
) -> tuple[Fraction, Fraction]:
    dp = exact_delta(delta_prime, "delta_prime", allow_zero=False)
    dpp = exact_delta(delta_double_prime, "delta_double_prime")
    if dp + dpp >= 1:
        raise DeltaRangeError("delta_prime + delta_double_prime", dp + dpp, "< 1")
    return dp, dpp


@dataclass(frozen=True, slots=True, init=False)
class W23StitchedOdometer(_Odometer):
    """W23-StitchedOdometer-Corrected (reconstruction; the poster's P8 plus the drift):

    "U_n = 1.7 sqrt(V_n (log log(2 V_n / epsilon_1^2) + 0.72 log(5.2 / delta')))
    + 1/2 V_n + Delta_n" on {Delta_n <= delta''}, +inf otherwise (``form="poster"``, the
    default: eta = 2, s = 1.4 rounded up, which dominates the exact boundary), or the
    exact stitched boundary of Howard et al. for any eta > 1, s > 1 (``form="exact"``):
    "k_1 sqrt(V (s log log(eta V / m) + log(zeta(s) / ((log eta)^s delta'))))",
    k_1 = (eta^{1/4} + eta^{-1/4}) / sqrt 2, m = epsilon_1^2 (the first positive
    epsilon squared, predictable). P(exists n: L_n > U_n) <= delta' + delta''.
    """

    delta_prime: Fraction
    delta_double_prime: Fraction
    eta: Fraction
    s: Fraction
    form: Literal["poster", "exact"]
    SPEC = "W23-StitchedOdometer-Corrected"

    def __init__(
        self,
        delta_prime: ExactLike,
        delta_double_prime: ExactLike = 0,
        *,
        eta: ExactLike = 2,
        s: ExactLike = "1.4",
        form: Literal["poster", "exact"] = "poster",
    ) -> None:
        dp, dpp = _validate_deltas(delta_prime, delta_double_prime)
        object.__setattr__(self, "delta_prime", dp)
        object.__setattr__(self, "delta_double_prime", dpp)
        e, ss = exact(eta, "eta"), exact(s, "s")
        if e <= 1:
            raise NegativeParameterError("eta", eta, "eta > 1")
        if ss <= 1:
            raise NegativeParameterError("s", s, "s > 1")
        if form not in ("poster", "exact"):
            raise NegativeParameterError("form", form, "'poster' or 'exact'")
        if form == "poster" and (e != 2 or ss != Fraction(7, 5)):
            raise NegativeParameterError("form", form, "'exact' unless eta = 2 and s = 1.4")
        object.__setattr__(self, "eta", e)
        object.__setattr__(self, "s", ss)
        object.__setattr__(self, "form", form)

    def _boundary(self, v: Fraction, start: Fraction) -> arb:
        level = self._level()
        av, am, lv = arb_of(v), arb_of(start), arb_of(level)
        if self.form == "poster":
            inner = (2 * av / am).log().log() + arb(72) / 100 * (arb(52) / 10 / lv).log()
            return arb(17) / 10 * (av * inner).sqrt()
        eta, s = arb_of(self.eta), arb_of(self.s)
        k1 = (eta.root(4) + 1 / eta.root(4)) / arb(2).sqrt()
        ell = s * (eta * av / am).log().log() + (s.zeta() / (eta.log() ** s * lv)).log()
        return k1 * (av * ell).sqrt()

    def _fast_boundary(self, v: FloatArray, start: FloatArray) -> FloatArray:
        level = self._level()
        if self.form == "poster":
            inner = np.log(np.log(2 * v / start)) + 0.72 * (
                ball_upper(enclose(lambda: (arb(52) / 10 / arb_of(level)).log()))
            )
            return 1.7 * np.sqrt(v * inner) * (1 + 1e-12)
        eta_f, s_f = float(self.eta), float(self.s)
        const = ball_upper(
            enclose(
                lambda: (
                    arb_of(self.s).zeta()
                    / (arb_of(self.eta).log() ** arb_of(self.s) * arb_of(level))
                ).log()
            )
        )
        k1 = ball_upper(
            enclose(
                lambda: (arb_of(self.eta).root(4) + 1 / arb_of(self.eta).root(4)) / arb(2).sqrt()
            )
        )
        ell = s_f * np.log(np.log(eta_f * v / start)) + const
        return k1 * np.sqrt(v * ell) * (1 + 1e-12)


@dataclass(frozen=True, slots=True, init=False)
class W23MixtureOdometer(_Odometer):
    """W23-MixtureOdometer-Corrected (reconstruction; the poster's P9 with delta' in the
    logarithm, plus the drift), for rho > 0 fixed before the interaction:

    one-sided (``sides="one"``, default, the poster's closed form):
    "U_n = sqrt(2 (V_n + rho) log(1/(2 delta') sqrt((V_n + rho)/rho) + 1)) + 1/2 V_n
    + Delta_n"; two-sided (``sides="two"``, Gaussian mixture over lambda in R):
    "sqrt(2 (V_n + rho) log(1/delta' sqrt((V_n + rho)/rho))) + 1/2 V_n + Delta_n";
    +inf once Delta_n > delta''. P(exists n: L_n > U_n) <= delta' + delta''.
    """

    delta_prime: Fraction
    delta_double_prime: Fraction
    rho: Fraction
    sides: Literal["one", "two"]
    SPEC = "W23-MixtureOdometer-Corrected"

    def __init__(
        self,
        delta_prime: ExactLike,
        rho: ExactLike,
        delta_double_prime: ExactLike = 0,
        *,
        sides: Literal["one", "two"] = "one",
    ) -> None:
        dp, dpp = _validate_deltas(delta_prime, delta_double_prime)
        object.__setattr__(self, "delta_prime", dp)
        object.__setattr__(self, "delta_double_prime", dpp)
        object.__setattr__(self, "rho", exact_positive(rho, "rho"))
        if sides not in ("one", "two"):
            raise NegativeParameterError("sides", sides, "'one' or 'two'")
        object.__setattr__(self, "sides", sides)

    def _boundary(self, v: Fraction, start: Fraction) -> arb:
        av, ar, lv = arb_of(v), arb_of(self.rho), arb_of(self._level())
        ratio = ((av + ar) / ar).sqrt()
        inner = (ratio / (2 * lv) + 1).log() if self.sides == "one" else (ratio / lv).log()
        return (2 * (av + ar) * inner).sqrt()

    def _fast_boundary(self, v: FloatArray, start: FloatArray) -> FloatArray:
        r = float(self.rho)
        r_lo = np.nextafter(r, 0.0)
        r_up = np.nextafter(r, np.inf)
        lv_lo = np.nextafter(float(self._level()), 0.0)
        ratio = np.sqrt((v + r_up) / r_lo)
        inner = np.log(ratio / (2 * lv_lo) + 1) if self.sides == "one" else np.log(ratio / lv_lo)
        out: FloatArray = np.sqrt(2 * (v + r_up) * inner) * (1 + 1e-12)
        return out


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
