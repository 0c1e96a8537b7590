"""Verdict rules exactly as docs/design.md states them."""

from __future__ import annotations

import pytest

from adaptive_dp.verify.judge.estimators import Estimate, Quantity, required_samples
from adaptive_dp.verify.judge.verdicts import (
    EVALUE_TARGET,
    TARGETS,
    Verdict,
    has_power,
    judge,
    target,
    worst,
)


def _est(q: Quantity, n: int, lower: float, exceed: int = 0, scale: float = 1.0) -> Estimate:
    return Estimate(q, n, lower, lower, 1.0, exceed, scale)


def test_violated_iff_lower_bound_exceeds_claim() -> None:
    n = 100_000
    assert judge(_est(Quantity.HOCKEY_STICK, n, 0.051), 0.05) is Verdict.VIOLATED
    assert judge(_est(Quantity.HOCKEY_STICK, n, 0.05), 0.05) is Verdict.HOLDS  # not strictly above


def test_holds_needs_the_profiles_detectable_ratio_else_weak() -> None:
    assert TARGETS == {"quick": 2.0, "full": 1.25}
    powered = required_samples(Quantity.TAIL, 0.05, TARGETS["quick"])
    assert judge(_est(Quantity.TAIL, powered, 0.0), 0.05) is Verdict.HOLDS
    assert judge(_est(Quantity.TAIL, powered - 1, 0.0), 0.05) is Verdict.WEAK
    assert judge(_est(Quantity.TAIL, powered, 0.0), 0.05, profile="full") is Verdict.WEAK
    full = required_samples(Quantity.TAIL, 0.05, TARGETS["full"])
    assert judge(_est(Quantity.TAIL, full, 0.0), 0.05, profile="full") is Verdict.HOLDS
    assert judge(_est(Quantity.TAIL, 10, 0.0), 0.0) is Verdict.WEAK  # delta = 0: no power
    with pytest.raises(ValueError, match="profile"):
        target(Quantity.TAIL, "medium")


def test_evalue_rule_uses_one_and_its_target() -> None:
    n = required_samples(Quantity.EVALUE, 1.0, EVALUE_TARGET, scale=2.0)
    assert EVALUE_TARGET == 1.1 and target(Quantity.EVALUE, "full") == EVALUE_TARGET
    assert has_power(_est(Quantity.EVALUE, n, 0.0, scale=2.0), 1.0)
    assert not has_power(_est(Quantity.EVALUE, n - 1, 0.0, scale=2.0), 1.0)
    assert judge(_est(Quantity.EVALUE, n, 1.01, scale=2.0), 1.0) is Verdict.VIOLATED


def test_max_loss_rule() -> None:
    assert judge(_est(Quantity.MAX_LOSS, 10, 2.0, exceed=1), 1.0, 0.02) is Verdict.VIOLATED
    assert judge(_est(Quantity.MAX_LOSS, 700, 1.0), 1.0, 0.02) is Verdict.HOLDS
    assert judge(_est(Quantity.MAX_LOSS, 699, 1.0), 1.0, 0.02) is Verdict.WEAK
    with pytest.raises(ValueError):
        judge(_est(Quantity.MAX_LOSS, 700, 1.0), 1.0)


def test_worst() -> None:
    assert worst(Verdict.HOLDS, Verdict.WEAK) is Verdict.WEAK
    assert worst(Verdict.WEAK, Verdict.VIOLATED, Verdict.HOLDS) is Verdict.VIOLATED
    assert worst(Verdict.VIOLATED, Verdict.ERROR) is Verdict.ERROR
