"""One step of an odometer: the conditional-mean bounds of a pure and of a pDP step, and
the conversion that admits an approximate-DP step (docs/derivations.md, sections 2.2, 2.7
and 2.8; proofs W23-PureStepMean, W23-ClippedPDPStep, W23-ApproxToPDP).

The W23 odometers (:mod:`adaptive_dp.odometers.w23`) charge the simpler drift
1/2 V_n + Delta_n, which dominates the sum of these per-step bounds; the RRUV16 odometer
(:mod:`adaptive_dp.odometers.rruv16`) charges epsilon (e^epsilon - 1) / 2, which dominates
:func:`pure_step_mean_bound`. Bounds are certified and rounded up.
"""

from __future__ import annotations

from flint import arb

from adaptive_dp.errors import DeltaRangeError
from adaptive_dp.guarantees.definitions import ApproxDP, ProbabilisticDP
from adaptive_dp.numerics import (
    ExactLike,
    arb_of,
    ball_upper,
    enclose,
    exact_delta,
    exact_nonnegative,
    exact_positive,
    exact_upper,
)

__all__ = ["approx_to_pdp", "clipped_pdp_step_mean_bound", "pure_step_mean_bound"]


def _tanh_half(e: arb) -> arb:
    """epsilon tanh(epsilon / 2) = epsilon (cosh epsilon - 1) / sinh epsilon."""
    return e * (e / 2).tanh()


def pure_step_mean_bound(epsilon: ExactLike) -> float:
    """W23-PureStepMean: a conditionally epsilon-DP step's loss has conditional mean (the
    KL divergence of the step) "E[l | past] <= epsilon tanh(epsilon/2) <= epsilon^2/2",
    with equality in the first for randomized response. Returns epsilon tanh(epsilon/2),
    rounded up."""
    e = exact_nonnegative(epsilon, "epsilon")
    return ball_upper(enclose(lambda: _tanh_half(arb_of(e))))


def clipped_pdp_step_mean_bound(epsilon: ExactLike, delta: ExactLike) -> float:
    """W23-ClippedPDPStep: for a conditionally (epsilon, delta)-pDP step (both orders of
    the pair), the loss clipped to [-epsilon, epsilon] has conditional mean
    "<= epsilon tanh(epsilon/2) + delta epsilon / sinh(epsilon)", attained. Returns that
    bound, rounded up (0 at epsilon = 0, where the clipped loss is 0)."""
    e = exact_nonnegative(epsilon, "epsilon")
    d = exact_delta(delta, "delta")
    if e == 0:
        return 0.0

    def bound() -> arb:
        x = arb_of(e)
        return _tanh_half(x) + arb_of(d) * x / x.sinh()

    return ball_upper(enclose(bound))


def approx_to_pdp(spend: ApproxDP, t: ExactLike) -> ProbabilisticDP:
    """W23-ApproxToPDP: an (epsilon, delta)-DP step enters an odometer only as
    "(epsilon + t, delta / (1 - e^{-t}))-pDP", with t > 0 fixed before the step runs (both
    orders: DP is quantified over ordered pairs). The delta is rounded up to an exact
    rational; DeltaRangeError if it is not below 1 (the conversion says nothing)."""
    slack = exact_positive(t, "t")
    if spend.delta == 0:
        return ProbabilisticDP(spend.epsilon + slack, 0)
    delta = exact_upper(enclose(lambda: arb_of(spend.delta) / -(-arb_of(slack)).expm1()))
    if delta >= 1:
        raise DeltaRangeError("t", slack, f"delta / (1 - exp(-t)) < 1 (delta={spend.delta})")
    return ProbabilisticDP(spend.epsilon + slack, delta)

