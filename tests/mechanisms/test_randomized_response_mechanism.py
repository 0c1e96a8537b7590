"""EXT-RandomizedResponse: binary randomized response is ln(p / (1 - p))-DP."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from adaptive_dp.errors import NegativeParameterError, NonFiniteError, ParameterError
from adaptive_dp.guarantees.definitions import PureDP
from adaptive_dp.mechanisms import RandomizedResponse, rr_logpmf, rr_sample, rr_truthful


def test_fields() -> None:
    m = RandomizedResponse("0.25")
    assert m.epsilon == Fraction(1, 4) and m.sensitivity == 1
    assert m.guarantee() == PureDP(Fraction(1, 4))


@pytest.mark.parametrize(
    ("eps", "error"), [(-1, NegativeParameterError), (math.inf, NonFiniteError)]
)
def test_validation(eps: object, error: type[Exception]) -> None:
    with pytest.raises(error):
        RandomizedResponse(eps)  # type: ignore[arg-type]  # invalid on purpose


def test_pmf_sums_to_one_and_values() -> None:
    for eps in [0.0, 0.3, 5.0, 40.0]:
        for bit in (0.0, 1.0):
            probs = np.exp(rr_logpmf(np.array([0.0, 1.0]), bit, eps))
            assert probs.sum() == pytest.approx(1.0, abs=1e-15)
            assert probs[int(bit)] == pytest.approx(math.exp(eps) / (1 + math.exp(eps)), rel=1e-14)
    assert rr_logpmf(0.5, 0.0, 1.0) == -np.inf


def test_ln3_worst_case_log_ratio_is_exactly_ln3() -> None:
    """EXT-RandomizedResponse with epsilon = ln 3: p = 3/4, the worst log-ratio is ln 3."""
    m = RandomizedResponse(math.log(3))
    y = np.array([0.0, 1.0])
    ratio = m.logpdf(y, 0.0) - m.logpdf(y, 1.0)
    assert np.exp(m.logpdf(0.0, 0.0)) == pytest.approx(0.75, rel=1e-15)
    assert np.max(np.abs(ratio)) == pytest.approx(math.log(3), rel=1e-15)
    # a smaller claimed epsilon fails the pure-DP inequality at y = 0
    assert np.max(ratio) > math.log(3) - 0.01


def test_rejects_bad_center() -> None:
    with pytest.raises(ParameterError):
        RandomizedResponse(1).sample(np.array([0.0, 2.0]), np.random.default_rng())


def test_sampler_frequency() -> None:
    m = RandomizedResponse(1)
    n = 40_000
    y = m.sample(np.ones(n), np.random.default_rng(5))
    k = int(y.sum())
    p = math.e / (1 + math.e)
    ci = stats.binomtest(k, n).proportion_ci(confidence_level=1 - 1e-6)
    assert ci.low <= p <= ci.high
    assert set(np.unique(y)) <= {0.0, 1.0}


@pytest.mark.parametrize("bit", [0.0, 1.0])
@pytest.mark.parametrize("eps", [0.0, 0.1, 2.5])
def test_truthful_flags_are_the_sampler_draws(bit: float, eps: float) -> None:
    shape = (37, 11)
    reports = rr_sample(bit, np.full(shape, eps), np.random.default_rng(8))
    buffer = np.empty(shape)
    for out in (None, buffer):
        rng = np.random.default_rng(8)
        truthful = rr_truthful(eps, shape, rng, out=out)
        assert truthful.shape == shape and truthful.dtype == np.bool_
        np.testing.assert_array_equal(np.where(truthful, bit, 1.0 - bit), reports)
    k, n = int(truthful.sum()), truthful.size
    ci = stats.binomtest(k, n).proportion_ci(confidence_level=1 - 1e-6)
    assert ci.low <= math.exp(eps) / (1 + math.exp(eps)) <= ci.high


@pytest.mark.parametrize("eps", [-0.1, math.nan, math.inf])
def test_truthful_flags_refuse_bad_epsilon(eps: float) -> None:
    with pytest.raises((NegativeParameterError, NonFiniteError)):
        rr_truthful(eps, (3,), np.random.default_rng(0))
