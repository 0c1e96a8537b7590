"""R23-Def2.2 / R23-Lem2.1: the Laplace privacy-loss distribution (atoms at +-eps plus
a continuous part), its exact hockey-stick, and the k-fold composition oracles."""

from __future__ import annotations

import itertools
import math

import mpmath
import numpy as np
import pytest
from scipy import integrate, stats

from adaptive_dp.errors import NegativeParameterError, ParameterError, ParameterTypeError
from adaptive_dp.loss import (
    LaplacePLD,
    laplace_composed_hockey_stick,
    laplace_composed_tail,
    pld,
    privacy_loss,
)
from adaptive_dp.mechanisms import LaplaceMechanism


def test_pld_from_mechanism() -> None:
    m = LaplaceMechanism(2, 4)
    assert pld(m) == LaplacePLD(0.5)
    assert pld(m, 3, 1) == LaplacePLD(0.5)
    assert pld(m, 1, 1).hockey_stick(0.0) == 0.0


def test_atoms_from_densities() -> None:
    """Losses of sampled outputs: P[L = eps] = 1/2, P[L = -eps] = e^{-eps}/2 (intervals at
    1 - 1e-6), and the continuous part matches the cdf on (-eps, eps)."""
    eps, n = 0.8, 40_000
    m = LaplaceMechanism.from_epsilon(1, eps)
    loss = privacy_loss(m, m.sample(np.zeros(n), np.random.default_rng(40)), 0.0, 1.0)
    top = int(np.sum(loss >= eps - 1e-12))
    bottom = int(np.sum(loss <= -eps + 1e-12))
    for count, prob in [(top, 0.5), (bottom, math.exp(-eps) / 2)]:
        ci = stats.binomtest(count, n).proportion_ci(confidence_level=1 - 1e-6)
        assert ci.low <= prob <= ci.high
    p = LaplacePLD(eps)
    mid = loss[(loss > -eps + 1e-12) & (loss < eps - 1e-12)]
    lo, hi = float(p.cdf(-eps)), float(p.cdf(np.nextafter(eps, -1)))
    conditional = lambda x: (p.cdf(x) - lo) / (hi - lo)  # noqa: E731
    assert stats.kstest(mid, conditional).pvalue > 1e-3  # type: ignore[arg-type]  # cdf is vectorised; the stub wants float -> float


def test_cdf_sf_at_atoms() -> None:
    e = 0.7
    p = LaplacePLD(e)
    assert float(p.cdf(e)) == 1.0 and float(p.sf(e)) == 0.0
    assert float(p.cdf(np.nextafter(e, 0))) == pytest.approx(0.5)
    assert float(p.cdf(-e)) == pytest.approx(math.exp(-e) / 2)
    assert float(p.cdf(np.nextafter(-e, -1))) == 0.0 and float(p.sf(np.nextafter(-e, -1))) == 1.0
    assert p.tail(e) == 0.0
    assert p.tail(np.nextafter(e, 0)) == pytest.approx(0.5)
    np.testing.assert_allclose(p.cdf([-2, 0, 2]) + p.sf([-2, 0, 2]), 1.0, rtol=1e-15)


def test_rvs_hits_atoms_and_matches_cdf() -> None:
    """DKW band (valid with atoms) at level 1 - 1e-6 on a grid, atoms included."""
    e, n = 1.3, 50_000
    p = LaplacePLD(e)
    x = p.rvs(n, np.random.default_rng(41))
    grid = np.concatenate((np.linspace(-2, 2, 81), [-e, e, np.nextafter(e, 0)]))
    emp = np.mean(x[:, None] <= grid[None, :], axis=0)
    band = math.sqrt(math.log(2 / 1e-6) / (2 * n))
    assert np.max(np.abs(emp - p.cdf(grid))) < band


def _hockey_by_quad(sens: float, scale: float, t: float) -> float:
    """int (p - e^t q)_+ over the Laplace densities, split at the kinks 0 and Delta."""
    p = stats.laplace(0.0, scale).pdf
    q = stats.laplace(sens, scale).pdf
    f = lambda y: max(0.0, p(y) - math.exp(t) * q(y))  # noqa: E731
    total = 0.0
    for a, b in [(-80 * scale, 0.0), (0.0, sens), (sens, sens + 80 * scale)]:
        val, _ = integrate.quad(f, a, b, epsabs=1e-14, epsrel=1e-12, limit=200)
        total += val
    return total


@pytest.mark.parametrize("t", [-3.0, -1.0, -0.2, 0.0, 0.4, 0.99, 1.0, 2.0])
def test_hockey_stick_equals_integral(t: float) -> None:
    sens, scale = 2.0, 2.0  # eps = 1
    assert LaplacePLD(sens / scale).hockey_stick(t) == pytest.approx(
        _hockey_by_quad(sens, scale, t), abs=1e-10
    )


def test_composed_k1_is_closed_form() -> None:
    for t in [-2.0, -0.5, 0.0, 0.3, 0.9]:
        assert laplace_composed_hockey_stick(0.9, 1, t) == pytest.approx(
            LaplacePLD(0.9).hockey_stick(t), rel=1e-13, abs=1e-15
        )
        assert laplace_composed_tail(0.9, 1, t) == pytest.approx(float(LaplacePLD(0.9).sf(t)))


def test_composed_k2_against_product_density() -> None:
    """Two Laplace mechanisms (b = 1, Delta = eps): hockey-stick by 2-D quadrature of
    (p - e^t q)_+ over the product density, split at the kinks."""
    eps, t = 0.6, 0.5
    et = math.exp(t)

    def f(y2: float, y1: float) -> float:
        p = 0.25 * math.exp(-abs(y1) - abs(y2))
        q = 0.25 * math.exp(-abs(y1 - eps) - abs(y2 - eps))
        return max(0.0, p - et * q)

    total = 0.0
    cuts = [-30.0, 0.0, eps, 30.0]
    for a1, b1 in itertools.pairwise(cuts):
        for a2, b2 in itertools.pairwise(cuts):
            val, _ = integrate.dblquad(f, a1, b1, a2, b2, epsabs=1e-11, epsrel=1e-9)
            total += val
    assert laplace_composed_hockey_stick(eps, 2, t) == pytest.approx(total, abs=1e-8)


@pytest.mark.parametrize(("eps", "k"), [(0.5, 6), (3.0, 8), (0.07, 25)])
def test_composed_against_monte_carlo(eps: float, k: int) -> None:
    """The exact tail inside a Clopper-Pearson interval at 1 - 1e-6, and the
    hockey-stick inside a Hoeffding interval, from losses of sampled outputs."""
    n = 100_000
    m = LaplaceMechanism.from_epsilon(1, eps)
    y = m.sample(np.zeros((n, k)), np.random.default_rng(42))
    total = privacy_loss(m, y, 0.0, 1.0).sum(axis=1)
    for t in [0.2513, 1.1027, 2.2031, 7.77]:  # off the atom lattice
        count = int(np.sum(total > t))
        ci = stats.binomtest(count, n).proportion_ci(confidence_level=1 - 1e-6)
        assert ci.low <= laplace_composed_tail(eps, k, t) <= ci.high
        est = float(np.mean(np.maximum(0.0, -np.expm1(t - total))))
        half = math.sqrt(math.log(2 / 1e-6) / (2 * n))
        assert abs(est - laplace_composed_hockey_stick(eps, k, t)) < half


def test_composed_limits() -> None:
    """delta(t) = 1 - e^t below the smallest loss -k eps; 0 from k eps on."""
    eps, k = 0.3, 5
    assert laplace_composed_hockey_stick(eps, k, -2.0) == pytest.approx(-math.expm1(-2.0))
    assert laplace_composed_hockey_stick(eps, k, k * eps) == 0.0
    assert laplace_composed_tail(eps, k, -k * eps - 0.01) == pytest.approx(1.0, abs=1e-25)
    values = [laplace_composed_hockey_stick(eps, k, t) for t in np.linspace(-2, 2, 9)]
    assert all(a >= b for a, b in itertools.pairwise(values))


def test_composed_mp_precision() -> None:
    from adaptive_dp.loss import laplace_composed_hockey_stick_mp

    v = laplace_composed_hockey_stick_mp(0.2, 12, 0.7)
    assert isinstance(v, mpmath.mpf) and 0 < v < 1


def test_validation() -> None:
    with pytest.raises(NegativeParameterError):
        LaplacePLD(-0.1)
    with pytest.raises(ParameterError):
        laplace_composed_hockey_stick(1.0, 0, 0.5)
    with pytest.raises(ParameterTypeError):
        laplace_composed_tail(1.0, 2.5, 0.5)  # type: ignore[arg-type]  # invalid on purpose
