"""R23-Thm4, R23-Lem4.1, R23-LemA.1, R23-Lem5.1 and R23-Eq2 claims (registry module
``claims/noise_reduction``; the quick-profile verdicts run in tests/statistical/test_claims.py):
each twin's true exceedance is at least twice delta_min (long simulation,
Clopper-Pearson lower bound); the release-order BM oracle is the same joint density as the
mechanism's own (an independent factorisation, not only the same loss)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from adaptive_dp.mechanisms.brownian import BrownianNoiseReduction
from adaptive_dp.mechanisms.noise_reduction import never_stop
from adaptive_dp.verify.judge.estimators import MAX_LOSS_TOLERANCE, Quantity, clopper_pearson
from adaptive_dp.verify.registry import REGISTRY
from adaptive_dp.verify.registry.claims.noise_reduction import bm_release_order_logpdf

EQ2 = "R23-Eq2/stop-at-worst"
CLAIMS = ("R23-Thm4/stop-at-worst", "R23-Lem4.1/stop-at-worst", "R23-LemA.1/stop-at-worst",
          "R23-Lem5.1/adaptive-chain")


@pytest.mark.parametrize("claim_id", CLAIMS)
def test_twin_true_exceedance_at_least_twice_delta_min(claim_id: str) -> None:
    for twin in REGISTRY[claim_id].twins:
        setup = twin.build("quick")
        assert setup.quantity is Quantity.MAX_LOSS and setup.delta_min is not None
        rng = np.random.default_rng(12345)
        n = 4000
        for under in ("x", "x'"):
            stat = setup.experiment(n, rng, under)
            k = int(np.sum(stat > setup.epsilon * (1 + MAX_LOSS_TOLERANCE)))
            assert clopper_pearson(k, n)[0] >= 2 * setup.delta_min, (twin.name, under, k)


def test_eq2_twin_true_mean_at_least_twice_one() -> None:
    """R23-Eq2's twin: a Hoeffding lower bound (level 1e-6, range [0, K]) of its truncated
    mean is at least 2, twice the claimed 1."""
    setup = REGISTRY[EQ2].twins[0].build("quick")
    assert setup.quantity is Quantity.EVALUE
    n = 4000
    for under in setup.orders:
        m = np.minimum(setup.experiment(n, np.random.default_rng(99), under), setup.scale)
        assert m.mean() - setup.scale * math.sqrt(math.log(1e6) / (2 * n)) >= 2.0


def test_quick_and_full_profiles() -> None:
    for claim_id in CLAIMS:
        quick, full = (REGISTRY[claim_id].build(p) for p in ("quick", "full"))
        assert quick.delta_min == 0.02 and full.delta_min == 1e-3
        assert full.samples >= 14 / 1e-3


def test_release_order_oracle_is_the_mechanism_joint_density() -> None:
    times = tuple(float(t) for t in np.geomspace(5.0, 0.1, 8))
    mech = BrownianNoiseReduction(1, times)
    rel = mech.release([0.3], never_stop, np.random.default_rng(7), paths=50)
    stop = np.random.default_rng(8).integers(1, len(times) + 1, 50)
    for center in (0.3, -1.2):
        ours = bm_release_order_logpdf(rel.times, rel.values, stop, center)
        theirs = mech.logpdf_prefix(rel.values, [center], stop)
        np.testing.assert_allclose(ours, theirs, rtol=1e-9, atol=1e-9)
