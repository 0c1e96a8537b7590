"""R23-Def2.5 (Gaussian mechanism) and R23-Lem2.2 (Gaussian is rho-zCDP): constructors,
calibration, density and sampler."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, stats

from adaptive_dp.errors import NegativeParameterError, NonFiniteError, ParameterTypeError
from adaptive_dp.guarantees.definitions import GDP, ZCDP
from adaptive_dp.mechanisms import GaussianMechanism, gaussian_logpdf


def test_fields_are_exact() -> None:
    m = GaussianMechanism("0.1", "0.3")
    assert m.sensitivity == Fraction(1, 10) and m.sigma == Fraction(3, 10)
    assert m.mu == Fraction(1, 3)
    assert m.guarantee() == ZCDP(Fraction(1, 18))
    assert m.gdp() == GDP(Fraction(1, 3))


@pytest.mark.parametrize(
    ("sens", "sigma", "error"),
    [
        (0, 1, NegativeParameterError),
        (1, 0, NegativeParameterError),
        (1, -1, NegativeParameterError),
        (-1, 1, NegativeParameterError),
        (1, math.nan, NonFiniteError),
        (1, math.inf, NonFiniteError),
        (True, 1, ParameterTypeError),
    ],
)
def test_validation(sens: object, sigma: object, error: type[Exception]) -> None:
    with pytest.raises(error):
        GaussianMechanism(sens, sigma)  # type: ignore[arg-type]  # invalid on purpose


def test_from_rho_validation() -> None:
    with pytest.raises(NegativeParameterError):
        GaussianMechanism.from_rho(1, 0)
    with pytest.raises(NegativeParameterError):
        GaussianMechanism.from_rho(0, 1)


@settings(max_examples=40)
@given(
    st.fractions(min_value=Fraction(1, 1000), max_value=100),
    st.fractions(min_value=Fraction(1, 10**6), max_value=50),
)
def test_from_rho_rounds_sigma_up(sens: Fraction, rho: Fraction) -> None:
    """R23-Lem2.2: sigma = Delta / sqrt(2 rho) rounded UP, so the guarantee is <= rho."""
    m = GaussianMechanism.from_rho(sens, rho)
    with mpmath.workdps(60):
        exact_sigma = mpmath.mpf(sens.numerator) / sens.denominator / mpmath.sqrt(
            2 * mpmath.mpf(rho.numerator) / rho.denominator
        )
        assert mpmath.mpf(float(m.sigma)) >= exact_sigma
        assert float(m.sigma) <= float(exact_sigma) * (1 + 4e-16)
    assert m.guarantee().rho <= rho


def test_density_integrates_to_one() -> None:
    for sigma, center in [(0.3, 0.0), (2.0, 5.0), (1e-3, -1.0)]:
        f = lambda y, s=sigma, c=center: math.exp(float(gaussian_logpdf(y, c, s)))  # noqa: E731
        val, _ = integrate.quad(f, center - 40 * sigma, center + 40 * sigma, points=[center])
        assert val == pytest.approx(1.0, abs=1e-10)


def test_logpdf_matches_scipy() -> None:
    rng = np.random.default_rng(3)
    y = rng.normal(size=100) * 3
    m = GaussianMechanism(1, "1.7")
    np.testing.assert_allclose(
        m.logpdf(y, 0.4), stats.norm.logpdf(y, loc=0.4, scale=1.7), rtol=1e-13
    )


def test_sampler_distribution() -> None:
    m = GaussianMechanism(1, 2)
    y = m.sample(np.full(20_000, 3.0), np.random.default_rng(11))
    assert stats.kstest(y, stats.norm(loc=3.0, scale=2.0).cdf).pvalue > 1e-3


def test_paper_parameterisation() -> None:
    """R23-Def2.5: privacy parameter = precision 1/sigma^2; R23-Lem2.2: then
    Delta^2 precision / 2-zCDP."""
    m = GaussianMechanism.from_precision(2, 4)
    assert m.sigma == Fraction(1, 2) and m.precision == 4
    assert m.guarantee() == ZCDP(8)  # Delta^2 p / 2 = 4 * 4 / 2
    m3 = GaussianMechanism.from_precision(1, 3)
    assert float(m3.sigma) >= 1 / math.sqrt(3) and m3.guarantee().rho <= Fraction(3, 2)
