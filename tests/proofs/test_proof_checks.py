"""Run every check of every shipped proof, then its mutants (docs/design.md, proofs).

Every ``algebra``/``numeric`` step must pass, must not be a restatement, and every
single-site mutant of its asserted relation must fail or raise
(``adaptive_dp.catalogue.proofs`` documents the mutation rule); every ``example`` step must
pass. The mutation test records each step's result in
``docs/results/proof-mutants/<proof id>.json`` (read by the docs' proof pages), rewriting a
file only when a figure changed.

The mutants of a step are a deterministic function of its code, the mutator and sandbox
(their source) and the sympy and mpmath versions; the record carries a hash of all four.
The default run reruns a step's mutants only when that hash differs from the recorded one
(so every edited check, and every check after a change of the mutator or of sympy, is
mutated in the run that changes it); ``-m slow`` reruns every mutant of every step.
"""

from __future__ import annotations

import fcntl
import functools
import hashlib
import importlib
import json
import time
from pathlib import Path

import mpmath
import pytest
import sympy

from adaptive_dp.catalogue.proofs import (
    CHECKED_KINDS,
    ProofFormatError,
    Step,
    all_proofs,
    evaluate_check,
    load_proof,
    mutant_timeout,
    mutants,
    proof_ids,
    trivial_reason,
)

# The foundation proofs of the "proofs" brief: at least 60% of their steps are checked.
FOUNDATION = (
    "EXT-GaussianRDP",
    "R23-Lem2.1",
    "R23-Lem2.2",
    "R23-Lem2.3",
    "R23-Lem2.4",
    "EXT-CKS20",
    "EXT-Mironov17",
    "EXT-BBGHS20",
    "EXT-DRS19",
    "EXT-GDPComposition",
    "CS2080-AdvComp",
    "EXT-KOV15",
    "CS2080-GroupPrivacy",
    "CS2080-BasicComp",
    "EXT-RandomizedResponse",
)


MUTANTS = Path(__file__).resolve().parents[2] / "docs" / "results" / "proof-mutants"


@functools.cache
def _tooling() -> bytes:
    """The mutator's and the sandbox's source and the sympy and mpmath versions."""
    # by name: the package's `mutants` is the function, not the module
    modules = [importlib.import_module(f"adaptive_dp.catalogue.proofs.{name}")
               for name in ("mutants", "sandbox")]
    parts = [Path(str(module.__file__)).read_bytes() for module in modules]
    parts.append(f"sympy {sympy.__version__} mpmath {mpmath.__version__}".encode())
    return b"\0".join(parts)


def _key(step: Step) -> str:
    """What a step's mutation result depends on: its code and :func:`_tooling` (module
    docstring)."""
    return hashlib.sha256((step.code or "").encode() + b"\0" + _tooling()).hexdigest()[:16]


def _recorded(step: Step) -> dict[str, object] | None:
    path = MUTANTS / f"{step.proof_id}.json"
    if not path.is_file():
        return None
    entry: dict[str, object] | None = json.loads(path.read_text("utf-8"))["steps"].get(step.label)
    return entry


def _record(step: Step, total: int, killed: int) -> None:
    """Write ``step``'s mutation result into its proof's results file (xdist-safe: locked)."""
    MUTANTS.mkdir(parents=True, exist_ok=True)
    current = [s.label for s in load_proof(step.proof_id).checked_steps]
    with (MUTANTS / f"{step.proof_id}.json").open("a+", encoding="utf-8") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        handle.seek(0)
        text = handle.read()
        old = json.loads(text)["steps"] if text.strip() else {}
        old[step.label] = {"mutants": total, "killed": killed, "key": _key(step)}
        steps = {label: old[label] for label in current if label in old}
        new = json.dumps({"proof": step.proof_id, "steps": steps}, indent=2) + "\n"
        if new != text:
            handle.seek(0)
            handle.truncate()
            handle.write(new)


def _load_all() -> tuple[list[Step], dict[str, str]]:
    """Steps of every parsable proof; a malformed file fails its own test, not collection."""
    steps: list[Step] = []
    errors: dict[str, str] = {}
    for proof_id in proof_ids():
        try:
            proof = load_proof(proof_id)
        except ProofFormatError as error:
            errors[proof_id] = str(error)
            continue
        steps.extend(step for step in proof.steps if step.kind != "argument")
    return steps, errors


STEPS, FORMAT_ERRORS = _load_all()
IDS = [f"{step.proof_id}#{step.number}" for step in STEPS]
CHECKED = [step for step in STEPS if step.kind in CHECKED_KINDS]
CHECKED_IDS = [f"{step.proof_id}#{step.number}" for step in CHECKED]


@pytest.mark.parametrize("proof_id", proof_ids())
def test_proof_file_parses(proof_id: str) -> None:
    assert proof_id not in FORMAT_ERRORS, FORMAT_ERRORS.get(proof_id)


@pytest.mark.parametrize("step", STEPS, ids=IDS)
def test_check_passes(step: Step) -> None:
    result = evaluate_check(step)
    assert result.passed, f"{step.label}: {result.detail}"


@pytest.mark.parametrize("step", CHECKED, ids=CHECKED_IDS)
def test_check_is_not_a_restatement(step: Step) -> None:
    assert trivial_reason(step) is None, f"{step.label}: {trivial_reason(step)}"


def _mutate(step: Step, record: bool = True) -> None:
    started = time.perf_counter()
    baseline = evaluate_check(step)
    timeout = mutant_timeout(time.perf_counter() - started)
    assert baseline.passed, f"{step.label}: the unmutated check fails: {baseline.detail}"
    survivors = []
    count = 0
    for mutant in mutants(step):
        count += 1
        if mutant.survives(timeout):
            survivors.append(mutant.description)
    if record:
        _record(step, count, count - len(survivors))
    assert count > 0, f"{step.label}: no mutation site"
    assert not survivors, f"{step.label}: surviving mutants: {survivors}"


@pytest.mark.parametrize("step", CHECKED, ids=CHECKED_IDS)
def test_every_mutant_dies(step: Step) -> None:
    """Reruns the mutants unless the record holds this step's key with every mutant killed."""
    entry = _recorded(step)
    total = entry.get("mutants") if entry else None
    if (entry is not None and entry.get("key") == _key(step) and isinstance(total, int)
            and total > 0 and entry.get("killed") == total):
        return
    _mutate(step)


@pytest.mark.slow
@pytest.mark.parametrize("step", CHECKED, ids=CHECKED_IDS)
def test_every_mutant_dies_rerun(step: Step) -> None:
    """Every mutant of every step, whatever the record says."""
    _mutate(step)


# Issue 16's bar on the checked share: 85% of all steps, no proof below 50% (session 8:
# 430/502 = 85.7%, lowest proofs at 1/2). Raise these as proofs gain checks, never lower them.
OVERALL_FLOOR = 0.85
PER_PROOF_FLOOR = 1 / 2


def test_overall_checked_share() -> None:
    proofs = all_proofs()
    steps = sum(len(proof.steps) for proof in proofs)
    checked = sum(len(proof.checked_steps) for proof in proofs)
    assert checked / steps >= OVERALL_FLOOR, f"only {checked}/{steps} steps are checked"
    low = [f"{p.id} {p.checked_share:.0%}" for p in proofs if p.checked_share < PER_PROOF_FLOOR]
    assert not low, f"proofs below {PER_PROOF_FLOOR:.0%} checked: {low}"


def test_foundation_checked_share() -> None:
    proofs = [load_proof(proof_id) for proof_id in FOUNDATION]
    steps = sum(len(proof.steps) for proof in proofs)
    checked = sum(len(proof.checked_steps) for proof in proofs)
    assert checked / steps >= 0.6, f"only {checked}/{steps} steps are checked"
    for proof in proofs:
        assert proof.checked_steps, f"{proof.id} has no checked step"
        assert proof.provenance, f"{proof.id} does not say what is external or reconstructed"


def test_foundation_proofs_cite_spec_ids() -> None:
    import tomllib

    from adaptive_dp.resources import data_dir

    known: set[str] = set()
    for entry in data_dir("spec").iterdir():
        if entry.name.endswith(".toml"):
            for item in tomllib.loads(entry.read_text(encoding="utf-8")).get("item", []):
                known.add(item["id"])
                known.update(item.get("aliases", []))
    for proof_id in FOUNDATION:
        assert proof_id in known, f"{proof_id} is not a spec id"
        unknown = [used for used in load_proof(proof_id).uses if used not in known]
        assert not unknown, f"{proof_id} cites unknown ids {unknown}"


def test_an_edited_check_is_mutated_again() -> None:
    """The record is keyed by the code: a loosened copy of a recorded step has a new key, so
    the default run mutates it, and its surviving mutant fails the test."""
    import dataclasses

    step = CHECKED[0]
    loose = dataclasses.replace(step, code="def check() -> bool:\n    return 2 <= 10\n")
    assert _key(loose) != _key(step)
    with pytest.raises(AssertionError, match="surviving mutants"):
        _mutate(loose, record=False)
