"""Privacy-loss oracles built from mechanisms' densities (docs/design.md, principle 8).

Imports mechanisms only, never the guarantee conversions it judges.
"""

from adaptive_dp.loss.base import PrivacyLossDistribution
from adaptive_dp.loss.discrete import DiscretePLD, compose_discrete
from adaptive_dp.loss.distribution import pld
from adaptive_dp.loss.gaussian import (
    GaussianPLD,
    compose_gaussian,
    gaussian_hockey_stick,
    gaussian_hockey_stick_mp,
)
from adaptive_dp.loss.laplace import (
    LaplacePLD,
    laplace_composed_hockey_stick,
    laplace_composed_hockey_stick_mp,
    laplace_composed_tail,
    laplace_composed_tail_mp,
)
from adaptive_dp.loss.privacy_loss import privacy_loss
from adaptive_dp.loss.randomized_response import rr_composed_pld, rr_pld

__all__ = [
    "DiscretePLD",
    "GaussianPLD",
    "LaplacePLD",
    "PrivacyLossDistribution",
    "compose_discrete",
    "compose_gaussian",
    "gaussian_hockey_stick",
    "gaussian_hockey_stick_mp",
    "laplace_composed_hockey_stick",
    "laplace_composed_hockey_stick_mp",
    "laplace_composed_tail",
    "laplace_composed_tail_mp",
    "pld",
    "privacy_loss",
    "rr_composed_pld",
    "rr_pld",
]
