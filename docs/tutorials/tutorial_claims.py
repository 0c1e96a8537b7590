"""Run registered claims in the quick profile from a tutorial and print their verdicts.

The same judge as ``adaptive-dp verify --quick --only ID`` (docs/design.md, Verification):
``select`` picks the claims by id or prefix, ``run_claims`` draws and judges them with the
default seed 0 in this process. Each claim prints one row, then each of its twins (negative
controls, which must be caught: their verdict must be ``violated``).
"""

from __future__ import annotations

from adaptive_dp.verify.judge.runner import ClaimResult, TestResult, run_claims, select
from adaptive_dp.verify.registry import REGISTRY, load

__all__ = ["show_claims"]


def _row(label: str, result: TestResult) -> str:
    return (f"{label:<46} {result.quantity.value:<12} {result.samples:>7} "
            f"{result.estimate:>10.4g} {result.lower:>10.4g} {result.claimed:>10.4g}  "
            f"{result.verdict.value}")


def show_claims(*ids: str) -> list[ClaimResult]:
    """Run the claims matching ``ids`` (quick profile, seed 0) and print a verdict table."""
    results = run_claims(load, select(REGISTRY, ids), "quick", 0)
    print(f"{'claim / twin':<46} {'quantity':<12} {'samples':>7} {'estimate':>10} "
          f"{'lower':>10} {'claimed':>10}  verdict")
    for r in results:
        print(_row(r.claim_id, r.result))
        for t in r.twins:
            print(_row(f"  twin {t.name}", t.result)
                  + ("  (caught)" if t.caught else "  (NOT CAUGHT)"))
        print(f"  {REGISTRY[r.claim_id].summary}")
    return results
