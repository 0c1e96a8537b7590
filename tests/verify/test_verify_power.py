"""The detectable ratio (docs/design.md, verification: power) against simulated verdicts.

For a few ``(n, claimed)`` the judge's own decision is applied to simulated outcomes with
a true value ``r x claimed``; the fraction flagged must be 0.95 (tail, crossing: exact)
or at least 0.95 (hockey-stick, e-values: conservative), within four standard errors
of the simulation itself.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import binom

from adaptive_dp.verify.judge.estimators import (
    POWER,
    Estimate,
    Quantity,
    clopper_pearson,
    detectable_exceedance,
    detectable_ratio,
    estimate_hockey_stick,
    estimate_truncated_mean,
)
from adaptive_dp.verify.judge.verdicts import Verdict, judge

_RUNS = 20_000


def _tolerance(runs: int) -> float:
    """Four standard errors of a simulated probability near POWER."""
    return 4.0 * math.sqrt(POWER * (1.0 - POWER) / runs)


def _tail_power(n: int, claimed: float, p: float, rng: np.random.Generator) -> float:
    """The fraction of simulated Bin(n, p) counts that the judge flags."""
    counts = rng.binomial(n, p, size=_RUNS)
    flags = {}
    for k in np.unique(counts):
        lower = clopper_pearson(int(k), n)[0]
        estimate = Estimate(Quantity.TAIL, n, k / n, lower, 1.0, exceed=int(k))
        flags[int(k)] = judge(estimate, claimed) is Verdict.VIOLATED
    return float(np.mean([flags[int(k)] for k in counts]))


@pytest.mark.parametrize(("n", "claimed"), [(1053, 0.05), (205, 0.2), (5000, 0.01)])
def test_tail_ratio_is_exact(n: int, claimed: float) -> None:
    rng = np.random.default_rng(16)
    ratio = detectable_ratio(Quantity.TAIL, claimed, n)
    assert abs(_tail_power(n, claimed, ratio * claimed, rng) - POWER) < _tolerance(_RUNS)
    assert _tail_power(n, claimed, 0.9 * ratio * claimed, rng) < POWER - _tolerance(_RUNS)
    # independently: the smallest flagged count by enumeration, its binomial tail at r
    first = next(k for k in range(n + 1) if clopper_pearson(k, n)[0] > claimed)
    assert binom.sf(first - 1, n, ratio * claimed) == pytest.approx(POWER, abs=1e-9)
    assert detectable_ratio(Quantity.CROSSING, claimed, n) == ratio


def test_no_ratio_without_samples_or_claim() -> None:
    assert detectable_ratio(Quantity.TAIL, 0.05, 3) == math.inf  # 3 of 3 is not enough
    # 5 of 5 is (1e-6^(1/5) > 0.05); P[Bin(5, p) = 5] = 0.95 at p = 0.95^(1/5)
    assert detectable_ratio(Quantity.TAIL, 0.05, 5) == pytest.approx(0.95**0.2 / 0.05)
    assert detectable_ratio(Quantity.HOCKEY_STICK, 0.0, 1000) == math.inf
    assert detectable_ratio(Quantity.HOCKEY_STICK, 0.05, 20) == math.inf
    with pytest.raises(ValueError, match="detectable_exceedance"):
        detectable_ratio(Quantity.MAX_LOSS, 0.5, 1000)


@pytest.mark.parametrize(("n", "claimed"), [(1014, 0.142), (659, 0.2)])
def test_hockey_stick_ratio_is_conservative(n: int, claimed: float) -> None:
    """Terms in {0, 1} (the largest variance of their mean) and uniform on [0, 2 mu]:
    the estimator and the judge flag at least 95% at the detectable ratio."""
    rng = np.random.default_rng(17)
    ratio = detectable_ratio(Quantity.HOCKEY_STICK, claimed, n)
    mu = ratio * claimed
    runs = 1500
    bernoulli = np.where(rng.random((runs, n)) < mu, np.inf, -np.inf)  # terms 1 and 0
    uniform = -np.log1p(-rng.uniform(0.0, 2.0 * mu, (runs, n)))  # terms uniform, epsilon 0
    for losses in (bernoulli, uniform):
        flagged = np.mean([judge(estimate_hockey_stick(row, 0.0), claimed) is Verdict.VIOLATED
                           for row in losses])
        assert flagged >= POWER - _tolerance(runs)
    # not absurdly conservative: half the ratio is flagged less than 95% of the time
    half = np.where(rng.random((runs, n)) < mu / 2, np.inf, -np.inf)
    flagged = np.mean([judge(estimate_hockey_stick(row, 0.0), claimed) is Verdict.VIOLATED
                       for row in half])
    assert flagged < POWER


def test_evalue_ratio_is_conservative() -> None:
    """Truncated e-values on {0, K} with mean r: flagged at least 95% of the time."""
    rng = np.random.default_rng(18)
    n, cap = 5936, 2.0
    ratio = detectable_ratio(Quantity.EVALUE, 1.0, n, cap)
    runs = 1000
    values = np.where(rng.random((runs, n)) < ratio / cap, cap, 0.0)
    flagged = np.mean([judge(estimate_truncated_mean(row, cap), 1.0) is Verdict.VIOLATED
                       for row in values])
    assert flagged >= POWER - _tolerance(runs)


@pytest.mark.parametrize("n", [1400, 28_000])
def test_detectable_exceedance(n: int) -> None:
    p = detectable_exceedance(n)
    assert binom.sf(0, n, p) == pytest.approx(POWER, abs=1e-12)
    seen = np.random.default_rng(19).binomial(n, p, size=_RUNS) > 0
    assert abs(float(seen.mean()) - POWER) < _tolerance(_RUNS)
