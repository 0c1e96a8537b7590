"""Time-uniform boundaries for the e-value products of R23-Eq2 (Ville's inequality, the
normal mixture with its parameter fixed in advance, and stitching).

Setting: S_n, V_n adapted, V_n >= 0 nondecreasing, and exp(lambda S_n - lambda^2 V_n/2)
a nonnegative supermartingale with initial value 1 (R23-Eq2) for every lambda > 0
(Ville, stitching) or every real lambda (normal mixture).  A boundary b(v) with its
delta satisfies P[exists n : S_n >= b(V_n)] <= delta.  Each boundary's parameters are
fixed before the interaction: they are constructor arguments, never re-optimised on
realised data (re-optimising on the realised V would need a union bound).

``threshold(v)`` returns a certified arb enclosure of b(v) at an exact rational v;
``threshold_float(v)`` is a numpy evaluation for simulations (not certified).
Derivations: proofs/R23-Thm5.md (steps on Ville and the mixture integral).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Protocol

import numpy as np
from flint import arb
from numpy.typing import ArrayLike, NDArray

from adaptive_dp.errors import ParameterError
from adaptive_dp.numerics import ExactLike, arb_of, enclose, exact_delta, exact_positive

__all__ = [
    "Boundary",
    "NormalMixtureBoundary",
    "StitchedBoundary",
    "VilleBoundary",
]


class Boundary(Protocol):
    """A time-uniform boundary: P[exists n : S_n >= b(V_n)] <= delta."""

    @property
    def delta(self) -> Fraction: ...

    def threshold(self, v: Fraction) -> arb: ...

    def threshold_float(self, v: ArrayLike) -> NDArray[np.float64]: ...


@dataclass(frozen=True, slots=True, init=False)
class VilleBoundary:
    """Ville's inequality for one fixed lambda > 0: "P[exists n : M_n >= 1/delta] <= delta"
    for a nonnegative supermartingale M_n = exp(lambda S_n - lambda^2 V_n/2) with M_0 = 1,
    i.e. the line b(v) = log(1/delta)/lambda + lambda v/2."""

    lam: Fraction
    delta: Fraction

    def __init__(self, lam: ExactLike, delta: ExactLike) -> None:
        object.__setattr__(self, "lam", exact_positive(lam, "lam"))
        object.__setattr__(self, "delta", exact_delta(delta, "delta", allow_zero=False))

    def threshold(self, v: Fraction) -> arb:
        lam, delta = self.lam, self.delta
        return enclose(lambda: -arb_of(delta).log() / arb_of(lam) + arb_of(lam) * arb_of(v) / 2)

    def threshold_float(self, v: ArrayLike) -> NDArray[np.float64]:
        lam = float(self.lam)
        out: NDArray[np.float64] = math.log(1 / float(self.delta)) / lam + lam * np.asarray(
            v, dtype=np.float64
        ) / 2
        return out


@dataclass(frozen=True, slots=True, init=False)
class NormalMixtureBoundary:
    """EXT-HRMS21NormalMixture: normal mixture (Robbins; Howard et al. 2021), mixing
    lambda ~ N(0, 1/rho), rho > 0 fixed in advance:
    "int exp(lambda S - lambda^2 V/2) N(lambda; 0, 1/rho) d lambda
    = sqrt(rho/(V + rho)) exp(S^2/(2(V + rho)))", so by Ville
    b(v) = sqrt(2 (v + rho) log(sqrt((v + rho)/rho)/delta)).  Needs the supermartingale
    property for every real lambda (BM rounds only: R23-Thm5)."""

    rho: Fraction
    delta: Fraction

    def __init__(self, rho: ExactLike, delta: ExactLike) -> None:
        object.__setattr__(self, "rho", exact_positive(rho, "rho"))
        object.__setattr__(self, "delta", exact_delta(delta, "delta", allow_zero=False))

    def threshold(self, v: Fraction) -> arb:
        rho, delta = self.rho, self.delta

        def value() -> arb:
            w = arb_of(v) + arb_of(rho)
            return (w * ((w / arb_of(rho)).log() - 2 * arb_of(delta).log())).sqrt()

        return enclose(value)

    def threshold_float(self, v: ArrayLike) -> NDArray[np.float64]:
        rho = float(self.rho)
        w = np.asarray(v, dtype=np.float64) + rho
        out: NDArray[np.float64] = np.sqrt(
            w * (np.log(w / rho) + 2 * math.log(1 / float(self.delta)))
        )
        return out


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

    def __init__(
        self, v_min: ExactLike, delta: ExactLike, eta: ExactLike = 2, s: ExactLike = "1.4"
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

    def threshold_float(self, v: ArrayLike) -> NDArray[np.float64]:
        va = np.asarray(v, dtype=np.float64)
        m, eta, s = float(self.v_min), float(self.eta), float(self.s)
        zeta_s = float(arb_of(self.s).zeta().mid())
        ratio = np.maximum(va / m, 1.0)
        k = np.maximum(0, np.floor(np.log(ratio) / math.log(eta)))
        log_inv = math.log(1 / float(self.delta)) + math.log(zeta_s) + s * np.log(k + 1)
        lam = np.sqrt(2 * log_inv / (m * eta ** (k + 0.5)))
        out: NDArray[np.float64] = log_inv / lam + lam * va / 2
        return out
