"""Hypothesis-generated adversaries (at most three per claim, docs/design.md) against valid
claims, and the crossing experiment of the odometer protocol."""

from __future__ import annotations

from collections.abc import Hashable
from fractions import Fraction
from typing import Any

import numpy as np
from hypothesis import given, settings
from verify_strategies import capped

from adaptive_dp.interactive.adversary import GAUSSIAN
from adaptive_dp.verify.judge.adversaries import Constant
from adaptive_dp.verify.judge.claim import CrossingExperiment, Setup, hockey_stick_setup
from adaptive_dp.verify.judge.estimators import Quantity, estimate_crossing
from adaptive_dp.verify.judge.runner import evaluate
from adaptive_dp.verify.judge.simulate import GroupedRule
from adaptive_dp.verify.judge.verdicts import Verdict
from adaptive_dp.verify.registry.bounds import ZCDPComposition


@settings(max_examples=3)
@given(capped((GAUSSIAN,), 0.5, 4))
def test_generated_adversaries_hold_for_zcdp_composition(adversary: Any) -> None:
    # every release has mu <= 1/2 (rho <= 1/8) and there are at most 4: rho = 1/2 in total
    setup = hockey_stick_setup(ZCDPComposition((Fraction(1, 8),) * 4, Fraction(1, 20)),
                               adversary, "generated")
    assert evaluate(setup, 0, "generated", repr(adversary)).verdict is Verdict.HOLDS


def _always(state: Hashable, kind: int, param: float) -> tuple[bool, Hashable]:
    return True, state


def _half(state: Hashable) -> float:
    return 0.5


def test_crossing_experiment_matches_closed_form() -> None:
    # one Gaussian release with mu = 1: L ~ N(1/2, 1), so P[L_1 > 1/2] = 1/2
    experiment = CrossingExperiment(Constant((GAUSSIAN,), 1.0, 1),
                                    GroupedRule(0, _always, bound=_half))
    crossed = experiment(20_000, np.random.default_rng(40), "x")
    est = estimate_crossing(crossed)
    assert est.lower <= 0.5 <= est.upper
    setup = Setup(Quantity.CROSSING, 0.0, 0.6, experiment, 2000, orders=("x",))
    assert evaluate(setup, 1, "crossing").verdict is Verdict.HOLDS
    wrong = Setup(Quantity.CROSSING, 0.0, 0.2, experiment, 2000, orders=("x",))
    assert evaluate(wrong, 1, "crossing").verdict is Verdict.VIOLATED
