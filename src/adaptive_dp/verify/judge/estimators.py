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

The power rule (see :mod:`adaptive_dp.verify.judge.verdicts`) asks what lower bound an
observed value ``2 delta`` would give with the same ``n``: :func:`lower_bound_if_observed`.
For the hockey-stick the hypothetical sample variance is the largest one a ``[0, 1]``
sample of mean ``m`` can have, ``m (1 - m) n / (n - 1)``, so the power statement is
conservative.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.stats import beta

from adaptive_dp.numerics.search import last_true

__all__ = [
    "LEVEL",
    "MAX_LOSS_TOLERANCE",
    "Estimate",
    "Quantity",
    "bernstein_bounds",
    "clopper_pearson",
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


def required_samples(quantity: Quantity, delta: float, scale: float = 1.0,
                     safety: float = 1.0) -> int:
    """The smallest n at which the power rule holds for ``delta``, times ``safety``.

    Tail, crossing and hockey-stick: the smallest n with
    ``lower_bound_if_observed(2 delta, n) > delta``; e-values: power to flag 1.1 against
    the claimed 1 (``delta`` is ignored); max-loss: ``ceil(14 / delta_min)``.
    """
    if quantity is Quantity.MAX_LOSS:
        return math.ceil(safety * MAX_LOSS_FACTOR / delta)
    if quantity is Quantity.EVALUE:
        claimed, flagged = 1.0, 1.1
    else:
        claimed, flagged = delta, 2.0 * delta
    if not claimed > 0:
        raise ValueError(f"delta={delta!r} is not allowed: expected delta > 0")

    def powered(n: int) -> bool:
        return lower_bound_if_observed(quantity, flagged, n, scale) > claimed

    high = 16
    while not powered(high):
        high *= 2
        if high > 1 << 40:
            raise ValueError(f"delta={delta!r} cannot be powered")
    # powered fails at high // 2 (or it would have stopped doubling) and holds at high
    smallest = last_true(lambda n: not powered(n), high // 2, high) + 1
    return math.ceil(safety * smallest)
