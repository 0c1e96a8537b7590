"""Every registered claim holds and every twin is caught (quick profile, seed 0).

This module only parametrises over ``adaptive_dp.verify.registry.claims.REGISTRY``; the full
profile runs under ``-m slow``.
"""

from __future__ import annotations

import pytest

from adaptive_dp.verify.judge.runner import run_claim
from adaptive_dp.verify.judge.verdicts import Verdict
from adaptive_dp.verify.registry import REGISTRY


def _check(claim_id: str, profile: str) -> None:
    result = run_claim(REGISTRY[claim_id], profile, seed=0)
    assert result.result.error is None, result.result.error
    assert result.verdict is Verdict.HOLDS, result.result
    for twin in result.twins:
        assert twin.result.error is None, twin.result.error
        assert twin.caught, (twin.name, twin.result)


@pytest.mark.parametrize("claim_id", list(REGISTRY))
def test_claim_holds_and_twins_caught(claim_id: str) -> None:
    _check(claim_id, "quick")


@pytest.mark.slow
@pytest.mark.parametrize("claim_id", list(REGISTRY))
def test_claim_holds_full_profile(claim_id: str) -> None:
    _check(claim_id, "full")
