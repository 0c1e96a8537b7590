"""W22-ReducedAboveThreshold (reconstructed): the mechanism, its ex-post value and the
outcome-law oracle of its claim (proofs/W22-ReducedAboveThreshold.md)."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np
import pytest
from scipy import stats

from adaptive_dp.errors import GridError, ParameterError
from adaptive_dp.evalues.boundaries import NormalMixtureBoundary
from adaptive_dp.evalues.expost import reduced_above_threshold_expost
from adaptive_dp.mechanisms.above_threshold import ReducedAboveThreshold
from adaptive_dp.verify.registry.claims.w22 import rat_outcome_probabilities
from adaptive_dp.verify.registry.twins.w22 import first_level_charged_rat_expost


def test_w22_reduced_above_threshold_rejects_bad_parameters() -> None:
    with pytest.raises(ParameterError):
        ReducedAboveThreshold(1, (4.0, 1.0), (9.0,))
    with pytest.raises(GridError):
        ReducedAboveThreshold(1, (1.0, 4.0), (9.0, 2.0))
    mech = ReducedAboveThreshold(1, (4.0, 1.0), (9.0, 2.0))
    boundary = NormalMixtureBoundary(1, delta="0.01")
    with pytest.raises(ParameterError):
        reduced_above_threshold_expost(mech, 4, boundary, "0.01")
    with pytest.raises(ParameterError):
        reduced_above_threshold_expost(mech, 1, boundary, "0.01", slack=1)


def test_w22_reduced_above_threshold_oracle_against_bivariate_normal() -> None:
    """K = 2: with D_k = nu_k - xi_k (Var s_k + t_k, Cov(D_1, D_2) = min(t_1, t_2) = t_2),
    P[O = 1] = P[D_1 >= C - q_1] and P[O = 3] = P[D_1 < C - q_1, D_2 < C - q_2] (mpmath
    quadrature over D_2, D_1 | D_2 = u ~ N(u/3, 13 - 1/3))."""
    mech = ReducedAboveThreshold(1, (4.0, 1.0), (9.0, 2.0), threshold=0.3)
    q = np.array([0.1, -0.4])
    law = rat_outcome_probabilities(mech, q)
    a = 0.3 - q
    first = stats.norm.sf(a[0] / np.sqrt(13.0))
    with mpmath.workdps(30):
        a1, a2 = mpmath.mpf("0.2"), mpmath.mpf("0.7")
        none = mpmath.quad(lambda u: mpmath.npdf(u, 0, mpmath.sqrt(3))
                           * mpmath.ncdf((a1 - u / 3) / mpmath.sqrt(13 - mpmath.mpf(1) / 3)),
                           [-mpmath.inf, 0, a2])
    assert a.tolist() == pytest.approx([0.2, 0.7], abs=1e-15)
    assert law[0] == pytest.approx(first, abs=1e-12)
    assert law[2] == pytest.approx(float(none), abs=1e-12)
    assert law[1] == pytest.approx(1 - first - float(none), abs=1e-12)


def test_w22_reduced_above_threshold_release_follows_the_oracle() -> None:
    """The sampler (Brownian threshold path, fresh query noise) against the quadrature law."""
    times = np.geomspace(50.0, 0.05, 6)
    mech = ReducedAboveThreshold(1, tuple(times), tuple(3 * times), threshold=1.0)
    q = np.where(np.arange(6) < 5, 1.0 - 1.5 * np.sqrt(times), 1.2)
    law = rat_outcome_probabilities(mech, q)
    n = 200_000
    counts = np.bincount(mech.release(q, np.random.default_rng(7), n), minlength=8)[1:]
    assert counts.sum() == n
    sd = np.sqrt(n * law * (1 - law))
    assert np.all(np.abs(counts - n * law) <= 5 * sd + 1)


def test_w22_reduced_above_threshold_expost_against_mpmath() -> None:
    """E_o for a halting level and for "none", against an mpmath evaluation of the
    statement; delta = (delta_psi + delta_q) r/(r - 1) exactly."""
    mech = ReducedAboveThreshold(2, (8.0, 2.0, 0.5), (16.0, 4.0, 1.0))
    boundary = NormalMixtureBoundary("0.5", delta="0.01")
    got = reduced_above_threshold_expost(mech, 2, boundary, "0.02", slack=3)
    none = reduced_above_threshold_expost(mech, 4, boundary, "0.02", slack=3)
    assert got.delta == none.delta == Fraction(3, 100) * 3 / 2
    with mpmath.workdps(40):
        d, rho, dpsi = mpmath.mpf(2), mpmath.mpf("0.5"), mpmath.mpf("0.01")

        def psi(t: mpmath.mpf) -> mpmath.mpf:
            return mpmath.sqrt(2 * (t + rho) * mpmath.log(mpmath.sqrt((t + rho) / rho) / dpsi))

        z = -mpmath.sqrt(2) * mpmath.erfinv(2 * mpmath.mpf("0.02") / 3 - 1)
        t, s = mpmath.mpf(2), mpmath.mpf(4)
        ref = d**2 / (2 * t) + d * psi(t) / t + 2 * d**2 / s + 2 * d * z / mpmath.sqrt(s)
        ref += mpmath.log(3)
        t_last = mpmath.mpf("0.5")
        ref_none = d**2 / (2 * t_last) + d * psi(t_last) / t_last + mpmath.log(3)
        for out, value in ((got, ref), (none, ref_none)):
            e = mpmath.mpf(out.epsilon.numerator) / out.epsilon.denominator
            assert value <= e < value * (1 + mpmath.mpf("1e-15"))
    assert got.max_epsilon == none.max_epsilon >= got.epsilon


def test_w22_reduced_above_threshold_claim_scenario_exact() -> None:
    """The late-halt scenario by exact outcome probabilities: the valid bound is never
    exceeded, the first-level-charged twin is exceeded with probability >= 2 x 0.05."""
    times = np.geomspace(100.0, 0.01, 9)
    mech = ReducedAboveThreshold(1, tuple(times), tuple(4 * times))
    q = np.where(np.arange(9) < 8, -2 * np.sqrt(times), 0.5)
    p, p_prime = rat_outcome_probabilities(mech, q), rat_outcome_probabilities(mech, q - 1)
    boundary = NormalMixtureBoundary(1, delta="0.0125")
    for rule, low, high in ((reduced_above_threshold_expost, 0.0, 0.0),
                            (first_level_charged_rat_expost, 0.1, 1.0)):
        bound = np.array([float(rule(mech, o, boundary, "0.0125").epsilon)
                          for o in range(1, 11)])
        for here, there in ((p, p_prime), (p_prime, p)):
            exceed = float(here[np.log(here) - np.log(there) > bound].sum())
            assert low <= exceed <= high
