"""Negative controls of the odometer step lemmas (:mod:`adaptive_dp.odometers.steps`), each
the valid bound or conversion with one named defect:

- :func:`half_prefactor_mean_bound` (W23-PureStepMean): "(epsilon/2) tanh(epsilon/2)", the
  prefactor epsilon halved (about epsilon^2/4); randomized response's mean loss is exactly
  twice it.
- :func:`no_delta_clipped_mean_bound` (W23-ClippedPDPStep): "epsilon tanh(epsilon/2)", the
  delta term dropped; the attaining pair with delta >= cosh(epsilon) - 1 has at least twice
  this clipped mean.
- :func:`undivided_approx_to_pdp` (W23-ApproxToPDP): "(epsilon + t, delta)-pDP", delta not
  divided by 1 - e^{-t}; the two-point pair of the claim has a tail of about
  delta / (1 - e^{-t}), ten times delta at t = 0.1.
"""

from __future__ import annotations

from adaptive_dp.guarantees.definitions import ApproxDP, ProbabilisticDP
from adaptive_dp.numerics import ExactLike, exact_positive
from adaptive_dp.odometers.steps import clipped_pdp_step_mean_bound, pure_step_mean_bound

__all__ = ["half_prefactor_mean_bound", "no_delta_clipped_mean_bound", "undivided_approx_to_pdp"]


def half_prefactor_mean_bound(epsilon: ExactLike) -> float:
    """Twin of W23-PureStepMean: the bound with its prefactor epsilon halved."""
    return pure_step_mean_bound(epsilon) / 2


def no_delta_clipped_mean_bound(epsilon: ExactLike, delta: ExactLike) -> float:
    """Twin of W23-ClippedPDPStep: the bound without the delta epsilon / sinh(epsilon) term."""
    return clipped_pdp_step_mean_bound(epsilon, 0)


def undivided_approx_to_pdp(spend: ApproxDP, t: ExactLike) -> ProbabilisticDP:
    """Twin of W23-ApproxToPDP: delta kept as it is instead of delta / (1 - e^{-t})."""
    return ProbabilisticDP(spend.epsilon + exact_positive(t, "t"), spend.delta)
