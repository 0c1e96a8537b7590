"""Run registered claims in the quick profile from a tutorial and print their verdicts.

The same judge as ``adaptive-dp verify --quick --only ID`` (docs/design.md, Verification):
``select`` picks the claims by id or prefix, ``run_claims`` draws and judges them with the
default seed 0 in this process, and the report is the one ``verify`` prints: the claims
table, then the twins (negative controls, which must be caught).
"""

from __future__ import annotations

from adaptive_dp.verify.judge.report import report
from adaptive_dp.verify.judge.runner import ClaimResult, run_claims, select
from adaptive_dp.verify.registry import REGISTRY, load

__all__ = ["show_claims"]


def show_claims(*ids: str) -> list[ClaimResult]:
    """Run the claims matching ``ids`` (quick profile, seed 0) and print the verify report."""
    results = run_claims(load, select(REGISTRY, ids), "quick", 0)
    print(report(results, "quick"))
    return results
