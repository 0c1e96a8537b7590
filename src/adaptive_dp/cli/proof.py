"""``adaptive-dp proof``: print a proof with the status of each step (docs/design.md, proofs).

``adaptive-dp proof ID`` runs every check of ``proofs/ID.md`` and prints each step with its
status: ``checked-pass``, ``checked-FAIL``, ``restatement`` (a check that asserts nothing,
not counted), ``example-pass``/``example-FAIL`` (a worked instance: it runs, but carries
no inference and is not counted) or ``argument`` (prose). ``--mutants`` also runs the
mutation test of every checked step. ``adaptive-dp proof --list`` lists the shipped proofs
with their step counts and checked share. ``--json`` prints JSON instead. Exit status: 0
if every check passes (and, with ``--mutants``, no mutant survives), 1 otherwise, 2 for an
unknown id.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from adaptive_dp.catalogue.proofs import (
    Proof,
    ProofNotFoundError,
    Step,
    all_proofs,
    evaluate_check,
    load_proof,
    mutation_report,
    trivial_reason,
)
from adaptive_dp.cli import UsageError

NAME = "proof"
HELP = "print a proof with the status of each checked step, or list the proofs"


def configure(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``adaptive-dp proof``."""
    parser.add_argument("id", nargs="?", help="proof id, e.g. R23-Lem2.3")
    parser.add_argument("--list", action="store_true", help="list proofs with step counts")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument(
        "--mutants", action="store_true", help="also run the mutation test of each checked step"
    )


def _step_status(step: Step) -> tuple[str, str]:
    if step.kind == "argument":
        return "argument", ""
    if step.kind == "example":
        result = evaluate_check(step)
        return ("example-pass" if result.passed else "example-FAIL"), result.detail
    reason = trivial_reason(step)
    if reason is not None:
        return "restatement", reason
    result = evaluate_check(step)
    return ("checked-pass" if result.passed else "checked-FAIL"), result.detail


def _listing(as_json: bool) -> int:
    proofs = list(all_proofs())
    rows = [
        {
            "id": proof.id,
            "title": proof.title,
            "steps": len(proof.steps),
            "checked": len(proof.checked_steps),
            "checked_share": round(proof.checked_share, 4),
        }
        for proof in proofs
    ]
    if as_json:
        print(json.dumps(rows, indent=2))
        return 0
    width = max((len(str(row["id"])) for row in rows), default=2)
    print(f"{'id':<{width}}  steps  checked  share  title")
    for row in rows:
        print(
            f"{row['id']:<{width}}  {row['steps']:>5}  {row['checked']:>7}  "
            f"{row['checked_share']:>5.0%}  {row['title']}"
        )
    steps = sum(len(proof.steps) for proof in proofs)
    checked = sum(len(proof.checked_steps) for proof in proofs)
    if steps:
        low = min(proofs, key=lambda proof: proof.checked_share)
        print(f"\nall {len(proofs)} proofs: {checked}/{steps} steps checked "
              f"({checked / steps:.1%}); lowest share {low.checked_share:.0%} ({low.id})")
    return 0


def proof_report(proof: Proof, mutants: bool) -> dict[str, Any]:
    """What ``adaptive-dp proof ID --json`` prints: the proof's sections and each step's
    status (and, with ``mutants``, its mutation result); the docs' proof pages render it."""
    steps: list[dict[str, Any]] = []
    for step in proof.steps:
        status, detail = _step_status(step)
        entry: dict[str, Any] = {
            "number": step.number,
            "kind": step.kind,
            "status": status,
            "detail": detail,
            "uses": list(step.uses),
            "text": step.text,
        }
        if mutants and status.startswith("checked"):
            report = mutation_report(step)
            entry["mutants"] = report.total
            entry["survivors"] = [mutant.description for mutant in report.survivors]
        steps.append(entry)
    return {
        "id": proof.id,
        "title": proof.title,
        "statement": proof.statement,
        "hypotheses": proof.hypotheses,
        "provenance": proof.provenance,
        "uses": list(proof.uses),
        "checked_share": proof.checked_share,
        "steps": steps,
    }


def run(args: argparse.Namespace) -> int:
    """Print the proof ``args.id`` with step statuses, or the list of proofs."""
    if args.list:
        return _listing(args.json)
    if not args.id:
        raise UsageError("give a proof id, or --list")
    try:
        proof = load_proof(args.id)
    except ProofNotFoundError as error:
        raise UsageError(str(error)) from error
    report = proof_report(proof, args.mutants)
    failed = any(
        step["status"].endswith("-FAIL") or step.get("survivors") for step in report["steps"]
    )
    if args.json:
        json.dump(report, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 1 if failed else 0
    print(f"{proof.id}: {proof.title}\n")
    print(f"Statement:\n{proof.statement}\n")
    print(f"Hypotheses:\n{proof.hypotheses}\n")
    if proof.provenance:
        print(f"Provenance:\n{proof.provenance}\n")
    for step in report["steps"]:
        tag = step["kind"] if step["kind"] == "argument" else f"{step['kind']}: {step['status']}"
        print(f"{step['number']}. [{tag}] {step['text']}")
        if step["status"] not in ("argument", "checked-pass", "example-pass"):
            print(f"   -> {step['detail']}")
        if "mutants" in step:
            survivors = step["survivors"]
            print(f"   mutants: {step['mutants'] - len(survivors)}/{step['mutants']} killed")
            for description in survivors:
                print(f"   SURVIVOR: {description}")
    checked = len(proof.checked_steps)
    print(f"\n{checked}/{len(proof.steps)} steps checked ({proof.checked_share:.0%})")
    return 1 if failed else 0
