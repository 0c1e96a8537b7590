"""Noise calibration: the smallest admissible noise scale, rounded UP (docs/design.md, principle 5).

Spec ids: R23-Lem2.1 (Laplace), R23-Lem2.2 (Gaussian, zCDP), CS2080-GaussianSigma.
"""

from __future__ import annotations

from flint import arb

from adaptive_dp.errors import CalibrationRangeError
from adaptive_dp.numerics import (
    ExactLike,
    arb_of,
    ball_upper,
    enclose,
    exact_delta,
    exact_nonnegative,
    exact_positive,
    round_up,
)

__all__ = ["gaussian_sigma_cs2080", "gaussian_sigma_zcdp", "laplace_scale"]


def laplace_scale(sensitivity: ExactLike, epsilon: ExactLike) -> float:
    """R23-Lem2.1: "the Laplace mechanism with scale Delta_1(f)/epsilon is epsilon-DP".

    The scale Delta_1/epsilon as the smallest float >= it (epsilon > 0)."""
    s = exact_nonnegative(sensitivity, "sensitivity")
    e = exact_positive(epsilon, "epsilon")
    return round_up(s / e)


def gaussian_sigma_zcdp(sensitivity: ExactLike, rho: ExactLike) -> float:
    """R23-Lem2.2 (Bun-Steinke): "the Gaussian mechanism N(f(x), sigma^2) is
    Delta_2(f)^2 / (2 sigma^2)-zCDP", so sigma = Delta_2 / sqrt(2 rho) gives rho-zCDP.

    Certified and rounded up (rho > 0)."""
    s = exact_nonnegative(sensitivity, "sensitivity")
    r = exact_positive(rho, "rho")
    return ball_upper(enclose(lambda: arb_of(s) / (2 * arb_of(r)).sqrt()))


def gaussian_sigma_cs2080(gs: ExactLike, epsilon: ExactLike, delta: ExactLike) -> float:
    """CS2080-GaussianSigma (slide 12): "sigma = GS_q / epsilon * sqrt(2 ln(2/delta))".

    The slide states no range, but the formula is not a valid (epsilon, delta)
    calibration for large epsilon (the exact Gaussian delta exceeds delta at epsilon = 10,
    delta = 1e-5). It is applied only for 0 < epsilon <= 1 (the classical condition),
    else ``CalibrationRangeError``. Requires 0 < delta < 1. Certified and rounded up.
    """
    g = exact_nonnegative(gs, "gs")
    e = exact_positive(epsilon, "epsilon")
    d = exact_delta(delta, "delta", allow_zero=False)
    if e > 1:
        raise CalibrationRangeError("epsilon", epsilon, "0 < epsilon <= 1 (CS2080-GaussianSigma)")

    def evaluate() -> arb:
        return arb_of(g) / arb_of(e) * (2 * (2 / arb_of(d)).log()).sqrt()

    return ball_upper(enclose(evaluate))
