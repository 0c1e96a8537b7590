"""Negative controls of the time-uniform boundaries and of the Gaussian RDP curve, each a
valid bound with one named defect, run in the scenarios of
:mod:`adaptive_dp.verify.registry.claims.boundaries`:

- :func:`order_one_gaussian_rdp` (of EXT-GaussianRDP): the order factor dropped,
  Delta^2 / (2 sigma^2) at every order (the order-1 value, the KL divergence). At
  alpha = 3, sigma = 1 its moment is E[exp(2 (L - 1/2))] = e^2 against the claimed 1, and
  the mean truncated at K = 10 is 2.71.
- :class:`NoVolumeMixture` (of EXT-HRMS21NormalMixture, any form): the mixture's volume
  factor sqrt((V + rho)/rho) dropped from the logarithm, leaving a boundary of order
  sqrt(V) that the law of the iterated logarithm crosses eventually (crossing
  probability about 0.33 one-sided closed, 0.34 one-sided exact, 0.37 two-sided, at
  rho = 1, delta = 0.05, in the geometric scenario).
- :class:`NoSplitStitching` (of EXT-HRMS21Stitching): the union bound over the epochs
  dropped, every epoch at the full delta: ``k_1 sqrt(V log(1/delta))`` (crossing
  probability about 0.21 at delta = 0.05 in the geometric scenario).

``tests/evalues/test_boundaries_claims.py`` estimates the crossing probabilities with
long simulations and computes the truncated moment exactly.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from adaptive_dp.evalues.boundaries import (
    HowardStitching,
    NormalMixtureBoundary,
    half_normal_mixture_root,
)
from adaptive_dp.guarantees.definitions import RDP
from adaptive_dp.numerics import ExactLike, exact_nonnegative, exact_positive
from adaptive_dp.numerics.floats import Real

__all__ = ["NoSplitStitching", "NoVolumeMixture", "order_one_gaussian_rdp"]


def order_one_gaussian_rdp(sensitivity: ExactLike, sigma: ExactLike, alpha: ExactLike) -> RDP:
    """Twin of EXT-GaussianRDP: "Delta^2 / (2 sigma^2)" at order alpha (factor alpha dropped)."""
    s = exact_nonnegative(sensitivity, "sensitivity")
    sg = exact_positive(sigma, "sigma")
    return RDP(alpha, s**2 / (2 * sg**2))


@dataclass(frozen=True, slots=True)
class NoVolumeMixture:
    """Twin of EXT-HRMS21NormalMixture: ``boundary`` without sqrt((V + rho)/rho):
    sqrt(2 (V + rho) log(1/(2 delta) + 1)) one-sided, sqrt(2 (V + rho) log(1/delta))
    two-sided, sqrt(V + rho) x with x^2/2 + log(2 Phi(x)) = log(1/delta) one-sided exact."""

    boundary: NormalMixtureBoundary

    @property
    def delta(self) -> Fraction:
        return self.boundary.delta

    def threshold_float(self, v: Real) -> Real:
        b = self.boundary
        w = np.asarray(v) + float(b.rho)
        if b.form == "exact":
            out: Real = np.sqrt(w) * half_normal_mixture_root(-math.log(float(b.delta)))
            return out
        inner = (math.log(1 / (2 * float(b.delta)) + 1) if b.sides == "one"
                 else -math.log(float(b.delta)))
        out = np.sqrt(2 * w * inner)
        return out


@dataclass(frozen=True, slots=True)
class NoSplitStitching:
    """Twin of EXT-HRMS21Stitching: ``boundary``'s k_1 sqrt(V log(1/delta)), each epoch
    at the full delta (the split delta_k = delta / (zeta(s) (k+1)^s) dropped)."""

    boundary: HowardStitching

    @property
    def delta(self) -> Fraction:
        return self.boundary.delta

    def threshold_float(self, v: Real, start: Real) -> Real:
        out: Real = self.boundary.scale * np.sqrt(np.asarray(v) * -math.log(float(self.delta)))
        return out
