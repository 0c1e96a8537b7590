"""Negative controls of the relative-error application, one overridden hook each.

- :class:`HalvedScaleExponential` (of EXT-CR21): the Gumbel scale halved, so the
  selection has range 2 epsilon, while it is still charged epsilon^2/8 (the charge of an
  epsilon-bounded-range mechanism).
- :class:`InvertedScaleExponential` (of R23-DoublingMethod, R23-BrownianRelativeError):
  the Gumbel scale epsilon / sensitivity instead of sensitivity / epsilon (16 times too
  small at epsilon = 1/4), still charged epsilon^2/8.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from adaptive_dp.mechanisms.exponential import ExponentialMechanism, range_sensitivity

__all__ = ["HalvedScaleExponential", "InvertedScaleExponential"]


@dataclass(frozen=True, slots=True, init=False)
class HalvedScaleExponential(ExponentialMechanism):
    """Twin of EXT-CR21: Gumbel scale calibrated to range 2 epsilon (half the valid scale),
    guarantee still ZCDP(epsilon^2/8)."""

    def _range(self) -> Fraction:
        return 2 * self.epsilon


@dataclass(frozen=True, slots=True, init=False)
class InvertedScaleExponential(ExponentialMechanism):
    """Twin of R23-DoublingMethod and R23-BrownianRelativeError: the rounds' exponential
    mechanism with its Gumbel scale inverted, epsilon / sensitivity instead of
    sensitivity / epsilon (a range of sensitivity^2 / epsilon), still charged epsilon^2/8."""

    def _range(self) -> Fraction:
        return range_sensitivity(self.relation) ** 2 / self.epsilon
