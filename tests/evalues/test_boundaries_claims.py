"""The experiments and twins of the boundary and Gaussian RDP claims
(verify/registry/claims/boundaries.py): EXT-GaussianRDP, EXT-HRMS21NormalMixture,
EXT-HRMS21Stitching. The quick claims themselves run in tests/statistical/test_claims.py;
here: the oracles against independent computations, and each twin's true value at least
twice its claim."""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from numpy.typing import NDArray
from scipy.stats import norm

from adaptive_dp.evalues.boundaries import HowardStitching, NormalMixtureBoundary
from adaptive_dp.guarantees.rdp import gaussian_rdp
from adaptive_dp.numerics.floats import Real
from adaptive_dp.verify.judge.estimators import clopper_pearson
from adaptive_dp.verify.registry.claims.boundaries import LossWalkCrossing, RenyiMoment
from adaptive_dp.verify.registry.twins.boundaries import (
    NoSplitStitching,
    NoVolumeMixture,
    order_one_gaussian_rdp,
)

K = 10.0


def _truncated_lognormal_mean(mean: float, sd: float, cap: float) -> float:
    """E[min(e^Z, cap)] for Z ~ N(mean, sd^2), in closed form."""
    log_cap = math.log(cap)
    below = math.exp(mean + sd**2 / 2) * float(norm.cdf((log_cap - mean - sd**2) / sd))
    return below + cap * float(norm.sf((log_cap - mean) / sd))


def _moment_law(alpha: float, epsilon: float) -> tuple[float, float]:
    """log of exp((alpha - 1)(L - eps)) for L ~ N(1/2, 1), the loss of N(0, 1) vs N(1, 1)."""
    return (alpha - 1) * (0.5 - epsilon), alpha - 1


def test_renyi_moment_is_exactly_one_at_the_gaussian_rdp() -> None:
    """EXT-GaussianRDP: E_P[(p/q)^(alpha-1)] = exp((alpha-1) alpha/2) by quadrature, i.e. the
    moment of the claim is exactly 1 (untruncated); truncated at K = 10 it is 0.990."""
    rdp = gaussian_rdp(1, 1, 2)
    with mpmath.workdps(30):
        a = mpmath.mpf(2)
        moment = mpmath.quad(lambda y: mpmath.npdf(y, 0, 1) ** a * mpmath.npdf(y, 1, 1) ** (1 - a),
                             [-mpmath.inf, mpmath.inf])
        assert moment * mpmath.exp(-(a - 1) * mpmath.mpf(float(rdp.epsilon))) == pytest.approx(1)
    assert _truncated_lognormal_mean(*_moment_law(2, float(rdp.epsilon)), K) < 1


def test_renyi_moment_oracle_matches_the_lognormal_law() -> None:
    """The experiment (loss from the release densities) has the law of the closed form, in
    both orders."""
    rng = np.random.default_rng(11)
    for under in ("x", "x'"):
        samples = np.minimum(RenyiMoment(1.0, 2.0, 1.0)(200_000, rng, under), K)
        exact = _truncated_lognormal_mean(*_moment_law(2, 1.0), K)
        assert abs(samples.mean() - exact) < 5 * samples.std() / math.sqrt(samples.size)


def test_order_one_twin_is_at_least_twice_its_claim() -> None:
    """EXT-GaussianRDP's twin at alpha = 3, sigma = 1: eps = 1/2, truncated mean 2.71 >= 2."""
    twin = order_one_gaussian_rdp(1, 1, 3)
    assert twin.epsilon == Fraction(1, 2)
    assert _truncated_lognormal_mean(*_moment_law(3, 0.5), K) >= 2


def _crossing(boundary: Callable[[NDArray[np.float64]], Real], two_sided: bool, paths: int,
              seed: int) -> tuple[float, float]:
    crossed = LossWalkCrossing(boundary, (0.02, 0.02), two_sided=two_sided)(
        paths, np.random.default_rng(seed), "x")
    return clopper_pearson(int(crossed.sum()), paths)


def test_walk_oracle_final_value_is_standard_normal() -> None:
    """S_N / sqrt(V_N) of the geometric schedule is N(0, 1) (drift-free loss from the
    densities): a boundary active only at V_N = 1.02^699 crossing at one standard deviation
    has probability 1 - Phi(1)."""
    v_last = 1.02**699

    def last(v: NDArray[np.float64]) -> Real:
        out: Real = np.where(v >= v_last * (1 - 1e-9), math.sqrt(v_last), np.inf)
        return out

    lower, upper = _crossing(last, False, 4000, 3)
    assert lower <= float(norm.sf(1.0)) <= upper


@pytest.mark.parametrize("sides", ["one", "two"])
def test_no_volume_twin_crosses_at_least_twice_delta(sides: str) -> None:
    twin = NoVolumeMixture(NormalMixtureBoundary(1, delta="0.05", sides="one" if sides == "one"
                                                 else "two"))
    lower, _ = _crossing(twin.threshold_float, sides == "two", 6000, 5)
    assert lower >= 0.1


def test_no_split_twin_crosses_at_least_twice_delta() -> None:
    twin = NoSplitStitching(HowardStitching(delta="0.05", form="exact"))

    def boundary(v: NDArray[np.float64]) -> Real:
        return twin.threshold_float(v, 1.0)

    lower, _ = _crossing(boundary, False, 6000, 7)
    assert lower >= 0.1
