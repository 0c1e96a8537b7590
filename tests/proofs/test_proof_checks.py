"""Run every check of every shipped proof, then its mutants (DESIGN, "Proofs").

Every ``algebra``/``numeric`` step must pass, must not be a restatement, and every
single-site mutant of its asserted relation must fail or raise
(``adaptive_dp.verify.proofs`` documents the mutation rule).
"""

from __future__ import annotations

import pytest

from adaptive_dp.verify.proofs import (
    Step,
    all_proofs,
    evaluate_check,
    mutants,
    trivial_reason,
)

MUTANT_TIMEOUT = 20.0


def _checked_steps() -> list[Step]:
    return [step for proof in all_proofs() for step in proof.steps if step.kind != "argument"]


STEPS = _checked_steps()
IDS = [f"{step.proof_id}#{step.number}" for step in STEPS]


@pytest.mark.parametrize("step", STEPS, ids=IDS)
def test_check_passes(step: Step) -> None:
    result = evaluate_check(step)
    assert result.passed, f"{step.label}: {result.detail}"


@pytest.mark.parametrize("step", STEPS, ids=IDS)
def test_check_is_not_a_restatement(step: Step) -> None:
    assert trivial_reason(step) is None, f"{step.label}: {trivial_reason(step)}"


@pytest.mark.parametrize("step", STEPS, ids=IDS)
def test_every_mutant_dies(step: Step) -> None:
    survivors = []
    count = 0
    for mutant in mutants(step):
        count += 1
        if mutant.survives(MUTANT_TIMEOUT):
            survivors.append(mutant.description)
    assert count > 0, f"{step.label}: no mutation site"
    assert not survivors, f"{step.label}: surviving mutants: {survivors}"


def test_checked_share_overall() -> None:
    proofs = all_proofs()
    steps = sum(len(proof.steps) for proof in proofs)
    checked = sum(len(proof.checked_steps) for proof in proofs)
    assert proofs
    assert checked / steps >= 0.6, f"only {checked}/{steps} steps are checked"


def test_every_proof_has_a_checked_step() -> None:
    for proof in all_proofs():
        assert proof.checked_steps, f"{proof.id} has no checked step"
