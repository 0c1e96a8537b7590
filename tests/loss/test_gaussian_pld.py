"""R23-Def2.5 / EXT-DRS19: the Gaussian privacy-loss distribution N(mu^2/2, mu^2),
derived from the densities, and the exact hockey-stick oracle
(gaussian_hockey_stick, _mp); EXT-GDPComposition for compose_gaussian."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, optimize, stats

from adaptive_dp.errors import NegativeParameterError, NonFiniteError
from adaptive_dp.loss import (
    GaussianPLD,
    compose_gaussian,
    gaussian_hockey_stick,
    gaussian_hockey_stick_mp,
    pld,
    privacy_loss,
)
from adaptive_dp.mechanisms import GaussianMechanism


def test_closed_form_equals_density_differences() -> None:
    """L(y) from logpdf differences is mu^2/2 - mu z for y = c + sigma z (c' > c)."""
    rng = np.random.default_rng(30)
    for sens, sigma in [(1.0, 1.0), (0.2, 3.0), (4.0, 0.5)]:
        m = GaussianMechanism(sens, sigma)
        mu = sens / sigma
        z = rng.standard_normal(2000)
        y = 1.5 + sigma * z
        loss = privacy_loss(m, y, 1.5, 1.5 + sens)
        np.testing.assert_allclose(loss, mu * mu / 2 - mu * z, rtol=1e-12, atol=1e-12)
        p = pld(m, 1.5, 1.5 + sens)
        assert isinstance(p, GaussianPLD) and p.mu == pytest.approx(mu, rel=1e-15)
        # the loss of sampled outputs follows the PLD (KS test, fixed seed)
        sample = privacy_loss(m, m.sample(np.full(5000, 1.5), rng), 1.5, 1.5 + sens)
        assert stats.kstest(sample, p.cdf).pvalue > 1e-3  # type: ignore[arg-type]  # cdf is vectorised; the stub wants float -> float


def test_loss_derivation_symbolic() -> None:
    """sympy: log N(y; c, s^2) - log N(y; c', s^2) at y = c + s z equals
    mu^2/2 - mu z with mu = (c' - c)/s: the loss is N(mu^2/2, mu^2) under P."""
    y, c, cp, z = sympy.symbols("y c cp z", real=True)
    s = sympy.symbols("s", positive=True)

    def logpdf(v: sympy.Expr, m: sympy.Expr) -> sympy.Expr:
        return -((v - m) ** 2) / (2 * s**2) - sympy.log(s) - sympy.log(2 * sympy.pi) / 2

    loss = (logpdf(y, c) - logpdf(y, cp)).subs(y, c + s * z)
    mu = (cp - c) / s
    assert sympy.simplify(loss - (mu**2 / 2 - mu * z)) == 0


def test_default_pair_is_worst_case() -> None:
    m = GaussianMechanism(2, 4)
    assert pld(m) == GaussianPLD(0.5)
    assert pld(m, 0, -2) == GaussianPLD(0.5)


def _hockey_by_quad(mu: float, eps: float) -> float:
    """sup_T P(T) - e^eps Q(T) = int (p - e^eps q)_+ for P = N(0, 1), Q = N(mu, 1)."""
    p = stats.norm(0.0, 1.0).pdf
    q = stats.norm(mu, 1.0).pdf
    # p > e^eps q left of the crossing point (found numerically)
    lp, lq = stats.norm(0.0, 1.0).logpdf, stats.norm(mu, 1.0).logpdf
    cross = optimize.brentq(lambda y: lp(y) - eps - lq(y), -60, 60)
    val, _ = integrate.quad(
        lambda y: max(0.0, p(y) - math.exp(eps) * q(y)), -60, cross, epsabs=1e-14, limit=200
    )
    return float(val)


@pytest.mark.parametrize(("mu", "eps"), [(1.0, 0.0), (1.0, 1.0), (0.5, 0.3), (2.0, 3.0)])
def test_hockey_stick_equals_integral(mu: float, eps: float) -> None:
    assert GaussianPLD(mu).hockey_stick(eps) == pytest.approx(_hockey_by_quad(mu, eps), abs=1e-10)


def test_mp_oracle_against_mpmath_quad() -> None:
    """The 50-digit oracle against an independent 40-digit quadrature of (p - e^eps q)_+."""
    with mpmath.workdps(40):
        mu, eps = mpmath.mpf(1) / 3, mpmath.mpf(1) / 2
        cross = mu / 2 - eps / mu  # p > e^eps q iff y < mu/2 - eps/mu (log-ratio linear)
        f = lambda y: mpmath.npdf(y) - mpmath.exp(eps) * mpmath.npdf(y, mu)  # noqa: E731
        ref = mpmath.quad(f, [-mpmath.inf, cross])
    got = gaussian_hockey_stick_mp(Fraction(1, 3), "0.5")
    assert abs(got - ref) < mpmath.mpf(10) ** -30


@settings(max_examples=60)
@given(
    st.floats(min_value=0.01, max_value=20), st.floats(min_value=-5, max_value=60)
)
def test_float_path_agrees_with_mp(mu: float, eps: float) -> None:
    exact = gaussian_hockey_stick_mp(mu, eps)
    got = GaussianPLD(mu).hockey_stick(eps)
    if exact < 1e-300:
        assert got <= 1e-290
    else:
        assert got == pytest.approx(float(exact), rel=1e-11)
    assert gaussian_hockey_stick(mu, eps) == float(exact)


def test_mu_zero() -> None:
    p = GaussianPLD(0)
    assert p.hockey_stick(0.0) == 0.0 and p.hockey_stick(-1.0) == pytest.approx(1 - math.exp(-1))
    assert float(gaussian_hockey_stick_mp(0, "0.5")) == 0.0
    assert p.tail(0.0) == 0.0 and p.tail(-1e-9) == 1.0


def test_validation() -> None:
    with pytest.raises(NegativeParameterError):
        GaussianPLD(-1)
    with pytest.raises(NonFiniteError):
        GaussianPLD(math.nan)
    with pytest.raises(NonFiniteError):
        GaussianPLD(1).hockey_stick(math.inf)
    with pytest.raises(NegativeParameterError):
        gaussian_hockey_stick(-0.5, 1)


def test_compose_from_product_density() -> None:
    """EXT-GDPComposition: two Gaussian mechanisms run together; hockey-stick by a 2-D
    quadrature of (p - e^eps q)_+ over the product densities."""
    s1, s2, d1, d2 = 1.0, 2.0, 1.0, 1.5
    eps = 0.5
    comp = compose_gaussian([GaussianPLD(d1 / s1), d2 / s2])
    assert comp.mu == pytest.approx(math.hypot(d1 / s1, d2 / s2), rel=1e-15)

    norm = 1 / (2 * math.pi * s1 * s2)
    ee = math.exp(eps)

    def integrand(y2: float, y1: float) -> float:
        p = norm * math.exp(-(y1 / s1) ** 2 / 2 - (y2 / s2) ** 2 / 2)
        q = norm * math.exp(-((y1 - d1) / s1) ** 2 / 2 - ((y2 - d2) / s2) ** 2 / 2)
        return max(0.0, p - ee * q)

    val, _ = integrate.dblquad(integrand, -9, 9, -18, 18, epsabs=1e-9, epsrel=1e-7)
    assert comp.hockey_stick(eps) == pytest.approx(val, abs=1e-7)


def test_vector_query() -> None:
    """R23-Def2.5 in R^d: the loss of the product density is the Gaussian PLD with
    mu = ||f(x) - f(x')||_2 / sigma (KS on losses of sampled outputs)."""
    m = GaussianMechanism(1, "0.9")
    fx, fxp = np.array([0.0, 1.0, 2.0]), np.array([0.3, 0.6, 2.0])
    p = pld(m, fx, fxp)
    assert isinstance(p, GaussianPLD) and p.mu == pytest.approx(0.5 / 0.9, rel=1e-14)
    y = m.sample(np.broadcast_to(fx, (5000, 3)), np.random.default_rng(31))
    loss = privacy_loss(m, y, fx, fxp).sum(axis=1)
    assert stats.kstest(loss, p.cdf).pvalue > 1e-3  # type: ignore[arg-type]  # cdf is vectorised; the stub wants float -> float
    with pytest.raises(NonFiniteError):
        pld(m, np.array([0.0, np.inf]))
