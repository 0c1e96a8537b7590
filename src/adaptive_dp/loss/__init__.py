"""Privacy-loss oracles built from mechanisms' densities (DESIGN principle 8).

Imports mechanisms only, never the guarantee conversions it judges.
"""

from adaptive_dp.loss.base import PrivacyLossDistribution
from adaptive_dp.loss.distribution import pld
from adaptive_dp.loss.gaussian import (
    GaussianPLD,
    compose_gaussian,
    gaussian_hockey_stick,
    gaussian_hockey_stick_mp,
)
from adaptive_dp.loss.privacy_loss import privacy_loss

__all__ = [
    "GaussianPLD",
    "PrivacyLossDistribution",
    "compose_gaussian",
    "gaussian_hockey_stick",
    "gaussian_hockey_stick_mp",
    "pld",
    "privacy_loss",
]
