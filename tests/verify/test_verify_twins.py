"""Twins: each is violated by at least twice its claimed value in its scenario, shown by
exact computation with the loss oracles of ``adaptive_dp.loss`` (never the bound under
test); and, where the scenario is non-adaptive, the valid claim's true value is within
its claim. Also: the registry's shape (adaptive claims have budget-hugging and
stop-at-worst scenarios)."""

from __future__ import annotations

import math
from collections.abc import Callable

import pytest

from adaptive_dp.loss import gaussian_hockey_stick, pld, rr_composed_pld
from adaptive_dp.mechanisms import LaplaceMechanism
from adaptive_dp.verify.judge.claim import Setup
from adaptive_dp.verify.judge.estimators import MAX_LOSS_TOLERANCE, Quantity
from adaptive_dp.verify.registry import REGISTRY


def _gauss(mu: float) -> Callable[[Setup], float]:
    return lambda s: gaussian_hockey_stick(mu, s.epsilon)


def _rr_hockey(eps: float, k: int) -> Callable[[Setup], float]:
    return lambda s: rr_composed_pld(eps, k).hockey_stick(s.epsilon)


def _rr_tail(eps: float, k: int) -> Callable[[Setup], float]:
    return lambda s: rr_composed_pld(eps, k).tail(s.epsilon * (1 + MAX_LOSS_TOLERANCE))


def _laplace_tail(scale: float, distance: int = 1) -> Callable[[Setup], float]:
    def truth(s: Setup) -> float:
        mechanism = LaplaceMechanism(distance, scale)  # inputs `distance` apart
        return pld(mechanism).tail(s.epsilon * (1 + MAX_LOSS_TOLERANCE))
    return truth


# the true value of the quantity in each twin's scenario, from the loss oracles
TWIN_TRUTH: dict[tuple[str, str], Callable[[Setup], float]] = {
    ("R23-Lem2.1", "halved-scale"): _laplace_tail(1.0),
    ("CS2080-GaussianSigma", "printed-unrestricted"): _gauss(10 / math.sqrt(2 * math.log(40))),
    ("CS2080-GroupPrivacy", "group-size-minus-one"): _laplace_tail(4.0, 3),
    ("R23-Lem2.2", "variance-as-sigma"): _gauss(4.0),
    ("EXT-RandomizedResponse", "doubled-epsilon"): _rr_tail(1.0, 1),
    ("R23-Lem2.3", "halved-rho"): _gauss(4.0),
    ("R23-Lem2.4", "drop-last"): _gauss(math.sqrt(2.0)),
    ("CS2080-BasicComp", "drop-last"): _rr_tail(0.5, 3),
    ("CS2080-AdvComp", "no-drift"): _rr_hockey(2.0, 10),
    ("EXT-CKS20", "halved-rho"): _gauss(2.0),
    ("EXT-BBGHS20", "halved-rdp-epsilon"): _gauss(2.0),
    ("EXT-Mironov17", "rdp-epsilon-as-dp"): _gauss(2.0),
    ("EXT-DRS19", "halved-mu"): _gauss(1.0),
    ("EXT-GDPComposition", "drop-last"): _gauss(math.sqrt(2.0)),
    ("EXT-KOV15", "k-minus-one"): _rr_hockey(1.0, 4),
}

# the true value of non-adaptive valid claims (symmetric mechanisms: both orders agree)
CLAIM_TRUTH: dict[str, Callable[[Setup], float]] = {
    "CS2080-GaussianSigma/gaussian": lambda s: gaussian_hockey_stick(
        1 / math.sqrt(2 * math.log(2 / s.claimed)), 1.0),
    "R23-Lem2.2/gaussian": _gauss(2.0),
    "R23-Lem2.3/gaussian": _gauss(4.0),
    "R23-Lem2.4/budget-hugging": _gauss(1.0),
    "EXT-CKS20/gaussian": _gauss(2.0),
    "EXT-BBGHS20/gaussian": _gauss(2.0),
    "EXT-Mironov17/gaussian": _gauss(2.0),
    "EXT-DRS19/gaussian": _gauss(1.0),
    "EXT-GDPComposition/budget-hugging": _gauss(1.5),
    "EXT-GDPComposition/generated-doubling": _gauss(math.sqrt(1 / 64 + 1 / 16 + 1 / 4 + 1)),
}

FOUNDATION = ("CS2080-GaussianSigma", "CS2080-GroupPrivacy", "R23-Lem2.1", "R23-Lem2.2",
              "EXT-RandomizedResponse", "R23-Lem2.3", "R23-Lem2.4", "CS2080-BasicComp",
              "CS2080-AdvComp", "EXT-CKS20", "EXT-BBGHS20", "EXT-Mironov17", "EXT-DRS19",
              "EXT-GDPComposition", "EXT-KOV15")
ADAPTIVE = ("R23-Lem2.4", "CS2080-BasicComp", "CS2080-AdvComp", "EXT-GDPComposition",
            "EXT-KOV15")


PAIRS = sorted((c.id, t.name) for c in REGISTRY.values() if c.spec_id in FOUNDATION
               for t in c.twins)


def test_every_foundation_twin_has_an_exact_witness() -> None:
    assert {(REGISTRY[cid].spec_id, name) for cid, name in PAIRS} == set(TWIN_TRUTH)
    foundation = [c for c in REGISTRY.values() if c.spec_id in FOUNDATION]
    assert all(c.twins for c in foundation)  # every claim has a twin


@pytest.mark.parametrize(("claim_id", "twin"), PAIRS)
def test_twin_true_value_is_at_least_twice_its_claim(claim_id: str, twin: str) -> None:
    claim = REGISTRY[claim_id]
    setup = next(t for t in claim.twins if t.name == twin).build("quick")
    truth = TWIN_TRUTH[(claim.spec_id, twin)](setup)
    if setup.quantity is Quantity.MAX_LOSS:
        assert setup.delta_min is not None
        assert truth >= 2 * setup.delta_min
    else:
        assert truth >= 2 * setup.claimed


@pytest.mark.parametrize("claim_id", sorted(CLAIM_TRUTH))
def test_valid_claim_true_value_within_claim(claim_id: str) -> None:
    for profile in ("quick", "full"):
        setup = REGISTRY[claim_id].build(profile)
        assert CLAIM_TRUTH[claim_id](setup) <= setup.claimed


def test_adaptive_claims_have_hugging_and_stop_at_worst() -> None:
    for spec in ADAPTIVE:
        scenarios = {c.scenario for c in REGISTRY.values() if c.spec_id == spec}
        assert {"budget-hugging", "stop-at-worst"} <= scenarios, spec
    assert {c.spec_id for c in REGISTRY.values()} >= set(FOUNDATION)


def test_quick_profile_deltas_in_range_and_full_uses_1e3() -> None:
    for claim in (c for c in REGISTRY.values() if c.spec_id in FOUNDATION):
        quick, full = claim.build("quick"), claim.build("full")
        if quick.quantity is Quantity.MAX_LOSS:
            assert quick.delta_min == 0.02 and full.delta_min == 1e-3
        else:
            assert 0.02 <= quick.claimed <= 0.2, claim.id
            assert full.claimed <= 1e-3 + 1e-12, claim.id
