"""The PIM claims' oracles and twins (H23-Thm2.17, H23-Alg8, H23-Alg9, H23-Cor2.18,
H23-Alg10 .. H23-Alg15; :mod:`adaptive_dp.verify.registry.claims.pim`).

The quick claims run in tests/statistical/test_claims.py; here: the exact-law oracles on
hand-computed cases, H23-Cor2.18's hypothesis (``simulates``) on the claim's pair and on the
twin's, and every twin's true value from its whole exact law (not sampled): at least twice
its claim, on a mass of views at least twice the smallest detectable one."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from adaptive_dp.interactive.interaction import view_distribution
from adaptive_dp.interactive.mechanism import LAMBDA, RandomizedResponseIM, Refusal
from adaptive_dp.interactive.pim import A, Q, simulates
from adaptive_dp.verify.judge.claim import Claim, Setup
from adaptive_dp.verify.registry.claims import pim as claims
from adaptive_dp.verify.registry.twins.pim import DuplicateAnswer

RR = RandomizedResponseIM(Fraction(3, 4), 1)
_QUICK_DELTA_MIN = 0.02


def _table(setup: Setup, under: str) -> tuple[np.ndarray, np.ndarray]:
    return setup.experiment.table(under)  # type: ignore[attr-defined, no-any-return]


def _claim(claim_id: str) -> Claim:
    return next(c for c in claims.CLAIMS if c.id == claim_id)


def test_loss_oracle_on_one_randomized_response() -> None:
    """One answer of RR(3/4) on the differing bit: views STARTED, b with probability 3/4
    (b = x_0) or 1/4, losses +ln 3 and -ln 3."""
    table = claims._loss_table(claims._views(claims._scripted(lambda h: 0, 1), RR))
    probs, stat = table("x")
    got = sorted(zip(probs.tolist(), stat.tolist(), strict=True))
    np.testing.assert_allclose(got, [(0.25, -math.log(3)), (0.75, math.log(3))], rtol=1e-12)


def test_gap_oracle_on_two_laws() -> None:
    """RR(3/4) against RR(2/3): the mixture (3/4 + 2/3)/2 on the kept bit and the gap
    |ln(3/4) - ln(2/3)|; a view of one law only has an infinite gap."""
    adv = claims._scripted(lambda h: 0, 1)
    other = RandomizedResponseIM(Fraction(2, 3), 1)
    probs, stat = claims._gap_table(claims._views(adv, RR), claims._views(adv, other))("x")
    got = sorted(zip(probs.tolist(), stat.tolist(), strict=True))
    kept = math.log(Fraction(3, 4) / Fraction(2, 3))
    flipped = math.log(Fraction(1, 3) / Fraction(1, 4))
    np.testing.assert_allclose(got, [(7 / 24, flipped), (17 / 24, kept)], rtol=1e-12)
    none = claims._gap_table(claims._views(adv, RR),
                             lambda x: {(LAMBDA, "other"): Fraction(1)})("x")
    assert np.isinf(none[1]).sum() == 3


def test_cut_at_stop() -> None:
    assert claims.cut_at_stop((1, Refusal.INSUFFICIENT_BUDGET, Refusal.HALT)) == (1,)
    assert claims.cut_at_stop((1, 2, Refusal.HALT)) == (1, 2)
    assert claims.cut_at_stop((1, Refusal.INVALID_QUERY)) == (1, Refusal.INVALID_QUERY)


def test_ask_twice_caches_a_repeat_only() -> None:
    pim = claims.AskTwice()
    s, v, m = pim.step(LAMBDA, A, "started")
    assert (v, m) == (A, "started")
    s, v, m = pim.step(s, Q, 0)
    s, v, m = pim.step(s, A, 1)
    assert (v, m) == (Q, 0)
    s, v, m = pim.step(s, A, 0)
    assert (v, m) == (A, (1, 0))
    assert pim.step(s, Q, 0)[1:] == (A, (1, 0))
    assert pim.step(s, Q, 1)[1:] == (Q, 1)
    assert claims.AskTwice(cache=False).step(s, Q, 0)[1:] == (Q, 0)


def test_cor218_hypothesis_holds_for_the_claim_pair_only() -> None:
    """H23-Cor2.18: N (pairs of RR answers) is simulated by AskTwice o RR(3/4, 4 answers),
    not by the twin's DuplicateAnswer o RR(3/4, 2 answers)."""
    adv = claims._COR_ADVERSARY
    n = claims.PairRR(Fraction(3, 4), 2)
    pair = (claims._X, claims._X_PRIME)
    assert simulates(adv, n, claims.AskTwice(cache=False),
                     RandomizedResponseIM(Fraction(3, 4), 4), pair)
    assert not simulates(adv, n, DuplicateAnswer(), RandomizedResponseIM(Fraction(3, 4), 2),
                         pair)
    law = view_distribution(adv, n, claims._X)
    assert sum(law.values()) == 1


@pytest.mark.parametrize("claim_id", [
    "H23-Thm2.17/ask-twice", "H23-Cor2.18/pair-rr",
])
def test_max_loss_twins_exceed_twice_their_claim(claim_id: str) -> None:
    """The twins' largest loss is at least twice their claimed epsilon, and the views
    above the claim carry at least twice the smallest detectable mass (exact laws)."""
    twin = _claim(claim_id).twins[0].build("quick")
    for under in ("x", "x'"):
        probs, stat = _table(twin, under)
        assert stat.max() >= 2 * twin.epsilon * (1 - 1e-12)
        assert probs[stat > twin.epsilon * (1 + 1e-9)].sum() >= 2 * _QUICK_DELTA_MIN


@pytest.mark.parametrize("claim_id", [
    "H23-Alg8/ask-twice", "H23-Alg9/ask-twice", "H23-Cor2.18/simulation",
    "H23-Alg11/launch-query", "H23-Alg12/split", "H23-Alg13/zcdp-launches",
    "H23-Alg14/privacy-loss", "H23-Alg15/privacy-loss",
])
def test_equivalence_twins_differ_on_enough_mass(claim_id: str) -> None:
    """The equivalence claims' laws are equal exactly; each twin's laws differ on views
    carrying at least twice the smallest detectable mass of the mixture."""
    claim = _claim(claim_id)
    real, twin = claim.build("quick"), claim.twins[0].build("quick")
    for under in ("x", "x'"):
        assert not _table(real, under)[1].any()
        probs, stat = _table(twin, under)
        assert probs[stat > twin.epsilon].sum() >= 2 * _QUICK_DELTA_MIN


def _hockey_stick(setup: Setup, under: str) -> float:
    probs, loss = _table(setup, under)
    terms = np.maximum(0.0, 1.0 - np.exp(setup.epsilon - loss))
    return float((probs * terms).sum())


def test_alg10_exact_hockey_sticks() -> None:
    """H23-Alg10: U's exact hockey-stick is within the converted delta (0 here: the one
    accepted answer has loss ln 3, below the converted epsilon); the twin's is at least
    twice the claimed delta."""
    claim = _claim("H23-Alg10/launch-over-budget")
    real, twin = claim.build("quick"), claim.twins[0].build("quick")
    assert real.epsilon > math.log(3)
    for under in ("x", "x'"):
        assert _hockey_stick(real, under) == 0
        assert _hockey_stick(twin, under) >= 2 * twin.claimed
