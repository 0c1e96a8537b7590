"""R23-Thm3/two-ledgers and its twin ``lookahead-dropped`` (the ex-post ledger without
R23-Lem5.2's look-ahead): the twin's true tail is at least twice delta'', the valid
claim's true tail is within delta'', both computed independently with mpmath from the
closed-form loss laws (Gaussian loss N(R, 2R) for total rho = R, Laplace loss
e * clip(1 - 2y, -1, 1) for y ~ Laplace(0, 1/e)), never from the ledgers under test; and
the twin's experiment samples that law (an empirical check at a loose tolerance)."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest

from adaptive_dp.verify.registry import REGISTRY
from adaptive_dp.verify.registry.claims.expost import THM3_TWIN_LAPLACE_EPSILON

RHO = mpmath.mpf(1) / 100  # each Gaussian round of the scenario
CLAIM = "R23-Thm3/two-ledgers"


def _gaussian_rounds(epsilon: float, dpp: float) -> int:
    """R23-Thm2 (delta = 0): round n+1 runs iff rho_{1:n+1} + 2 sqrt(rho_{1:n+1}
    log(1/delta'')) <= epsilon; the number of rounds that run."""
    with mpmath.workdps(40):
        n = 0
        while True:
            r = (n + 1) * RHO
            if r + 2 * mpmath.sqrt(r * mpmath.log(1 / mpmath.mpf(dpp))) > epsilon:
                return n
            n += 1


def _gaussian_sf(x: mpmath.mpf, total_rho: mpmath.mpf) -> mpmath.mpf:
    """P[G > x] for the Gaussian rounds' total loss G ~ N(R, 2R)."""
    return mpmath.ncdf(-(x - total_rho) / mpmath.sqrt(2 * total_rho))


def _twin_truth(epsilon_laplace: mpmath.mpf, total_rho: mpmath.mpf, at: float) -> mpmath.mpf:
    """P[G + L > at] with one Laplace round of epsilon e: L = e (y <= 0, prob 1/2),
    -e (y >= 1, prob e^{-e}/2), e (1 - 2y) on (0, 1) with density (e/2) e^{-e y}."""
    e = epsilon_laplace
    with mpmath.workdps(40):
        atoms = (_gaussian_sf(at - e, total_rho) / 2
                 + mpmath.exp(-e) / 2 * _gaussian_sf(at + e, total_rho))
        middle = mpmath.quad(
            lambda y: e / 2 * mpmath.exp(-e * y) * _gaussian_sf(at - e * (1 - 2 * y), total_rho),
            [0, 1])
        return atoms + middle


def test_r23_thm3_twin_lookahead_dropped_true_tail_at_least_twice_delta() -> None:
    claim = REGISTRY[CLAIM]
    twin = next(t for t in claim.twins if t.name == "lookahead-dropped")
    assert twin.spec_id == "R23-Lem5.2"
    setup = twin.build("quick")
    n = _gaussian_rounds(1.0, setup.claimed)
    assert n >= 1  # the scenario runs Gaussian rounds before the ledger halts
    # without the look-ahead, the first Laplace request (1.9 > epsilon' = 1) is admitted
    # on an empty ledger, and every later one is refused (1.9 already spent > 1)
    e = mpmath.mpf(THM3_TWIN_LAPLACE_EPSILON.numerator) / THM3_TWIN_LAPLACE_EPSILON.denominator
    truth = _twin_truth(e, n * RHO, setup.epsilon)
    assert truth >= 2 * setup.claimed
    # the twin's experiment samples this law (both orders of the pair are symmetric)
    rng = np.random.default_rng(20261122)
    for under in ("x", "x'"):
        samples = setup.experiment(20_000, rng, under)
        observed = float(np.mean(samples > setup.epsilon))
        assert abs(observed - float(truth)) < 0.02


@pytest.mark.parametrize("profile", ["quick", "full"])
def test_r23_thm3_two_ledgers_true_tail_within_claim(profile: str) -> None:
    """The ex-post ledger's Laplace rounds add at most epsilon' = 1 surely, so
    P[L > 2] <= P[G > 1], which the R23-Thm2 ledger keeps within delta''."""
    setup = REGISTRY[CLAIM].build(profile)
    n = _gaussian_rounds(1.0, setup.claimed)
    with mpmath.workdps(40):
        bound = _gaussian_sf(mpmath.mpf(setup.epsilon) - 1, n * RHO)
    assert bound <= setup.claimed
