"""Negative controls of calibrations and group privacy, one overridden hook each.

- :class:`UnrestrictedCS2080Sigma` (CS2080-GaussianSigma-Printed): the slide's
  sigma = GS sqrt(2 ln(2/delta)) / epsilon as printed, without the range 0 < epsilon <= 1.
  It reuses the valid calculator through the formula's homogeneity,
  sigma(GS, epsilon, delta) = sigma(GS / epsilon, 1, delta), so only the range check is
  bypassed. At epsilon = 10, delta = 0.05 the exact Gaussian delta is about 0.13.
- :class:`GroupSizeMinusOne` (of CS2080-GroupPrivacy): (k - 1) epsilon for a group of k.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from adaptive_dp.verify.registry.bounds import CS2080Sigma, GroupPrivacy

__all__ = ["GroupSizeMinusOne", "UnrestrictedCS2080Sigma"]


@dataclass(frozen=True, slots=True)
class UnrestrictedCS2080Sigma(CS2080Sigma):
    """CS2080-GaussianSigma-Printed: the calibration applied for any epsilon > 0."""

    def _sigma(self) -> float:
        from adaptive_dp.guarantees.calibration import gaussian_sigma_cs2080

        return gaussian_sigma_cs2080(Fraction(1) / self.epsilon, 1, self.delta)


@dataclass(frozen=True, slots=True)
class GroupSizeMinusOne(GroupPrivacy):
    """Twin of CS2080-GroupPrivacy: the group size k - 1 instead of k."""

    def _k(self) -> int:
        return self.k - 1
