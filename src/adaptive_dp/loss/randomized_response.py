"""Privacy-loss distributions of binary randomized response (EXT-RandomizedResponse).

From the pmfs (checked against ``privacy_loss`` in tests): with p = e^eps / (1 + e^eps),
on the pair bit 0 (P) and bit 1 (Q), the report y = 0 has loss log(p / (1 - p)) = eps
with P-probability p, and y = 1 has loss -eps with P-probability 1 - p. The k-fold
composition counts the truthful reports J ~ Binomial(k, p): L = (2J - k) eps, exactly.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import gammaln

from adaptive_dp.errors import NegativeParameterError, ParameterError, ParameterTypeError
from adaptive_dp.loss.base import finite_float
from adaptive_dp.loss.discrete import DiscretePLD

__all__ = ["rr_composed_pld", "rr_pld"]


def _epsilon(epsilon: object) -> float:
    e = finite_float(epsilon, "epsilon")
    if e < 0:
        raise NegativeParameterError("epsilon", epsilon, "a number >= 0")
    return e


def rr_pld(epsilon: object) -> DiscretePLD:
    """EXT-RandomizedResponse: L = eps w.p. e^eps / (1 + e^eps), -eps otherwise."""
    e = _epsilon(epsilon)
    log_p = -math.log1p(math.exp(-e))
    return DiscretePLD([e, -e], [log_p, log_p - e])


def rr_composed_pld(epsilon: object, k: int) -> DiscretePLD:
    """EXT-RandomizedResponse, k-fold: L = (2J - k) eps, J ~ Binomial(k, p), exact.

    P[J = j] = C(k, j) p^j (1 - p)^{k - j} evaluated in log space (``gammaln``).
    """
    e = _epsilon(epsilon)
    if isinstance(k, bool) or not isinstance(k, int):
        raise ParameterTypeError("k", k, "an int")
    if k < 1:
        raise ParameterError("k", k, "an integer k >= 1")
    log_p = -math.log1p(math.exp(-e))
    log_q = log_p - e
    j = np.arange(k + 1, dtype=np.float64)
    log_binom = gammaln(k + 1.0) - gammaln(j + 1.0) - gammaln(k - j + 1.0)
    log_probs = log_binom + j * log_p + (k - j) * log_q
    return DiscretePLD(((2 * j - k) * e).tolist(), log_probs.tolist())
