"""Estimators with error control for the verification harness (docs/design.md, verification).

Every estimator returns an :class:`Estimate`: the sample size, the point estimate and
one-sided confidence bounds, each valid with probability at least ``1 - LEVEL`` where
``LEVEL = 1e-6`` (the lower bound decides violations, the upper bound is reported).

- **Tail** ``P[L > epsilon]`` and the **time-uniform crossing** probability
  ``P[exists n <= horizon: L_n > U_n]``: exact one-sided Clopper-Pearson bounds on a
  Bernoulli mean (for the crossing, on the path indicator), from
  ``scipy.stats.beta.ppf``: with ``k`` successes in ``n`` trials the lower bound is
  ``Beta(LEVEL; k, n - k + 1)`` (0 when ``k = 0``) and the upper bound
  ``Beta(1 - LEVEL; k + 1, n - k)`` (1 when ``k = n``).
- **Hockey-stick** ``E[(1 - e^(epsilon - L))_+]``: each sample lies in ``[0, 1]``; we use
  the empirical Bernstein bound of Maurer and Pontil (2009, Theorem 4): for i.i.d.
  ``Z_i`` in ``[0, 1]``, ``n >= 2``, with probability at least ``1 - a``,
  ``E Z <= mean(Z) + sqrt(2 V_n ln(2/a) / n) + 7 ln(2/a) / (3 (n - 1))`` where ``V_n`` is
  the unbiased sample variance. Applied to ``Z`` and to ``1 - Z`` it gives the upper
  and the lower one-sided bounds at level ``a = LEVEL``.
- **Truncated e-value mean** ``E[min(M, K)]``: Hoeffding on ``[0, K]``:
  ``mean -/+ K sqrt(ln(1/a) / (2 n))``.
- **Maximum loss** (delta = 0 claims): the number of samples with
  ``L > epsilon (1 + 1e-9)``; the claim is violated iff there is one.

**Power** (the verdict rule is in :mod:`adaptive_dp.verify.judge.verdicts`): the
*detectable ratio* of a test is the smallest ``r`` such that a true value ``r x claimed``
is flagged (lower bound above the claimed value) with probability at least
:data:`POWER` ``= 0.95`` at the test's ``n`` (:func:`detectable_ratio`):

- tail and crossing, exactly: the decision is ``k >= k*`` successes, ``k*`` the smallest
  count whose Clopper-Pearson lower bound exceeds the claim, so the power at ``p`` is
  ``P[Bin(n, p) >= k*] = I_p(k*, n - k* + 1)`` and the ratio is
  ``Beta(0.95; k*, n - k* + 1) / claimed``;
- hockey-stick, conservatively: a sample's variance is at most ``m (1 - m) n / (n - 1)``
  for its mean ``m`` (samples in [0, 1]), so every sample mean ``m >= m*`` is flagged,
  ``m*`` the smallest mean whose Bernstein lower bound at that variance exceeds the claim;
  by Bernstein's inequality with the largest variance ``mu (1 - mu)`` of a [0, 1] variable
  of mean ``mu``, the sample mean is below ``mu - t`` with probability at most 0.05 for
  ``t = (L/3 + sqrt(L^2/9 + 2 n L mu (1 - mu))) / n``, ``L = ln 20``; the ratio is the
  smallest ``mu`` with ``mu - t >= m*``, over the claim (the true power is higher);
- e-values, conservatively: Hoeffding on both sides,
  ``(claimed + K (sqrt(ln(1/LEVEL) / 2n) + sqrt(ln 20 / 2n))) / claimed``;
- max-loss claims have no ratio: :func:`detectable_exceedance` is the smallest
  probability ``p`` of a loss above epsilon that ``n`` samples show with probability 0.95,
  ``1 - 0.05^(1/n)``.

:func:`required_samples` is the smallest ``n`` whose detectable ratio meets a target.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum
from functools import lru_cache

import numpy as np
from numpy.typing import ArrayLike, NDArray

from adaptive_dp.numerics.search import bisect_increasing, last_true

__all__ = [
    "LEVEL",
    "MAX_LOSS_TOLERANCE",
    "POWER",
    "Estimate",
    "Quantity",
    "bernstein_bounds",
    "clopper_pearson",
    "detectable_exceedance",
    "detectable_ratio",
    "estimate_crossing",
    "estimate_hockey_stick",
    "estimate_max_loss",
    "estimate_tail",
    "estimate_truncated_mean",
    "hockey_stick_terms",
    "hoeffding_bounds",
    "lower_bound_if_observed",
    "required_samples",
]

LEVEL = 1e-6
"""Error probability of every one-sided confidence bound."""

POWER = 0.95
"""The probability with which a test flags its detectable violation."""

MAX_LOSS_TOLERANCE = 1e-9
"""Relative slack of the delta = 0 rule: violated iff some sampled L > eps (1 + 1e-9)."""

MAX_LOSS_FACTOR = 14.0
"""delta = 0 claims hold iff n >= 14 / delta_min (then (1 - delta_min)^n < e^-14 < LEVEL)."""


class Quantity(Enum):
    """What a claim bounds (docs/design.md, verification: quantities)."""

    TAIL = "tail"
    HOCKEY_STICK = "hockey-stick"
    CROSSING = "crossing"
    EVALUE = "e-value"
    MAX_LOSS = "max-loss"


@dataclass(frozen=True, slots=True)
class Estimate:
    """A point estimate with one-sided bounds at level ``1 - LEVEL``.

    ``exceed`` counts samples above the threshold (tail, crossing, max-loss);
    ``scale`` is the range bound K of a truncated e-value mean (1 otherwise).
    """

    quantity: Quantity
    samples: int
    estimate: float
    lower: float
    upper: float
    exceed: int = 0
    scale: float = 1.0


def clopper_pearson(k: int, n: int, level: float = LEVEL) -> tuple[float, float]:
    """One-sided Clopper-Pearson bounds (lower, upper), each at error ``level``."""
    if n <= 0:
        raise ValueError(f"n={n} is not allowed: expected at least one sample")
    if not 0 <= k <= n:
        raise ValueError(f"k={k} is not allowed: expected 0 <= k <= n={n}")
    from scipy.stats import beta  # lazily: scipy.stats takes half a second to import

    lower = 0.0 if k == 0 else float(beta.ppf(level, k, n - k + 1))
    upper = 1.0 if k == n else float(beta.ppf(1.0 - level, k + 1, n - k))
    return lower, upper


def bernstein_bounds(
    mean: float, variance: float, n: int, level: float = LEVEL
) -> tuple[float, float]:
    """Maurer-Pontil empirical Bernstein bounds (lower, upper) for a mean on [0, 1].

    ``variance`` is the unbiased sample variance V_n; each side has error ``level``.
    """
    if n < 2:
        return 0.0, 1.0
    log_term = math.log(2.0 / level)
    width = math.sqrt(2.0 * max(variance, 0.0) * log_term / n) + 7.0 * log_term / (3.0 * (n - 1))
    return max(0.0, mean - width), min(1.0, mean + width)


def hoeffding_bounds(
    mean: float, n: int, scale: float, level: float = LEVEL
) -> tuple[float, float]:
    """Hoeffding bounds (lower, upper) for a mean of samples in [0, scale]."""
    width = scale * math.sqrt(math.log(1.0 / level) / (2.0 * n))
    return max(0.0, mean - width), min(scale, mean + width)


def _as_array(values: ArrayLike) -> NDArray[np.float64]:
    array = np.asarray(values, dtype=np.float64).ravel()
    if array.size == 0:
        raise ValueError("no samples: expected at least one")
    if np.isnan(array).any():
        raise ValueError("samples contain NaN")
    return array


def estimate_tail(losses: ArrayLike, epsilon: float) -> Estimate:
    """P[L > epsilon] with Clopper-Pearson bounds."""
    array = _as_array(losses)
    k = int(np.count_nonzero(array > epsilon))
    n = array.size
    lower, upper = clopper_pearson(k, n)
    return Estimate(Quantity.TAIL, n, k / n, lower, upper, exceed=k)


def estimate_crossing(crossed: ArrayLike) -> Estimate:
    """P[exists n <= horizon: L_n > U_n] from one boolean per path (Clopper-Pearson)."""
    array = np.asarray(crossed, dtype=bool).ravel()
    if array.size == 0:
        raise ValueError("no samples: expected at least one")
    k = int(np.count_nonzero(array))
    n = array.size
    lower, upper = clopper_pearson(k, n)
    return Estimate(Quantity.CROSSING, n, k / n, lower, upper, exceed=k)


def hockey_stick_terms(losses: ArrayLike, epsilon: float) -> NDArray[np.float64]:
    """The samples ``(1 - e^(epsilon - L))_+`` in [0, 1] (0 where L <= epsilon)."""
    array = _as_array(losses)
    with np.errstate(over="ignore"):
        terms = -np.expm1(epsilon - array)
    return np.clip(terms, 0.0, 1.0)


def estimate_hockey_stick(losses: ArrayLike, epsilon: float) -> Estimate:
    """E[(1 - e^(epsilon - L))_+] with empirical Bernstein bounds (Maurer-Pontil)."""
    terms = hockey_stick_terms(losses, epsilon)
    n = terms.size
    mean = float(terms.mean())
    variance = float(terms.var(ddof=1)) if n > 1 else 0.0
    lower, upper = bernstein_bounds(mean, variance, n)
    return Estimate(Quantity.HOCKEY_STICK, n, mean, lower, upper,
                    exceed=int(np.count_nonzero(terms > 0)))


def estimate_truncated_mean(values: ArrayLike, cap: float) -> Estimate:
    """E[min(M, K)] for nonnegative e-values M, with Hoeffding bounds on [0, K]."""
    if not cap > 0 or not math.isfinite(cap):
        raise ValueError(f"cap={cap!r} is not allowed: expected a finite K > 0")
    array = _as_array(values)
    if (array < 0).any():
        raise ValueError("e-values must be nonnegative")
    truncated = np.minimum(array, cap)
    n = array.size
    mean = float(truncated.mean())
    lower, upper = hoeffding_bounds(mean, n, cap)
    return Estimate(Quantity.EVALUE, n, mean, lower, upper,
                    exceed=int(np.count_nonzero(array >= cap)), scale=cap)


def estimate_max_loss(losses: ArrayLike, epsilon: float) -> Estimate:
    """delta = 0 claims: count the samples with L > epsilon (1 + 1e-9).

    ``estimate`` is the largest sampled loss; ``lower`` equals it too (a sample is an
    exact witness), ``upper`` is +inf (a maximum has no upper confidence bound).
    """
    array = _as_array(losses)
    threshold = epsilon * (1.0 + MAX_LOSS_TOLERANCE) if epsilon > 0 else epsilon
    k = int(np.count_nonzero(array > threshold))
    top = float(array.max())
    return Estimate(Quantity.MAX_LOSS, array.size, top, top, math.inf, exceed=k)


def lower_bound_if_observed(quantity: Quantity, value: float, n: int,
                            scale: float = 1.0) -> float:
    """The lower confidence bound that an observed ``value`` would give with ``n`` samples."""
    if quantity in (Quantity.TAIL, Quantity.CROSSING):
        k = min(n, math.floor(value * n))
        return clopper_pearson(k, n)[0]
    if quantity is Quantity.HOCKEY_STICK:
        m = min(max(value, 0.0), 1.0)
        variance = m * (1.0 - m) * n / (n - 1) if n > 1 else 0.25
        return bernstein_bounds(m, variance, n)[0]
    if quantity is Quantity.EVALUE:
        return hoeffding_bounds(value, n, scale)[0]
    raise ValueError(f"quantity={quantity.value!r} has no lower bound rule")


def _flag_count(n: int, claimed: float) -> int | None:
    """The smallest count k whose Clopper-Pearson lower bound with n trials exceeds
    ``claimed`` (None if not even k = n does)."""

    def flagged(k: int) -> bool:
        return clopper_pearson(k, n)[0] > claimed

    if not flagged(n):
        return None
    # near P[Bin(n, claimed) > k] <= LEVEL, then gallop to an unflagged count (k = 0 is
    # one: its bound is 0) and a flagged one (k = n), and bisect between them
    from scipy.stats import binom  # lazily, as in clopper_pearson

    guess = min(n, max(0, int(binom.isf(LEVEL, n, claimed))))
    low, high, step = guess, guess, 1
    while flagged(low):
        low, step = max(0, low - step), 2 * step
    step = 1
    while not flagged(high):
        high, step = min(n, high + step), 2 * step
    return last_true(lambda k: not flagged(k), low, high) + 1


def _bernstein_quantile_gap(mu: float, n: int) -> float:
    """t with P[sample mean <= mu - t] <= 1 - POWER for n samples in [0, 1] of mean mu
    (Bernstein's inequality at the largest variance mu (1 - mu))."""
    log_term = math.log(1.0 / (1.0 - POWER))
    variance = mu * (1.0 - mu)
    return (log_term / 3.0 + math.sqrt(log_term**2 / 9.0 + 2.0 * n * log_term * variance)) / n


def detectable_ratio(quantity: Quantity, claimed: float, n: int, scale: float = 1.0) -> float:
    """The smallest r such that a true value r x ``claimed`` is flagged with probability
    at least :data:`POWER` with ``n`` samples (inf if none is): exact for tail and
    crossing, conservative (an upper bound on r) for hockey-stick and e-values."""
    if not claimed > 0:
        return math.inf
    if quantity in (Quantity.TAIL, Quantity.CROSSING):
        k = _flag_count(n, claimed)
        from scipy.stats import beta  # lazily, as in clopper_pearson

        return math.inf if k is None else float(beta.ppf(POWER, k, n - k + 1)) / claimed
    if quantity is Quantity.HOCKEY_STICK:
        if n < 2 or not lower_bound_if_observed(quantity, 1.0, n) > claimed:
            return math.inf
        # the largest sample mean not flagged; every larger mean is flagged
        unflagged = bisect_increasing(
            lambda m: lower_bound_if_observed(quantity, m, n), 0.0, 1.0, claimed)
        mu = bisect_increasing(lambda m: m - _bernstein_quantile_gap(m, n), 0.0, 1.0, unflagged)
        return math.inf if mu >= 1.0 else mu / claimed
    if quantity is Quantity.EVALUE:
        width = math.sqrt(math.log(1.0 / LEVEL) / (2.0 * n))
        width += math.sqrt(math.log(1.0 / (1.0 - POWER)) / (2.0 * n))
        return (claimed + scale * width) / claimed
    raise ValueError(f"quantity={quantity.value!r} has no detectable ratio: "
                     "see detectable_exceedance")


def detectable_exceedance(n: int) -> float:
    """Max-loss claims: the smallest probability of a loss above epsilon that ``n``
    samples show (at least one exceedance) with probability :data:`POWER`."""
    return -math.expm1(math.log(1.0 - POWER) / n)


@lru_cache(maxsize=4096)
def required_samples(quantity: Quantity, claimed: float, target: float, scale: float = 1.0,
                     margin: float = 1.0) -> int:
    """``margin`` times the smallest n whose detectable ratio is at most ``target``.

    The n is found by doubling and bisection; the detectable ratio of a binomial test is
    not exactly monotone in n (the count k* moves in steps), so the result is then raised
    until its own ratio meets the target. Max-loss: ``ceil(margin 14 / delta_min)``
    (``claimed`` is delta_min; ``target`` is not used), the n at which a loss above
    epsilon of probability delta_min is missed with probability below e^-14 < LEVEL.
    """
    if quantity is Quantity.MAX_LOSS:
        if not claimed > 0:
            raise ValueError(f"delta_min={claimed!r} is not allowed: expected delta_min > 0")
        return math.ceil(margin * MAX_LOSS_FACTOR / claimed)
    if not claimed > 0:
        raise ValueError(f"claimed={claimed!r} is not allowed: expected a claimed value > 0")

    def powered(n: int) -> bool:
        return detectable_ratio(quantity, claimed, n, scale) <= target

    high = 16
    while not powered(high):
        high *= 2
        if high > 1 << 40:
            raise ValueError(f"claimed={claimed!r} cannot reach ratio {target}")
    # powered fails at high // 2 (or it would have stopped doubling) and holds at high
    n = math.ceil(margin * (last_true(lambda m: not powered(m), high // 2, high) + 1))
    while not powered(n):
        n += 1
    return n
