"""Negative controls of the relative-error application, one overridden hook each.

- :class:`HalvedScaleExponential` (of EXT-CR21): the Gumbel scale halved, so the
  selection has range 2 epsilon, while it is still charged epsilon^2/8 (the charge of an
  epsilon-bounded-range mechanism).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from adaptive_dp.mechanisms.exponential import ExponentialMechanism

__all__ = ["HalvedScaleExponential"]


@dataclass(frozen=True, slots=True, init=False)
class HalvedScaleExponential(ExponentialMechanism):
    """Twin of EXT-CR21: Gumbel scale calibrated to range 2 epsilon (half the valid scale),
    guarantee still ZCDP(epsilon^2/8)."""

    def _range(self) -> Fraction:
        return 2 * self.epsilon
