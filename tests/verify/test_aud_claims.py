"""Claims and twins of the certified profiles (verify/registry/claims/aud.py): AUD-ProfileUpper,
AUD-DominatingPairs, and the realised side of AUD-ProfileLower (a simulation on concrete
neighbours; its numerical claim is an equivalence, below).

- every twin's true delta in its scenario is at least twice its charged value, shown with
  the certified lower bound of the valid profile (never the twin's own computation);
- the DP-SGD mechanism on the realising datasets (the other records' gradients 0) has the
  densities of the dominating pair, so its privacy loss has the pair's law;
- simulated on those datasets, its hockey-stick in each order is consistent with that
  order's certified interval [lower, upper] at level 1 - 1e-6 on each side (the lower end
  is AUD-ProfileLower: concrete neighbours realise it);
- the (A, B)-only bound is no negative control: the order (B, A) never reaches twice it.

The certified-numerics claims (AUD-ProfileLower, AUD-Inversion, AUD-TailBound,
AUD-FFTError, AUD-SubsampledRDP) are equivalences against independent references; here
the references themselves are checked against other implementations (the library's
EXT-DRS19 oracle and randomized-response PLD, the closed binomial sum of Mironov, Talwar and
Zhang, numpy's convolution), and every case set is shown to exercise what it claims to.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np
import pytest

from adaptive_dp.guarantees.histories import GaussianStep, History, SubsampledLaplaceStep
from adaptive_dp.loss.gaussian import gaussian_hockey_stick
from adaptive_dp.loss.randomized_response import rr_composed_pld
from adaptive_dp.mechanisms.subsampled import ShiftPair, dominating_pair
from adaptive_dp.verify.judge.estimators import estimate_hockey_stick
from adaptive_dp.verify.judge.runner import rng_for
from adaptive_dp.verify.registry import REGISTRY
from adaptive_dp.verify.registry.bounds import ProfileUpper
from adaptive_dp.verify.registry.claims.aud import (
    EXACT_HISTORIES,
    HISTORIES,
    OTHERS,
    REALISING,
    dyadic_case,
    exact_cyclic,
    exact_delta,
    exact_epsilon,
    mechanism_for,
    renyi_mp,
    sum_law,
)
from adaptive_dp.verify.registry.twins.profiles import TruncatedTails

SPECS = ("AUD-ProfileUpper", "AUD-DominatingPairs")
MINE = tuple(c for c in REGISTRY.values() if c.spec_id in SPECS)
MECHANISM_SCENARIOS = {"dpsgd-add-remove": "subsampled-gaussian",
                       "dpsgd-substitute": "substitution",
                       "laplace-add-remove": "subsampled-laplace"}


def _history(scenario: str) -> History:
    base = MECHANISM_SCENARIOS.get(scenario, scenario.removesuffix("-eps0").removesuffix("-eps1"))
    return HISTORIES[base]


PAIRS = sorted((c.id, t.name) for c in MINE for t in c.twins)


def test_registry_shape() -> None:
    ids = {c.id for c in MINE}
    for scenario in HISTORIES:
        for suffix in ("", "-eps0", "-eps1"):
            assert f"AUD-ProfileUpper/{scenario}{suffix}" in ids
    assert {f"AUD-DominatingPairs/{s}" for s in MECHANISM_SCENARIOS} <= ids
    assert all(c.twins for c in MINE)
    names = {t.name for c in MINE for t in c.twins}
    assert names == {"tails-truncated", "one-order-only", "wrong-neighbouring-relation"}


@pytest.mark.parametrize(("claim_id", "twin"), PAIRS)
def test_twin_true_value_is_at_least_twice_its_claim(claim_id: str, twin: str) -> None:
    claim = REGISTRY[claim_id]
    setup = next(t for t in claim.twins if t.name == twin).build("quick")
    history = _history(claim.scenario)
    truth, _ = ProfileUpper(history, setup.epsilon).profile().delta_bounds(setup.epsilon)
    assert truth >= 2 * setup.claimed, (truth, setup.claimed)


@pytest.mark.parametrize("claim_id", sorted(c.id for c in MINE))
def test_claims_charge_the_valid_certified_upper_bound(claim_id: str) -> None:
    claim = REGISTRY[claim_id]
    history = _history(claim.scenario)
    for profile in ("quick", "full"):
        setup = claim.build(profile)
        lower, upper = ProfileUpper(history, setup.epsilon).profile().delta_bounds(setup.epsilon)
        assert setup.claimed == upper and lower <= upper
        if profile == "full" and not claim.scenario.endswith(("-eps0", "-eps1")):
            assert 0.9e-3 <= upper <= 1e-3  # the certified eps(1e-3)
        else:
            assert 0.02 <= upper <= 0.25


def test_truncated_tails_twin_drops_only_the_mass_beyond_its_grid() -> None:
    history = HISTORIES["subsampled-gaussian"]
    twin = TruncatedTails(history, 0.5).profile()
    valid = ProfileUpper(history, 0.5).profile()
    assert all(d.infinity < 1e-300 for d in twin.directions)  # 0, rounded up
    # the order (B, A) has a bounded upper tail: nothing beyond its grid, same bound
    assert twin.direction_deltas(0.5, True)[1] == pytest.approx(
        valid.direction_deltas(0.5, True)[1], rel=1e-9, abs=1e-12)
    assert twin.direction_deltas(0.5, True)[0] < valid.direction_deltas(0.5, False)[0] / 2


def test_sum_law_is_the_law_of_the_clipped_poisson_sum() -> None:
    atoms, log_mass = sum_law((3.0, -2.0, 0.5, 0.5), 0.25)
    assert np.exp(log_mass).sum() == pytest.approx(1.0, abs=1e-15)
    assert atoms.min() == -1.0 and atoms.max() == 2.0  # clipped to +1 and -1
    assert len(set(atoms.tolist())) == atoms.size  # equal sums merged
    # {+1, -1} and {1/2, 1/2} both sum to... 0 and 1: the atom 1 has P[{+1} only] +
    # P[{1/2, 1/2} only] + P[{+1, -1, 1/2, 1/2}]
    q, r = 0.25, 0.75
    expected = q * r**3 + r * r * q * q + q**4
    assert np.exp(log_mass[atoms.tolist().index(1.0)]) == pytest.approx(expected, rel=1e-14)


@pytest.mark.parametrize("scenario", sorted(HISTORIES))
def test_realising_datasets_have_the_pairs_densities(scenario: str) -> None:
    history = HISTORIES[scenario]
    mechanism = mechanism_for(history, REALISING)
    pair = dominating_pair(history.steps[0], history.neighbours)
    assert isinstance(pair, ShiftPair)
    y = np.linspace(-6.0, 7.0, 1301)
    np.testing.assert_allclose(mechanism.logpdf(y, mechanism.x), pair.logpdf(y, "P"),
                               rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(mechanism.logpdf(y, mechanism.x_prime), pair.logpdf(y, "Q"),
                               rtol=1e-12, atol=1e-12)
    # the generic datasets blur the release: different densities
    generic = mechanism_for(history, OTHERS)
    assert not np.allclose(generic.logpdf(y, generic.x), pair.logpdf(y, "P"))


@pytest.mark.parametrize("scenario", sorted(HISTORIES))
@pytest.mark.parametrize("epsilon", [0.0, 0.5, 1.0])
def test_realising_mechanism_is_consistent_with_the_certified_interval(
        scenario: str, epsilon: float) -> None:
    """AUD-ProfileLower and AUD-ProfileUpper per order, on concrete neighbours: the
    simulated hockey-stick's confidence interval meets the certified interval."""
    history = HISTORIES[scenario]
    mechanism = mechanism_for(history, REALISING)
    profile = ProfileUpper(history, epsilon).profile()
    lowers = profile.direction_deltas(epsilon, False)
    uppers = profile.direction_deltas(epsilon, True)
    for index, under in enumerate(("x", "x'")):
        direction = min(index, len(lowers) - 1)  # symmetric pairs: one direction
        losses = mechanism(20_000, rng_for(0, "aud-realising", scenario, str(epsilon), under),
                           under)
        estimate = estimate_hockey_stick(losses, epsilon)
        assert estimate.lower <= uppers[direction], (under, estimate, uppers)
        assert estimate.upper >= lowers[direction], (under, estimate, lowers)


def test_a_b_only_is_not_a_negative_control() -> None:
    """The order (B, A) of the subsampled Laplace exceeds (A, B) at small eps, but by far
    less than the factor 2 a twin's scenario needs."""
    worst = 0.0
    for scale, rate, count in ((1.0, 0.5, 2), (2.0, 0.3, 2), (0.5, 0.8, 2), (4.0, 0.3, 3)):
        history = History((SubsampledLaplaceStep(scale, rate, count),))
        profile = ProfileUpper(history, 0.0).profile()
        for epsilon in np.linspace(0.0, 1.0, 101):
            a_b = profile.direction_deltas(float(epsilon), True)[0]
            b_a = profile.direction_deltas(float(epsilon), False)[1]
            if b_a > 0.01:
                worst = max(worst, b_a / a_b)
    assert 1.0 < worst < 2.0


def _gaussian_mu() -> float:
    (step,) = EXACT_HISTORIES["gaussian"].steps
    assert isinstance(step, GaussianStep)
    return float(np.sqrt(step.count) / step.noise_multiplier)


NUMERIC = {"AUD-ProfileLower": {"rr", "gaussian"}, "AUD-Inversion": {"rr", "gaussian"},
           "AUD-TailBound": {"rr-gaussian"}, "AUD-FFTError": {"dyadic-vectors"},
           "AUD-SubsampledRDP": {"add-remove", "substitute"}}


def test_numeric_registry_shape() -> None:
    for spec_id, scenarios in NUMERIC.items():
        mine = {c.scenario: c for c in REGISTRY.values() if c.spec_id == spec_id}
        assert set(mine) == scenarios
        assert all(len(c.twins) == 1 for c in mine.values())


@pytest.mark.parametrize("eps", [-0.5, 0.0, 0.35, 1.4, 2.1, 2.9])
def test_exact_delta_matches_the_library_oracles(eps: float) -> None:
    """AUD-ProfileLower / AUD-Inversion references: the enumeration of randomized
    response against its k-fold PLD, the Gaussian against EXT-DRS19's oracle."""
    with mpmath.workdps(30):
        rr = float(exact_delta("rr", eps))
        gaussian = float(exact_delta("gaussian", eps))
    assert rr == pytest.approx(rr_composed_pld(0.7, 4).hockey_stick(eps), rel=1e-12, abs=1e-15)
    mu = _gaussian_mu()
    assert gaussian == pytest.approx(gaussian_hockey_stick(mu, eps), rel=1e-12)


@pytest.mark.parametrize("delta", [1e-3, 0.05, 0.2])
def test_exact_epsilon_inverts_the_oracles(delta: float) -> None:
    """AUD-Inversion's reference eps(delta), read back through the other implementations."""
    mu = _gaussian_mu()
    with mpmath.workdps(30):
        rr, gaussian = float(exact_epsilon("rr", delta)), float(exact_epsilon("gaussian", delta))
    assert rr_composed_pld(0.7, 4).hockey_stick(rr) == pytest.approx(delta, rel=1e-9)
    assert gaussian_hockey_stick(mu, gaussian) == pytest.approx(delta, rel=1e-9)


@pytest.mark.parametrize(("alpha", "s", "q"), [(2, 1.0, 0.2), (3, 0.8, 0.3), (5, 2.0, 0.05)])
def test_renyi_quadrature_matches_the_binomial_sum(alpha: int, s: float, q: float) -> None:
    """AUD-SubsampledRDP reference: at integer orders the quadrature of D(A||B) equals
    log(sum_k C(a, k) (1-q)^(a-k) q^k e^((k^2 - k)/(2 s^2))) / (a - 1)."""
    with mpmath.workdps(25):
        closed = mpmath.log(mpmath.fsum(
            mpmath.binomial(alpha, k) * (1 - mpmath.mpf(q)) ** (alpha - k) * mpmath.mpf(q) ** k
            * mpmath.exp(mpmath.mpf(k * k - k) / (2 * mpmath.mpf(s) ** 2))
            for k in range(alpha + 1))) / (alpha - 1)
        quad = renyi_mp(Fraction(alpha), s, q, "forward")
        assert abs(quad - closed) < mpmath.mpf("1e-18")


def test_renyi_directions_differ_and_substitution_is_symmetric() -> None:
    """The reverse and substitution references integrate other pairs (the substitution
    pair mirrored is itself, so D(A'||A) = D(A||A'), also by quadrature)."""
    with mpmath.workdps(25):
        a, s, q = Fraction(5, 2), 1.0, 0.2
        assert renyi_mp(a, s, q, "forward") > 2 * renyi_mp(a, s, q, "reverse")
        sub = renyi_mp(a, s, q, "substitute")
        sd, rate, order = mpmath.mpf(s), mpmath.mpf(q), mpmath.mpf(a.numerator) / a.denominator

        def mix(x: mpmath.mpf, shift: int) -> mpmath.mpf:
            return (1 - rate) * mpmath.npdf(x, 0, sd) + rate * mpmath.npdf(x, shift, sd)

        mirrored = mpmath.log(mpmath.quad(lambda x: mix(x, 1) ** order * mix(x, -1) ** (1 - order),
                                          [-mpmath.inf, 0, mpmath.inf])) / (order - 1)
        assert abs(sub - mirrored) < mpmath.mpf("1e-15")


def test_fft_reference_is_theexact_cyclic_convolution() -> None:
    """AUD-FFTError reference: the integer cyclic convolution equals numpy's linear
    convolution folded mod n (small integers, exact in float64), and the two-vector cases
    wrap around the cyclic grid (aliasing is exercised)."""
    rng = np.random.default_rng(3)
    vectors = [rng.integers(0, 9, 7), rng.integers(0, 9, 5)]
    linear = np.array([1.0])
    for v in vectors:
        for _ in range(2):
            linear = np.convolve(linear, v.astype(np.float64))
    folded = np.zeros(16)
    np.add.at(folded, np.arange(linear.size) % 16, linear)
    assert exact_cyclic(vectors, [2, 2], 16) == folded.astype(np.int64).tolist()
    wraps = []
    for seed in range(8):
        ints, counts, n = dyadic_case(seed)
        assert all(int(m.sum()) <= 1 << 30 and int(m.min()) >= 0 for m in ints)
        wraps.append(sum((m.size - 1) * c for m, c in zip(ints, counts, strict=True)) >= n)
    assert any(wraps)
