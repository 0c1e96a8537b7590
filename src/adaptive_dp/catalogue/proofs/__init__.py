"""Proof files (docs/design.md, proofs): :mod:`.parser` reads them, :mod:`.sandbox` runs
their checks, :mod:`.mutants` mutates every checked relation to show it can fail."""

from adaptive_dp.catalogue.proofs.mutants import (
    Mutant,
    MutationReport,
    mutant_timeout,
    mutants,
    mutation_report,
    trivial_reason,
)
from adaptive_dp.catalogue.proofs.parser import (
    CHECKED_KINDS,
    Proof,
    ProofFormatError,
    ProofNotFoundError,
    Step,
    StepKind,
    all_proofs,
    load_proof,
    parse_proof,
    proof_ids,
)
from adaptive_dp.catalogue.proofs.sandbox import (
    ALLOWED_MODULES,
    CheckResult,
    evaluate_check,
    run_check,
)

__all__ = [
    "ALLOWED_MODULES",
    "CHECKED_KINDS",
    "CheckResult",
    "Mutant",
    "MutationReport",
    "Proof",
    "ProofFormatError",
    "ProofNotFoundError",
    "Step",
    "StepKind",
    "all_proofs",
    "evaluate_check",
    "load_proof",
    "mutant_timeout",
    "mutants",
    "mutation_report",
    "parse_proof",
    "proof_ids",
    "run_check",
    "trivial_reason",
]
