"""What the shells release on real data (issue 18, item 4; EXT-DiscreteGaussian).

- the exact samplers (:mod:`adaptive_dp.interactive.sampling`) have the laws they claim,
  against probabilities computed here in mpmath (chi-square and binomial tests at level
  1e-6, so a correct sampler fails with probability below 1e-5 over the file);
- the float-grid attack (Mironov 2012) tells a count of 0 from a count of 1 through
  ``GaussianCountIM``'s float answers, and finds nothing on ``DiscreteGaussianCountIM``,
  whose answers are integers;
- the declared epsilon of randomized response is an upper bound on the exact
  ln(p / (1 - p)) for every p tried (60-digit mpmath);
- a shell refuses an unvetted mechanism class (one declaring PureDP(0) that releases its
  state) before anything runs, unless the curator opts out.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from scipy import stats

from adaptive_dp.errors import UnvettedMechanismError
from adaptive_dp.filters import PureDPFilter
from adaptive_dp.guarantees.definitions import ZCDP, PureDP
from adaptive_dp.interactive.mechanism import (
    LAMBDA,
    STARTED,
    DiscreteGaussianCountIM,
    GaussianCountIM,
    RandomizedResponseIM,
)
from adaptive_dp.interactive.sampling import bernoulli_exp, discrete_gaussian, discrete_laplace
from adaptive_dp.interactive.shell import ConcurrentFilter

LEVEL = 1e-6


def _chi_square_p(samples: list[int], pmf: dict[int, float]) -> float:
    """p-value of a chi-square goodness-of-fit test; cells with expected count < 5 are
    pooled into one tail cell."""
    n = len(samples)
    observed: dict[int, int] = {}
    for y in samples:
        observed[y] = observed.get(y, 0) + 1
    cells = [y for y in pmf if pmf[y] * n >= 5]
    obs = [observed.get(y, 0) for y in cells]
    exp = [pmf[y] * n for y in cells]
    obs.append(n - sum(obs))
    exp.append(n - sum(exp))
    return float(stats.chisquare(obs, exp).pvalue)


def _discrete_gaussian_pmf(sigma2: Fraction, support: range) -> dict[int, float]:
    with mpmath.workdps(40):
        s2 = mpmath.mpf(sigma2.numerator) / sigma2.denominator
        norm = mpmath.nsum(lambda k: mpmath.exp(-k * k / (2 * s2)), [-mpmath.inf, mpmath.inf])
        return {y: float(mpmath.exp(-mpmath.mpf(y) ** 2 / (2 * s2)) / norm) for y in support}


@pytest.mark.parametrize("gamma", [Fraction(0), Fraction(1, 3), Fraction(1), Fraction(5, 2)])
def test_bernoulli_exp_has_probability_exp_minus_gamma(gamma: Fraction) -> None:
    rng = np.random.default_rng(11)
    n = 4000
    k = sum(bernoulli_exp(gamma, rng) for _ in range(n))
    p = math.exp(-float(gamma))
    if gamma == 0:
        assert k == n
        return
    assert stats.binomtest(k, n, p).pvalue > LEVEL, (gamma, k / n, p)


def test_discrete_laplace_law() -> None:
    rng = np.random.default_rng(12)
    t = 2
    samples = [discrete_laplace(t, rng) for _ in range(4000)]
    with mpmath.workdps(30):
        c = (mpmath.exp(mpmath.mpf(1) / t) - 1) / (mpmath.exp(mpmath.mpf(1) / t) + 1)
        pmf = {y: float(c * mpmath.exp(-mpmath.mpf(abs(y)) / t)) for y in range(-40, 41)}
    assert _chi_square_p(samples, pmf) > LEVEL


@pytest.mark.parametrize("sigma2", [Fraction(3, 2), Fraction(1, 5)])
def test_discrete_gaussian_law(sigma2: Fraction) -> None:
    rng = np.random.default_rng(13)
    samples = [discrete_gaussian(sigma2, rng) for _ in range(4000)]
    assert all(isinstance(y, int) for y in samples)
    pmf = _discrete_gaussian_pmf(sigma2, range(-30, 31))
    assert _chi_square_p(samples, pmf) > LEVEL


def _from_count_zero(answer: object) -> bool:
    """The float-grid attack on count + noise with counts 0 or 1: an answer 1 + z rounds
    onto the grid where (a - 1) + 1 == a in floating point (a - 1 is exact by Sterbenz
    near 1, and exact for large |a|), so an answer off that grid came from count 0."""
    assert isinstance(answer, (int, float))
    return float(answer) - 1.0 + 1.0 != float(answer)


def _answers(mechanism: object, data: tuple[int, ...], n: int, seed: int) -> list[object]:
    rng = np.random.default_rng(seed)
    step = mechanism.step  # type: ignore[attr-defined]
    out = []
    for _ in range(n):
        state, first = step(data, LAMBDA, rng)
        assert first == STARTED
        out.append(step(state, (0,), rng)[1])
    return out


def test_float_grid_attack_tells_counts_apart_on_float_noise_only() -> None:
    n = 2000
    hits_float = [sum(_from_count_zero(a) for a in _answers(GaussianCountIM("0.5"), (b,), n, 1))
                  for b in (0, 1)]
    # positive control: the attack has power against the float mechanism (one side only)
    assert hits_float[1] == 0 and hits_float[0] >= n // 10, hits_float
    answers = {b: _answers(DiscreteGaussianCountIM("0.5"), (b,), n, 2) for b in (0, 1)}
    for b in (0, 1):
        assert all(type(a) is int for a in answers[b])
        assert sum(_from_count_zero(a) for a in answers[b]) == 0


def test_discrete_gaussian_count_declares_its_exact_rho() -> None:
    m = DiscreteGaussianCountIM("0.3", rounds=3)
    assert m.sigma2 == Fraction(3, 2) / Fraction(3, 10)
    assert m.guarantee == ZCDP("0.3")


@pytest.mark.parametrize("p", ["2/3", "3/5", "6/7", "0.51", "0.75", "0.999", "99/100",
                               "123456789/123456790"])
def test_randomized_response_declared_epsilon_is_an_upper_bound(p: str) -> None:
    exact_p = Fraction(p)
    m = RandomizedResponseIM(exact_p, rounds=3)
    with mpmath.workdps(60):
        q = mpmath.mpf(exact_p.numerator) / exact_p.denominator
        eps = mpmath.log(q / (1 - q))
        assert mpmath.mpf(m.epsilon) >= eps
        declared = m.guarantee
        assert isinstance(declared, PureDP)
        assert mpmath.mpf(declared.epsilon.numerator) / declared.epsilon.denominator >= 3 * eps


class _LeakyMechanism:
    """Declares PureDP(0) and releases the whole dataset."""

    guarantee = PureDP(0)

    def step(self, state: object, message: object, rng: np.random.Generator
             ) -> tuple[object, object]:
        return (state, STARTED) if message is LAMBDA else (state, state)


def test_unvetted_mechanism_is_refused_before_it_runs() -> None:
    shell = ConcurrentFilter((1, 0, 1), PureDPFilter(1), seed=3)
    with pytest.raises(UnvettedMechanismError, match="_LeakyMechanism is not a vetted"):
        shell.launch(_LeakyMechanism())
    assert shell.launched == 0 and shell.transcript() == ()
    with pytest.raises(UnvettedMechanismError):
        shell.launch(GaussianCountIM("0.5"), ZCDP("0.5"))
    trusting = ConcurrentFilter((1, 0, 1), PureDPFilter(1), seed=3, allow_unvetted=True)
    assert trusting.launch(_LeakyMechanism()).query(0) == (1, 0, 1)  # the documented risk



@pytest.mark.parametrize("rho", ["0.1", "1", "2.5"])
def test_discrete_gaussian_renyi_divergence_within_its_zcdp(rho: str) -> None:
    """The declared guarantee of one answer (CKS20, Theorem 4) against the Renyi divergence
    of the released count under counts 0 and 1, summed in mpmath from the discrete
    Gaussian's pmf; for integer shifts it is attained, so a smaller declared rho fails."""
    m = DiscreteGaussianCountIM(rho)
    declared = m.guarantee
    assert isinstance(declared, ZCDP)
    with mpmath.workdps(40):
        s2 = mpmath.mpf(m.sigma2.numerator) / m.sigma2.denominator
        norm = mpmath.nsum(lambda k: mpmath.exp(-k * k / (2 * s2)), [-mpmath.inf, mpmath.inf])

        def pmf(y: object, c: int) -> object:
            return mpmath.exp(-(y - c) ** 2 / (2 * s2)) / norm  # type: ignore[operator]

        r = mpmath.mpf(declared.rho.numerator) / declared.rho.denominator
        for alpha in (mpmath.mpf("1.5"), mpmath.mpf(2), mpmath.mpf(8)):
            total = mpmath.nsum(lambda y, a=alpha: pmf(y, 0) ** a * pmf(y, 1) ** (1 - a),
                                [-mpmath.inf, mpmath.inf])
            divergence = mpmath.log(total) / (alpha - 1)
            assert divergence <= alpha * r * (1 + mpmath.mpf("1e-30")), (alpha, divergence)
