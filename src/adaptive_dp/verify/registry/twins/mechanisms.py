"""Negative controls of the mechanisms' calibrations, one overridden hook each.

- :class:`HalvedScaleLaplace` (of R23-Lem2.1): scale Delta / (2 epsilon).
- :class:`VarianceAsSigmaGaussian` (of R23-Lem2.2): the variance Delta^2 / (2 rho) used
  as the standard deviation (for rho = 2: sigma 1/4 instead of 1/2).
- :class:`DoubledEpsilonRR` (of EXT-RandomizedResponse): the truth reported with the
  probability of 2 epsilon.
"""

from __future__ import annotations

from dataclasses import dataclass

from adaptive_dp.mechanisms import GaussianMechanism, LaplaceMechanism, RandomizedResponse
from adaptive_dp.verify.registry.bounds import (
    GaussianCalibration,
    LaplaceCalibration,
    RRCalibration,
)

__all__ = ["DoubledEpsilonRR", "HalvedScaleLaplace", "VarianceAsSigmaGaussian"]


@dataclass(frozen=True, slots=True)
class HalvedScaleLaplace(LaplaceCalibration):
    """Twin of R23-Lem2.1: the Laplace scale halved."""

    def _mechanism(self) -> LaplaceMechanism:
        valid = LaplaceCalibration._mechanism(self)
        return LaplaceMechanism(valid.sensitivity, valid.scale / 2)


@dataclass(frozen=True, slots=True)
class VarianceAsSigmaGaussian(GaussianCalibration):
    """Twin of R23-Lem2.2: sigma = Delta^2 / (2 rho), the variance, as the deviation."""

    def _mechanism(self) -> GaussianMechanism:
        return GaussianMechanism(1, 1 / (2 * self.rho))


@dataclass(frozen=True, slots=True)
class DoubledEpsilonRR(RRCalibration):
    """Twin of EXT-RandomizedResponse: the mechanism built with 2 epsilon."""

    def _mechanism(self) -> RandomizedResponse:
        return RandomizedResponse(2 * self.epsilon)
