"""The CS2080 teaching objects: CS2080-PointwiseCheck, CS2080-PostProcessing,
CS2080-Histogram, CS2080-ParallelComp and CS2080-ZCDP.

Exact values come from independent computations (subset enumeration, mpmath, closed forms);
the claims themselves run in tests/statistical/test_claims.py. The twins' true values are
computed here exactly, so each is shown at least twice its claim.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from adaptive_dp.errors import ParameterError, UnsupportedGuaranteeError
from adaptive_dp.guarantees.composition import compose_parallel
from adaptive_dp.guarantees.definitions import ZCDP, ApproxDP, PureDP
from adaptive_dp.mechanisms.gaussian import GaussianMechanism
from adaptive_dp.mechanisms.teaching import DPHistogram, FiniteMechanism, PostProcessed, SlideZCDP
from adaptive_dp.verify.registry.claims.cs2080_basics import (
    clamped_geometric_logpmf,
    clamped_geometric_table,
)
from adaptive_dp.verify.registry.twins.cs2080_basics import (
    OVERLAPPING_PARTS,
    AddRemoveScaleHistogram,
    DataReadingPostProcessed,
    MaxNotSumZCDP,
    OneDirectionCheck,
    OverlappingBinsHistogram,
)

ALPHA = math.exp(-0.5)
CHAIN = ((0, 1), (1, 2), (2, 3))


def _geometric() -> FiniteMechanism:
    return FiniteMechanism(clamped_geometric_table(ALPHA, 4, 10), CHAIN)


def _halve(y: np.ndarray) -> np.ndarray:
    return y // 2


def _set_epsilon(p: np.ndarray, q: np.ndarray) -> float:
    """max over every nonempty subset T of log(P(T) / Q(T)), by enumeration."""
    worst = -math.inf
    for r in range(1, p.size + 1):
        for subset in itertools.combinations(range(p.size), r):
            pt, qt = p[list(subset)].sum(), q[list(subset)].sum()
            if pt > 0:
                worst = max(worst, math.log(pt / qt) if qt > 0 else math.inf)
    return worst


# CS2080-PointwiseCheck ----------------------------------------------------------------------


def test_pointwise_epsilon_of_randomized_response_is_log3() -> None:
    mech = FiniteMechanism(np.array([[0.75, 0.25], [0.25, 0.75]]), ((0, 1),))
    assert mech.epsilon() == pytest.approx(math.log(3), rel=1e-15)
    assert mech.epsilon() >= float(mpmath.log(3))


def test_geometric_table_matches_closed_form() -> None:
    table = clamped_geometric_table(ALPHA, 4, 10)
    y = np.arange(10)
    for c in range(4):
        assert np.allclose(np.log(table[c]), clamped_geometric_logpmf(y, c, ALPHA, 10),
                           rtol=0, atol=1e-12)


def test_pointwise_check_implies_the_set_inequality() -> None:
    """CS2080-PointwiseCheck: the pointwise epsilon bounds every set T (both orders), and it
    is attained by a singleton, so no smaller epsilon passes."""
    mech = _geometric()
    eps = mech.epsilon()
    assert eps == pytest.approx(0.5, rel=1e-12)
    for a, b in CHAIN:
        for x, xp in ((a, b), (b, a)):
            assert _set_epsilon(mech.pmfs[x], mech.pmfs[xp]) <= eps
    assert max(_set_epsilon(mech.pmfs[a], mech.pmfs[b]) for a, b in CHAIN) == pytest.approx(eps)


def test_pointwise_check_reads_supports() -> None:
    mech = FiniteMechanism(np.array([[1.0, 0.0], [0.5, 0.5]]), ((0, 1),))
    assert mech.epsilon() == math.inf  # y = 1 has P_x'(1) > 0 = P_x(1)
    same = FiniteMechanism(np.array([[0.5, 0.5, 0.0], [0.5, 0.5, 0.0]]), ((0, 1),))
    assert same.epsilon() == 0.0  # an output impossible under both is no loss


@pytest.mark.parametrize("pmfs", [[[0.5, 0.6]], [[1.2, -0.2]], [0.5, 0.5], [[np.nan, 1.0]]])
def test_finite_mechanism_rejects_bad_tables(pmfs: object) -> None:
    with pytest.raises(ParameterError):
        FiniteMechanism(np.array(pmfs, dtype=float), ())


def test_finite_mechanism_rejects_bad_neighbours() -> None:
    with pytest.raises(ParameterError):
        FiniteMechanism(np.array([[1.0]]), ((0, 1),))


def test_one_direction_twin_misses_the_reverse_ratio() -> None:
    table = np.array([[0.9, 0.1], [0.6, 0.4]])
    claimed = OneDirectionCheck(table, ((0, 1),)).epsilon()
    true = FiniteMechanism(table, ((0, 1),)).epsilon()
    assert claimed == pytest.approx(math.log(1.5)) and true == pytest.approx(math.log(4))
    assert true >= 2 * claimed


# CS2080-PostProcessing ----------------------------------------------------------------------


def _pushforward(post: PostProcessed, d: int) -> np.ndarray:
    return np.bincount(post.released(d), weights=post.base.pmfs[d], minlength=8)


def test_post_processing_never_increases_the_pointwise_epsilon() -> None:
    """CS2080-PostProcessing on exact tables: f(M) of y // 2 has epsilon <= M's."""
    post = PostProcessed(_geometric(), _halve)
    table = np.stack([_pushforward(post, d) for d in range(4)])
    assert FiniteMechanism(table, CHAIN).epsilon() <= post.epsilon() == _geometric().epsilon()
    assert post.released(2).tolist() == [0, 0, 1, 1, 2, 2, 3, 3, 4, 4]


def test_post_processed_samples_follow_the_pushforward() -> None:
    post = PostProcessed(_geometric(), _halve)
    y = post.sample(1, 20_000, np.random.default_rng(1))
    freq = np.bincount(y, minlength=8) / y.size
    assert np.abs(freq - _pushforward(post, 1)).max() < 0.02


def test_data_reading_twin_is_not_a_post_processing() -> None:
    twin = DataReadingPostProcessed(_geometric(), _halve)
    table = np.stack([_pushforward(twin, d) for d in range(4)])
    both = (table[1] > 0) & (table[2] > 0)
    assert np.abs(np.log(table[1][both] / table[2][both])).max() == pytest.approx(1.5)  # 3 eps
    assert FiniteMechanism(table, CHAIN).epsilon() == math.inf >= 2 * twin.epsilon()


# CS2080-Histogram ---------------------------------------------------------------------------


def test_histogram_scales_and_guarantee() -> None:
    assert DPHistogram(Fraction(1, 2), 4, "add-remove").scale == 2
    assert DPHistogram(Fraction(1, 2), 4, "substitution").scale == 4
    assert DPHistogram("0.25", 3, "add-remove").guarantee() == PureDP(Fraction(1, 4))
    assert AddRemoveScaleHistogram(Fraction(1, 2), 4, "substitution").scale == 2


@pytest.mark.parametrize("bad", [{"bins": 0}, {"bins": True}, {"adjacency": "swap"},
                                 {"epsilon": 0}])
def test_histogram_rejects_bad_parameters(bad: dict[str, object]) -> None:
    args: dict[str, object] = {"epsilon": 1, "bins": 3, "adjacency": "add-remove"} | bad
    with pytest.raises(ParameterError):
        DPHistogram(**args)  # type: ignore[arg-type]


def test_histogram_counts_and_their_l1_sensitivity() -> None:
    hist = DPHistogram(1, 4, "add-remove")
    rows = np.array([0, 0, 1, 3, 3, 3])
    assert hist.counts(rows).tolist() == [2, 1, 0, 3]
    rng = np.random.default_rng(2)
    for _ in range(50):
        added = np.append(rows, rng.integers(4))
        assert np.abs(hist.counts(added) - hist.counts(rows)).sum() == 1
        moved = rows.copy()
        moved[rng.integers(rows.size)] = rng.integers(4)
        assert np.abs(hist.counts(moved) - hist.counts(rows)).sum() <= 2
    with pytest.raises(ParameterError):
        hist.counts([4])


def test_histogram_density_and_worst_loss() -> None:
    """The log density is the sum of Laplace(scale) densities; the loss at a release below
    every count is exactly eps (add/remove) and, for the twins, 2 eps."""
    hist = DPHistogram(Fraction(1, 2), 2, "add-remove")
    y = np.array([-3.0, 1.5])
    expected = sum(-abs(v - c) / 2 - math.log(4) for v, c in zip(y, (1.0, 2.0), strict=True))
    assert hist.logpdf(y, [1.0, 2.0]) == pytest.approx(expected)
    low = np.array([-5.0, -5.0])
    assert hist.logpdf(low, [1, 1]) - hist.logpdf(low, [2, 1]) == pytest.approx(0.5)
    sub = DPHistogram(Fraction(1, 2), 2, "substitution")
    twin = AddRemoveScaleHistogram(Fraction(1, 2), 2, "substitution")
    mixed = np.array([5.0, -5.0])  # above bin 0's counts, below bin 1's
    assert sub.logpdf(mixed, [2, 1]) - sub.logpdf(mixed, [1, 2]) == pytest.approx(0.5)
    assert twin.logpdf(mixed, [2, 1]) - twin.logpdf(mixed, [1, 2]) == pytest.approx(1.0)


def test_overlapping_bins_twin_counts_a_row_twice() -> None:
    twin = OverlappingBinsHistogram(Fraction(1, 2), 4, "add-remove")
    rows = np.array([0, 1, 2])
    assert np.abs(twin.counts(np.append(rows, 3)) - twin.counts(rows)).sum() == 2


# CS2080-ParallelComp ------------------------------------------------------------------------


def test_compose_parallel_is_the_maximum() -> None:
    """CS2080-ParallelComp: (max eps_j)-DP, and (max eps_j, max delta_j) for approximate parts."""
    assert compose_parallel([PureDP("0.5"), PureDP(1), PureDP("0.25")]) == PureDP(1)
    assert compose_parallel([]) == PureDP(0)
    mixed = compose_parallel([PureDP(2), ApproxDP(1, "0.01"), ApproxDP("0.5", "0.02")])
    assert mixed == ApproxDP(2, Fraction(1, 50))
    with pytest.raises(UnsupportedGuaranteeError):
        compose_parallel([ZCDP(1)])  # type: ignore[list-item]


def _part_counts(rows: np.ndarray, parts: tuple[tuple[int, ...], ...]) -> np.ndarray:
    return np.array([np.isin(rows, part).sum() for part in parts])


def test_worst_loss_of_disjoint_and_overlapping_parts() -> None:
    """A release far below every count has loss sum_j eps_j |c_j(x') - c_j(x)| (Laplace
    densities): at most max eps_j = 1 for disjoint parts, 2 for the overlapping twin."""
    rows, eps = np.array([0, 0, 1, 2, 2, 2, 3]), np.array([0.5, 1.0, 1.0])
    for parts, worst in ((((0,), (1,), (2, 3)), 1.0), (OVERLAPPING_PARTS, 2.0)):
        losses = [float(eps @ np.abs(_part_counts(np.append(rows, label), parts)
                                     - _part_counts(rows, parts))) for label in range(4)]
        assert max(losses) == worst
    assert compose_parallel(PureDP(e) for e in ("0.5", 1, 1)).epsilon == 1


# CS2080-ZCDP --------------------------------------------------------------------------------


def _slide(kind: type[SlideZCDP]) -> SlideZCDP:
    return kind((PureDP("0.5"),) * 2, (GaussianMechanism.from_rho(1, Fraction(1, 8)),) * 6)


def test_slide_zcdp_chains_the_four_facts() -> None:
    account = _slide(SlideZCDP)
    assert account.parts() == (ZCDP(Fraction(1, 8)),) * 8
    assert account.rho() == ZCDP(1)
    with mpmath.workdps(30):
        exact = 1 + 2 * mpmath.sqrt(mpmath.log(20))
        upper = account.to_dp(Fraction(1, 20)).epsilon
        eps = mpmath.mpf(upper.numerator) / upper.denominator
        assert exact <= eps <= exact * (1 + mpmath.mpf("1e-14"))


def _hockey_stick(eps: float) -> float:
    """E[(1 - e^{eps - L})_+] of the scenario (2 RR of 1/2, Gaussians with mu^2 = 3/2), by
    conditioning on the randomized responses (mpmath)."""
    with mpmath.workdps(30):
        p = mpmath.e ** 0.5 / (1 + mpmath.e ** 0.5)
        mu = mpmath.sqrt(mpmath.mpf(3) / 2)
        total = mpmath.mpf(0)
        for k, weight in ((1, p * p), (0, 2 * p * (1 - p)), (-1, (1 - p) ** 2)):
            s = eps - k
            total += weight * (mpmath.ncdf(-s / mu + mu / 2)
                               - mpmath.e ** s * mpmath.ncdf(-s / mu - mu / 2))
    return float(total)


def test_max_not_sum_twin_exceeds_twice_its_delta() -> None:
    claimed = _slide(MaxNotSumZCDP).to_dp(Fraction(1, 20))
    assert _hockey_stick(float(claimed.epsilon)) >= 2 * float(claimed.delta)
    valid = _slide(SlideZCDP).to_dp(Fraction(1, 20))
    assert _hockey_stick(float(valid.epsilon)) <= float(valid.delta)
