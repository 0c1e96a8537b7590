"""``PrivacyLossDistribution`` and its builder ``pld`` from a mechanism's densities.

``pld(mechanism, center, center_prime)`` returns the law of the privacy loss
L(Y; x, x') (R23-Def2.3), Y ~ M(x), for a mechanism whose query value is ``center``
on x and ``center_prime`` on x' (worst case: 0 and ``mechanism.sensitivity``).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from adaptive_dp.errors import NonFiniteError, ParameterTypeError
from adaptive_dp.loss.base import PrivacyLossDistribution, finite_float
from adaptive_dp.loss.discrete import DiscretePLD
from adaptive_dp.loss.gaussian import GaussianPLD
from adaptive_dp.loss.laplace import LaplacePLD
from adaptive_dp.loss.randomized_response import rr_pld
from adaptive_dp.mechanisms.base import Mechanism, bit_array
from adaptive_dp.mechanisms.gaussian import GaussianMechanism
from adaptive_dp.mechanisms.laplace import LaplaceMechanism
from adaptive_dp.mechanisms.randomized_response import RandomizedResponse

__all__ = ["PrivacyLossDistribution", "pld"]


def pld(
    mechanism: Mechanism,
    center: ArrayLike = 0,
    center_prime: ArrayLike | None = None,
) -> PrivacyLossDistribution:
    """R23-Def2.3: the privacy-loss distribution of ``mechanism`` on a pair of neighbours.

    ``center_prime`` defaults to ``mechanism.sensitivity`` (with ``center`` = 0, the
    worst-case pair for a scalar query). Gaussian mechanisms also take vector query
    values (the loss of the product density is Gaussian with ``mu = ||c - c'||_2 / sigma``);
    the others take scalars. The family of each law is derived from the
    mechanism's densities in the module of that PLD (Gaussian: N(mu^2/2, mu^2) with
    ``mu = |c - c'| / sigma``; Laplace: atoms at ``+-|c - c'| / b`` plus a continuous part;
    randomized response: two atoms +-eps, or the point 0 when the bits agree).
    """
    if isinstance(mechanism, GaussianMechanism):
        # vector queries: the loss of the product density has mu = ||c - c'||_2 / sigma
        ca = np.asarray(center, dtype=np.float64)
        cpa = np.asarray(
            float(mechanism.sensitivity) if center_prime is None else center_prime,
            dtype=np.float64,
        )
        if not (np.all(np.isfinite(ca)) and np.all(np.isfinite(cpa))):
            raise NonFiniteError("center", (center, center_prime), "finite query values")
        distance = float(np.linalg.norm(np.broadcast_to(ca - cpa, np.broadcast(ca, cpa).shape)))
        return GaussianPLD(distance / float(mechanism.sigma))
    c = finite_float(center, "center")
    cp = finite_float(
        mechanism.sensitivity if center_prime is None else center_prime, "center_prime"
    )
    if isinstance(mechanism, LaplaceMechanism):
        return LaplacePLD(abs(c - cp) / float(mechanism.scale))
    if isinstance(mechanism, RandomizedResponse):
        bit_array(c, "center")
        bit_array(cp, "center_prime")
        if c == cp:
            return DiscretePLD([0.0], [0.0])
        return rr_pld(float(mechanism.epsilon))
    raise ParameterTypeError(
        "mechanism", mechanism, "a GaussianMechanism, LaplaceMechanism or RandomizedResponse"
    )
