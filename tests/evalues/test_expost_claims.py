"""Issue 7's registered claims (verify/claims/expost.py), quick profile: every claim holds
at 1 - 1e-6 with power and every twin is caught (until the registry lists the module, this
test runs them directly)."""

from __future__ import annotations

import pytest

from adaptive_dp.verify.claims.base import Claim
from adaptive_dp.verify.claims.expost import CLAIMS
from adaptive_dp.verify.runner import run_claim
from adaptive_dp.verify.verdicts import Verdict


@pytest.mark.parametrize("claim", CLAIMS, ids=[c.id for c in CLAIMS])
def test_claim_holds_and_twins_are_caught(claim: Claim) -> None:
    result = run_claim(claim, "quick", 0)
    assert result.verdict is Verdict.HOLDS, result.result
    for twin in result.twins:
        assert twin.result.verdict is Verdict.VIOLATED, (twin.name, twin.result)
