"""Time-uniform boundaries for the e-value products of R23-Eq2 (Ville's inequality, the
normal mixture with its parameter fixed in advance, and stitching).

Setting: S_n, V_n adapted, V_n >= 0 nondecreasing, and exp(lambda S_n - lambda^2 V_n/2)
a nonnegative supermartingale with initial value 1 (R23-Eq2) for every lambda > 0
(Ville, stitching) or every real lambda (normal mixture).  A boundary b(v) with its
delta satisfies P[exists n : S_n >= b(V_n)] <= delta.  Each boundary's parameters are
fixed before the interaction: they are constructor arguments, never re-optimised on
realised data (re-optimising on the realised V would need a union bound).

``threshold(v)`` returns a certified arb enclosure of b(v) at an exact rational v;
``threshold_float(v)`` evaluates it at a float or per path, rounded up (never below the
certified value at the same v; constants certified once at construction). These are the
only definitions of these boundaries: the W23 odometers read them too (a boundary of
S_n = the privacy loss minus its drift). Derivations: proofs/R23-Thm5.md (Ville and the
mixture integral), proofs/EXT-HRMS21NormalMixture.md (one- and two-sided mixtures,
the exact one-sided level set), proofs/EXT-HRMS21Stitching.md (stitching).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Literal, Protocol

import numpy as np
from flint import arb
from scipy.special import log_ndtr

from adaptive_dp.errors import ParameterError
from adaptive_dp.numerics import (
    ExactLike,
    arb_of,
    ball_lower,
    ball_upper,
    enclose,
    exact,
    exact_delta,
    exact_positive,
    working_precision,
)
from adaptive_dp.numerics.floats import Real, add_up, inflate_up, log, mul_up, sqrt

__all__ = [
    "Boundary",
    "HowardStitching",
    "NormalMixtureBoundary",
    "StitchedBoundary",
    "VilleBoundary",
    "half_normal_mixture_root",
]


class Boundary(Protocol):
    """A time-uniform boundary: P[exists n : S_n >= b(V_n)] <= delta."""

    @property
    def delta(self) -> Fraction: ...

    def threshold(self, v: Fraction) -> arb: ...

    def threshold_float(self, v: Real) -> Real: ...


def _up(value: arb) -> float:
    """A ball's upper end as a float (the ball already built at a working precision)."""
    return ball_upper(value)


@dataclass(frozen=True, slots=True, init=False)
class VilleBoundary:
    """Ville's inequality for one fixed lambda > 0: "P[exists n : M_n >= 1/delta] <= delta"
    for a nonnegative supermartingale M_n = exp(lambda S_n - lambda^2 V_n/2) with M_0 = 1,
    i.e. the line b(v) = log(1/delta)/lambda + lambda v/2."""

    lam: Fraction
    delta: Fraction
    _float: tuple[float, float] = field(init=False, repr=False, compare=False)

    def __init__(self, lam: ExactLike, *, delta: ExactLike) -> None:
        object.__setattr__(self, "lam", exact_positive(lam, "lam"))
        object.__setattr__(self, "delta", exact_delta(delta, "delta", allow_zero=False))
        lam_, d = self.lam, self.delta
        intercept = _up(enclose(lambda: -arb_of(d).log() / arb_of(lam_)))
        slope = _up(enclose(lambda: arb_of(lam_) / 2))
        object.__setattr__(self, "_float", (intercept, slope))

    def threshold(self, v: Fraction) -> arb:
        lam, delta = self.lam, self.delta
        return enclose(lambda: -arb_of(delta).log() / arb_of(lam) + arb_of(lam) * arb_of(v) / 2)

    def threshold_float(self, v: Real) -> Real:
        intercept, slope = self._float
        return add_up(mul_up(v, slope), intercept)


_LOG2 = math.log(2.0)
_ROOT_MARGIN = (1e-12, 1e-15)
"""Relative and absolute margins added to the float root of
:func:`half_normal_mixture_root` (Newton's float error is a few ulps of x, or of log 2
near x = 0, where log(2 Phi(x)) cancels)."""


def half_normal_mixture_root(level: Real) -> Real:
    """The x >= 0 with "x^2/2 + log(2 Phi(x)) = level" for level >= 0, per element, rounded
    up (by a relative 1e-12 plus 1e-15): the one-sided normal mixture equals 1/delta at
    S = x sqrt(V + rho) when level = log(sqrt((V + rho)/rho)/delta)
    (proofs/EXT-HRMS21NormalMixture.md, steps 8-9). h(x) = x^2/2 + log(2 Phi(x)) is convex
    and increasing, so Newton's method started above the root (at the closed form
    sqrt(2 log(e^level/2 + 1)), step 6) decreases to it."""
    c = np.asarray(level, dtype=np.float64)
    x = np.sqrt(2 * np.logaddexp(c - _LOG2, 0.0))
    for _ in range(8):
        log_cdf = log_ndtr(x)
        slope = x + np.exp(-x * x / 2 - log_cdf) / math.sqrt(2 * math.pi)
        x = x - (x * x / 2 + log_cdf + _LOG2 - c) / slope
    relative, absolute = _ROOT_MARGIN
    out = x * (1 + relative) + absolute
    return float(out) if isinstance(level, float) else out


def _half_normal_level(x: arb) -> arb:
    """h(x) = x^2/2 + log(2 Phi(x)), with 2 Phi(x) = erfc(-x / sqrt 2)."""
    return x * x / 2 + (-x / arb(2).sqrt()).erfc().log()


@dataclass(frozen=True, slots=True, init=False)
class NormalMixtureBoundary:
    """EXT-HRMS21NormalMixture: normal mixture (Robbins; Howard et al. 2021), rho > 0 fixed
    in advance. Two-sided (``sides="two"``, the default), mixing lambda ~ N(0, 1/rho),
    which needs the supermartingale property for every real lambda (BM rounds only,
    R23-Thm5): "int exp(lambda S - lambda^2 V/2) N(lambda; 0, 1/rho) d lambda
    = sqrt(rho/(V + rho)) exp(S^2/(2(V + rho)))", so by Ville
    b(v) = sqrt(2 (v + rho) log(sqrt((v + rho)/rho)/delta)). One-sided (``sides="one"``,
    lambda >= 0 only, the half-normal mixture
    "2 sqrt(rho/(V + rho)) exp(S^2/(2(V + rho))) Phi(S/sqrt(V + rho))"): the closed form
    (``form="closed"``, the default) b(v) = sqrt(2 (v + rho) log(sqrt((v + rho)/rho)/(2 delta)
    + 1)), or its exact level set (``form="exact"``, smaller) b(v) = sqrt(v + rho) x with
    x^2/2 + log(2 Phi(x)) = log(sqrt((v + rho)/rho)/delta). The two-sided closed form is
    already its exact level set."""

    rho: Fraction
    delta: Fraction
    sides: Literal["one", "two"]
    form: Literal["closed", "exact"]
    _float: tuple[float, float, float] = field(init=False, repr=False, compare=False)

    def __init__(
        self,
        rho: ExactLike,
        *,
        delta: ExactLike,
        sides: Literal["one", "two"] = "two",
        form: Literal["closed", "exact"] = "closed",
    ) -> None:
        object.__setattr__(self, "rho", exact_positive(rho, "rho"))
        object.__setattr__(self, "delta", exact_delta(delta, "delta", allow_zero=False))
        if sides not in ("one", "two"):
            raise ParameterError("sides", sides, "'one' or 'two'")
        if form not in ("closed", "exact"):
            raise ParameterError("form", form, "'closed' or 'exact'")
        object.__setattr__(self, "sides", sides)
        object.__setattr__(self, "form", "exact" if sides == "one" and form == "exact"
                           else "closed")
        halved = sides == "one" and self.form == "closed"
        r, level = self.rho, self.delta * (2 if halved else 1)
        rho_lo = ball_lower(enclose(lambda: arb_of(r)))
        inverse = _up(enclose(lambda: 1 / arb_of(level)))
        object.__setattr__(self, "_float", (_up(enclose(lambda: arb_of(r))), rho_lo, inverse))

    def _exact_level(self, v: Fraction) -> arb:
        """log(sqrt((v + rho)/rho)/delta), the level of the exact one-sided form."""
        w = arb_of(v) + arb_of(self.rho)
        return (w / arb_of(self.rho)).sqrt().log() - arb_of(self.delta).log()

    def threshold(self, v: Fraction) -> arb:
        rho, delta, one = self.rho, self.delta, self.sides == "one"
        if self.form == "exact":
            return self._exact_threshold(v)

        def value() -> arb:
            w = arb_of(v) + arb_of(rho)
            ratio = (w / arb_of(rho)).sqrt()
            if one:
                return (2 * w * (ratio / (2 * arb_of(delta)) + 1).log()).sqrt()
            return (2 * w * (ratio / arb_of(delta)).log()).sqrt()

        return enclose(value)

    def _exact_threshold(self, v: Fraction) -> arb:
        """sqrt(v + rho) times a certified bracket [lo, hi] of the root x of
        h(x) = level (h increasing: h(lo) < level < h(hi) decided in arb)."""
        level_up = ball_upper(enclose(lambda: self._exact_level(v)))
        relative, absolute = _ROOT_MARGIN
        guess = (float(half_normal_mixture_root(level_up)) - absolute) / (1 + relative)
        width = 4e-15
        while width < 1e-6:
            lo, hi = guess * (1 - width), guess * (1 + width)
            with working_precision(128):
                level = self._exact_level(v)
                if _half_normal_level(arb(lo)) < level < _half_normal_level(arb(hi)):
                    w = arb_of(v) + arb_of(self.rho)
                    # the radius hi - lo also covers the float midpoint's rounding
                    return w.sqrt() * arb((lo + hi) / 2, hi - lo)
            width *= 16
        raise ArithmeticError(f"the exact one-sided mixture boundary at v={v} was not certified")

    def threshold_float(self, v: Real) -> Real:
        rho_up, rho_lo, inverse = self._float
        w = add_up(v, rho_up)
        ratio = sqrt(w / rho_lo) * inverse
        if self.form == "exact":
            return inflate_up(sqrt(w) * half_normal_mixture_root(inflate_up(log(ratio))))
        inner = log(ratio + 1) if self.sides == "one" else log(ratio)
        return inflate_up(sqrt(2 * w * inner))


@dataclass(frozen=True, slots=True, init=False)
class HowardStitching:
    """EXT-HRMS21Stitching (Howard et al. 2021, Thm. 1) in closed form, for a first
    intrinsic time m > 0 known before it is used (a predictable start):
    ``form="exact"``: "k_1 sqrt(V (s log log(eta V / m) + log(zeta(s) / ((log eta)^s
    delta))))", k_1 = (eta^{1/4} + eta^{-1/4}) / sqrt 2, for eta > 1, s > 1;
    ``form="poster"`` (W23's rounding at eta = 2, s = 1.4, which dominates the exact one):
    "1.7 sqrt(V (log log(2 V / m) + 0.72 log(5.2 / delta)))". For V >= m."""

    delta: Fraction
    eta: Fraction
    s: Fraction
    form: Literal["poster", "exact"]
    _float: tuple[float, float] = field(init=False, repr=False, compare=False)

    def __init__(
        self,
        *,
        delta: ExactLike,
        eta: ExactLike = 2,
        s: ExactLike = "1.4",
        form: Literal["poster", "exact"] = "poster",
    ) -> None:
        object.__setattr__(self, "delta", exact_delta(delta, "delta", allow_zero=False))
        e, ss = exact(eta, "eta"), exact(s, "s")
        if e <= 1:
            raise ParameterError("eta", eta, "eta > 1")
        if ss <= 1:
            raise ParameterError("s", s, "s > 1")
        if form not in ("poster", "exact"):
            raise ParameterError("form", form, "'poster' or 'exact'")
        if form == "poster" and (e != 2 or ss != Fraction(7, 5)):
            raise ParameterError("form", form, "'exact' unless eta = 2 and s = 1.4")
        object.__setattr__(self, "eta", e)
        object.__setattr__(self, "s", ss)
        object.__setattr__(self, "form", form)
        object.__setattr__(self, "_float", (_up(enclose(self._scale)), _up(enclose(self._level))))

    @property
    def scale(self) -> float:
        """The factor k_1 (1.7 for the poster form), rounded up."""
        return self._float[0]

    def _scale(self) -> arb:
        if self.form == "poster":
            return arb(17) / 10
        eta = arb_of(self.eta)
        return (eta.root(4) + 1 / eta.root(4)) / arb(2).sqrt()

    def _level(self) -> arb:
        """The constant inside the square root, after the log log term."""
        d = arb_of(self.delta)
        if self.form == "poster":
            return arb(72) / 100 * (arb(52) / 10 / d).log()
        eta, s = arb_of(self.eta), arb_of(self.s)
        return (s.zeta() / (eta.log() ** s * d)).log()

    def threshold(self, v: Fraction, start: Fraction) -> arb:
        """The boundary at V = ``v`` for the first intrinsic time m = ``start``."""

        def value() -> arb:
            av, am = arb_of(v), arb_of(start)
            ratio = (2 * av / am) if self.form == "poster" else (arb_of(self.eta) * av / am)
            weight = 1 if self.form == "poster" else arb_of(self.s)
            return self._scale() * (av * (weight * ratio.log().log() + self._level())).sqrt()

        return enclose(value)

    def threshold_float(self, v: Real, start: Real) -> Real:
        """The boundary at float V per path, rounded up."""
        scale, level = self._float
        eta = 2.0 if self.form == "poster" else float(self.eta)
        weight = 1.0 if self.form == "poster" else float(self.s)
        # eta V / m rounded up, its log log, and s (weight) within the inflation
        ratio = inflate_up(eta * v / start)
        return inflate_up(scale * sqrt(v * (weight * log(log(ratio)) + level)))


@dataclass(frozen=True, slots=True, init=False)
class StitchedBoundary:
    """Stitching (Howard et al. 2021, the idea of their Theorem 1; this piecewise-linear
    form is ours, proofs/R23-Thm5.md): epoch k >= 0 covers v in [m eta^k, m eta^{k+1})
    (epoch 0 also every v < m) and uses Ville's line with
    delta_k = delta / (zeta(s) (k+1)^s) and lambda_k = sqrt(2 log(1/delta_k)/(m eta^{k+1/2}));
    the union bound over epochs gives total probability sum_k delta_k = delta.
    Parameters (m = ``v_min``, eta > 1, s > 1) fixed in advance."""

    v_min: Fraction
    delta: Fraction
    eta: Fraction
    s: Fraction
    _float: tuple[float, float] = field(init=False, repr=False, compare=False)

    def __init__(
        self, v_min: ExactLike, *, delta: ExactLike, eta: ExactLike = 2, s: ExactLike = "1.4"
    ) -> None:
        object.__setattr__(self, "v_min", exact_positive(v_min, "v_min"))
        object.__setattr__(self, "delta", exact_delta(delta, "delta", allow_zero=False))
        e = exact_positive(eta, "eta")
        if e <= 1:
            raise ParameterError("eta", eta, "eta > 1")
        ss = exact_positive(s, "s")
        if ss <= 1:
            raise ParameterError("s", s, "s > 1")
        object.__setattr__(self, "eta", e)
        object.__setattr__(self, "s", ss)
        d = self.delta
        base = _up(enclose(lambda: -arb_of(d).log() + arb_of(ss).zeta().log()))
        object.__setattr__(self, "_float", (base, _up(enclose(lambda: arb_of(ss)))))

    def epoch(self, v: float) -> int:
        """The epoch k used at v (any k gives a valid line; this picks the natural one)."""
        ratio = v / float(self.v_min)
        if ratio < 1:
            return 0
        return max(0, math.floor(math.log(ratio) / math.log(float(self.eta))))

    def threshold(self, v: Fraction) -> arb:
        k = self.epoch(float(v))
        m, delta, eta, s = self.v_min, self.delta, self.eta, self.s

        def value() -> arb:
            log_inv = -arb_of(delta).log() + arb_of(s).zeta().log() + arb_of(s) * arb(k + 1).log()
            scale = arb_of(m) * arb_of(eta) ** (arb(k) + arb(1) / 2)
            lam = (2 * log_inv / scale).sqrt()
            return log_inv / lam + lam * arb_of(v) / 2

        return enclose(value)

    def threshold_float(self, v: Real) -> Real:
        """Rounded up: the epoch's level log(1/delta_k) is certified up and its line
        evaluated upward; the float lambda_k is a fixed function of k, so each epoch
        still uses one line fixed in advance (any lambda > 0 gives a valid Ville line)."""
        va = np.asarray(v, dtype=np.float64)
        m, eta = float(self.v_min), float(self.eta)
        base, s_up = self._float
        k = np.maximum(0, np.floor(np.log(np.maximum(va / m, 1.0)) / math.log(eta)))
        log_inv = inflate_up(base + s_up * np.log(k + 1))
        lam = np.sqrt(2 * log_inv / (m * eta ** (k + 0.5)))
        out = inflate_up(log_inv / lam + lam * va / 2)
        return float(out) if isinstance(v, float) else out
