"""R23-Def2.2 (Laplace mechanism) and R23-Lem2.1 (Laplace is eps-DP): constructors,
calibration, density and sampler."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import integrate, stats

from adaptive_dp.errors import NegativeParameterError, NonFiniteError
from adaptive_dp.guarantees.definitions import PureDP
from adaptive_dp.mechanisms import LaplaceMechanism, laplace_logpdf


def test_from_epsilon_is_exact() -> None:
    """R23-Lem2.1: b = Delta / epsilon, exact."""
    m = LaplaceMechanism.from_epsilon("0.3", "0.1")
    assert m.scale == Fraction(3)
    assert m.guarantee() == PureDP(Fraction(1, 10))
    assert LaplaceMechanism(2, 8).epsilon == Fraction(1, 4)


@pytest.mark.parametrize(
    ("sens", "scale", "error"),
    [
        (0, 1, NegativeParameterError),
        (1, 0, NegativeParameterError),
        (1, "-2", NegativeParameterError),
        (math.inf, 1, NonFiniteError),
        (1, math.nan, NonFiniteError),
    ],
)
def test_validation(sens: object, scale: object, error: type[Exception]) -> None:
    with pytest.raises(error):
        LaplaceMechanism(sens, scale)  # type: ignore[arg-type]  # invalid on purpose


def test_from_epsilon_rejects_zero() -> None:
    with pytest.raises(NegativeParameterError):
        LaplaceMechanism.from_epsilon(1, 0)


def test_density_integrates_to_one() -> None:
    for scale, center in [(0.5, 0.0), (3.0, -2.0)]:
        f = lambda y, b=scale, c=center: math.exp(float(laplace_logpdf(y, c, b)))  # noqa: E731
        val, _ = integrate.quad(f, center - 60 * scale, center + 60 * scale, points=[center])
        assert val == pytest.approx(1.0, abs=1e-10)


def test_logpdf_matches_scipy() -> None:
    y = np.random.default_rng(4).normal(size=100) * 5
    m = LaplaceMechanism(1, "0.8")
    np.testing.assert_allclose(
        m.logpdf(y, 1.5), stats.laplace.logpdf(y, loc=1.5, scale=0.8), rtol=1e-13
    )


def test_pure_dp_ratio_bound() -> None:
    """R23-Lem2.1: |log p_0(y) - log p_Delta(y)| <= Delta / b for every y, attained."""
    m = LaplaceMechanism.from_epsilon(2, "0.5")
    y = np.linspace(-20, 20, 4001)
    ratio = m.logpdf(y, 0.0) - m.logpdf(y, 2.0)
    assert np.max(np.abs(ratio)) == pytest.approx(0.5, rel=1e-12)


def test_sampler_distribution() -> None:
    m = LaplaceMechanism(1, 2)
    y = m.sample(np.full(20_000, -1.0), np.random.default_rng(12))
    assert stats.kstest(y, stats.laplace(loc=-1.0, scale=2.0).cdf).pvalue > 1e-3


def test_paper_parameterisation() -> None:
    """R23-Def2.2: privacy parameter eps' means noise Lap(1/eps'); R23-Lem2.1: the
    mechanism is then Delta_1 eps'-DP."""
    m = LaplaceMechanism.from_privacy_parameter(3, "0.2")
    assert m.scale == 5 and m.guarantee() == PureDP(Fraction(3, 5))


def test_vector_query_loss_bound() -> None:
    """R23-Lem2.1 in R^d: the summed coordinate losses are <= Delta_1 / b for random y,
    with Delta_1 = ||f(x) - f(x')||_1."""
    rng = np.random.default_rng(6)
    fx, fxp = np.array([0.0, 1.0, -2.0]), np.array([0.5, 0.2, -2.5])
    delta1 = float(np.sum(np.abs(fx - fxp)))
    m = LaplaceMechanism(delta1, "0.7")
    y = m.sample(np.broadcast_to(fx, (5000, 3)), rng)
    loss = np.sum(m.logpdf(y, fx) - m.logpdf(y, fxp), axis=1)
    assert np.max(loss) <= delta1 / 0.7 * (1 + 1e-12)
    assert np.max(loss) == pytest.approx(delta1 / 0.7, rel=1e-9)  # attained on an orthant
