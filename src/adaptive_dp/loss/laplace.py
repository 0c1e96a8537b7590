"""Privacy-loss distribution of the Laplace mechanism (R23-Def2.2, R23-Lem2.1).

Derivation from the densities (checked in tests/loss/test_laplace.py against
``privacy_loss``): with P = Lap(c, b), Q = Lap(c', b), ``e = |c - c'| / b`` and, by
reflection, c = 0 < c' = e b (b = 1 after rescaling y), ``L(y) = |y - e| - |y|``:

* y <= 0: L = e, P-probability 1/2 (an atom);
* y >= e: L = -e, P-probability e^{-e} / 2 (an atom);
* 0 < y < e: L = e - 2y, continuous on (-e, e) with density e^{-(e - l)/2} / 4.

Hence P[L <= l] = 0 (l < -e), e^{-(e - l)/2} / 2 (-e <= l < e), 1 (l >= e), and
delta(t) = E_P[(1 - e^{t - L})_+] = 1 - e^t (t < -e), 1 - e^{(t - e)/2} (-e <= t < e),
0 (t >= e).

k-fold composition (``laplace_composed_hockey_stick``): exact, through the sum of the
k independent losses. Each coordinate is an atom +e (weight 1/2), an atom -e
(weight e^{-e}/2) or continuous (e - 2 y_i, y_i with sub-density e^{-y}/2 on (0, e)).
Given a atoms +e, m atoms -e and c continuous coordinates (multinomial weight), the
loss is K e - 2 Y with K = a - m + c and Y the sum of the c values y_i, whose joint
sub-density is 2^{-c} e^{-Y} g_c(Y), g_c the c-fold convolution of 1_(0, e):
g_c(s) = sum_j (-1)^j C(c, j) (s - j e)_+^{c-1} / (c-1)!. The expectation
E[(1 - e^{t - L})_+] then reduces to lower incomplete gamma integrals
int_0^V e^{-+u} u^{c-1} du = V^c / c 1F1(c; c + 1; -+V), evaluated with mpmath at a
precision raised with k to absorb the alternating sum.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
from numpy.typing import ArrayLike, NDArray

from adaptive_dp.errors import NegativeParameterError, ParameterError, ParameterTypeError
from adaptive_dp.loss.base import PrivacyLossDistribution, finite_float

__all__ = [
    "LaplacePLD",
    "laplace_composed_hockey_stick",
    "laplace_composed_hockey_stick_mp",
    "laplace_composed_tail",
    "laplace_composed_tail_mp",
]


def _epsilon(epsilon: object) -> float:
    e = finite_float(epsilon, "epsilon")
    if e < 0:
        raise NegativeParameterError("epsilon", epsilon, "a number >= 0")
    return e


class LaplacePLD(PrivacyLossDistribution):
    """R23-Lem2.1: the Laplace loss, atoms at +-epsilon plus a continuous part.

    ``epsilon = |c - c'| / b`` (= Delta / b on worst-case neighbours). Symmetric:
    ``swap()`` is the same distribution.
    """

    __slots__ = ("_eps",)

    def __init__(self, epsilon: object) -> None:
        self._eps = _epsilon(epsilon)

    @property
    def epsilon(self) -> float:
        """The largest loss, ``|c - c'| / b``."""
        return self._eps

    def __repr__(self) -> str:
        return f"LaplacePLD(epsilon={self._eps!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, LaplacePLD) and other._eps == self._eps

    def __hash__(self) -> int:
        return hash(("LaplacePLD", self._eps))

    def cdf(self, loss: ArrayLike) -> NDArray[np.float64]:
        """P[L <= l]: 0 below -e, e^{-(e - l)/2} / 2 on [-e, e), 1 from e (atoms included)."""
        x = np.asarray(loss, dtype=np.float64)
        e = self._eps
        mid = 0.5 * np.exp(-(e - np.clip(x, -e, e)) / 2)
        out: NDArray[np.float64] = np.where(x < -e, 0.0, np.where(x >= e, 1.0, mid))
        return out

    def sf(self, loss: ArrayLike) -> NDArray[np.float64]:
        """P[L > l] (strict): 1 below -e, 1 - e^{-(e - l)/2} / 2 on [-e, e), 0 from e."""
        x = np.asarray(loss, dtype=np.float64)
        e = self._eps
        mid = 1.0 - 0.5 * np.exp(-(e - np.clip(x, -e, e)) / 2)
        out: NDArray[np.float64] = np.where(x < -e, 1.0, np.where(x >= e, 0.0, mid))
        return out

    def rvs(self, size: int | tuple[int, ...], rng: np.random.Generator) -> NDArray[np.float64]:
        """The loss ``|Y - e| - |Y|`` of Y ~ Lap(0, 1), in its exact piecewise form
        (e for Y <= 0, -e for Y >= e, e - 2Y between) so that atoms are hit exactly."""
        y = rng.laplace(0.0, 1.0, size)
        e = self._eps
        out: NDArray[np.float64] = np.where(y <= 0, e, np.where(y >= e, -e, e - 2 * y))
        return out

    def hockey_stick(self, epsilon: float) -> float:
        """delta(t) = 1 - e^t (t < -e), 1 - e^{(t - e)/2} (-e <= t < e), 0 (t >= e)."""
        t = finite_float(epsilon, "epsilon")
        e = self._eps
        if t >= e:
            return 0.0
        if t < -e:
            return -math.expm1(t)
        return -math.expm1((t - e) / 2)

    def swap(self) -> LaplacePLD:
        """The Laplace PLD is symmetric (reflection y -> c + c' - y)."""
        return LaplacePLD(self._eps)


def _k(k: object) -> int:
    if isinstance(k, bool) or not isinstance(k, int):
        raise ParameterTypeError("k", k, "an int")
    if k < 1:
        raise ParameterError("k", k, "an integer k >= 1")
    return k


def _lower_gamma(c: int, v: mpmath.mpf, sign: int) -> mpmath.mpf:
    """int_0^v e^{sign u} u^{c-1} du = v^c / c 1F1(c; c + 1; sign v), v >= 0."""
    if v <= 0:
        return mpmath.mpf(0)
    return v**c / c * mpmath.hyp1f1(c, c + 1, sign * v)


def _composed(e: mpmath.mpf, k: int, t: mpmath.mpf, hockey: bool) -> mpmath.mpf:
    total = mpmath.mpf(0)
    log_half = -mpmath.log(2)
    for c in range(k + 1):
        for m in range(k - c + 1):
            a = k - c - m
            log_w = (
                mpmath.loggamma(k + 1)
                - mpmath.loggamma(a + 1)
                - mpmath.loggamma(m + 1)
                - mpmath.loggamma(c + 1)
                + k * log_half
                - m * e
            )
            w = mpmath.exp(log_w)
            big_k = a - m + c
            if c == 0:
                s = big_k * e
                if s > t:
                    total += w * (-mpmath.expm1(t - s) if hockey else 1)
                continue
            # L = K e - 2 Y > t  <=>  Y < (K e - t) / 2
            upper = min((big_k * e - t) / 2, c * e)
            if upper <= 0:
                continue
            inner = mpmath.mpf(0)
            shift = t - big_k * e
            for j in range(c + 1):
                v = upper - j * e
                if v <= 0:
                    break
                term = mpmath.exp(-j * e) * _lower_gamma(c, v, -1)
                if hockey:
                    term -= mpmath.exp(shift + j * e) * _lower_gamma(c, v, 1)
                inner += (-1) ** j * mpmath.binomial(c, j) * term
            total += w * inner / mpmath.factorial(c - 1)
    return total


def _adaptive(epsilon: object, k: object, t: object, hockey: bool) -> mpmath.mpf:
    """Evaluate at two precisions 20 digits apart until they agree to 30 digits (or to
    1e-60 absolutely), doubling the precision otherwise."""
    kk = _k(k)
    e = _epsilon(epsilon)
    tt = finite_float(t, "t")
    dps = 30 + kk
    with mpmath.workdps(dps):
        low = _composed(mpmath.mpf(e), kk, mpmath.mpf(tt), hockey)
    while True:
        with mpmath.workdps(dps + 20):
            high = _composed(mpmath.mpf(e), kk, mpmath.mpf(tt), hockey)
            err = abs(high - low)
            if err <= max(abs(high) * mpmath.mpf(10) ** -30, mpmath.mpf(10) ** -60) or dps > 3000:
                break
        low, dps = high, 2 * dps
    with mpmath.workdps(30):
        return +high


def laplace_composed_hockey_stick_mp(epsilon: object, k: int, t: object) -> mpmath.mpf:
    """R23-Lem2.1, k-fold: exact delta(t) of k independent Laplace mechanisms each with
    loss bound ``epsilon`` (= Delta / b), by the sum of Laplace losses (module
    docstring); mpmath, 30 significant digits (precision raised until two evaluations
    20 digits apart agree). Cost grows like k^3 (about 0.5 s at k = 30, 10 s at k = 60)."""
    return _adaptive(epsilon, k, t, hockey=True)


def laplace_composed_hockey_stick(epsilon: object, k: int, t: object) -> float:
    """The float nearest ``laplace_composed_hockey_stick_mp(epsilon, k, t)``."""
    return float(laplace_composed_hockey_stick_mp(epsilon, k, t))


def laplace_composed_tail_mp(epsilon: object, k: int, t: object) -> mpmath.mpf:
    """P[L_1 + ... + L_k > t] (strict) for k independent Laplace losses with bound
    ``epsilon``, exact by the same decomposition; mpmath."""
    return _adaptive(epsilon, k, t, hockey=False)


def laplace_composed_tail(epsilon: object, k: int, t: object) -> float:
    """The float nearest ``laplace_composed_tail_mp(epsilon, k, t)``."""
    return float(laplace_composed_tail_mp(epsilon, k, t))
