"""Mechanisms: densities, samplers and fixed guarantees (imports guarantees, numerics, errors).

R23-Def2.2 Laplace, R23-Def2.5 Gaussian, EXT-RandomizedResponse binary randomized response.
"""

from adaptive_dp.mechanisms.base import Mechanism
from adaptive_dp.mechanisms.gaussian import GaussianMechanism, gaussian_logpdf, gaussian_sample
from adaptive_dp.mechanisms.laplace import LaplaceMechanism, laplace_logpdf, laplace_sample
from adaptive_dp.mechanisms.randomized_response import (
    RandomizedResponse,
    rr_logpmf,
    rr_sample,
    rr_truthful,
)

__all__ = [
    "GaussianMechanism",
    "LaplaceMechanism",
    "Mechanism",
    "RandomizedResponse",
    "gaussian_logpdf",
    "gaussian_sample",
    "laplace_logpdf",
    "laplace_sample",
    "rr_logpmf",
    "rr_sample",
    "rr_truthful",
]
