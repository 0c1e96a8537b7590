"""Proof files: the parser (docs/design.md, proofs).

A proof lives in ``proofs/<id>.md`` (shipped in the wheel, found through
:func:`adaptive_dp.resources.data_dir`). Its layout::

    # <id>: <title>

    ## Statement
    <the statement proved>

    ## Hypotheses
    <the hypotheses>

    ## Provenance          (optional: what is external / reconstructed)
    ...

    ## Proof
    1. [algebra] <text> (uses: <id>, <id>)

       ```python
       import sympy as sp

       def check() -> bool:
           ...
           return <the asserted relation>
       ```

    2. [argument] <prose a reviewer reads> (uses: ...)

    3. [example] <a worked instance, or a check of a value against the equation it was
       solved from>, with one python block like a checked step: it runs and shows its
       status, but it carries no inference and does not count as a checked step.

Further ``##`` sections (notes, references) may follow the proof; they end the step list.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal, get_args

from adaptive_dp.errors import AdaptiveDPError
from adaptive_dp.resources import data_dir

__all__ = [
    "CHECKED_KINDS",
    "Proof",
    "ProofFormatError",
    "ProofNotFoundError",
    "Step",
    "StepKind",
    "all_proofs",
    "load_proof",
    "parse_proof",
    "proof_ids",
]

StepKind = Literal["algebra", "numeric", "example", "argument"]
CHECKED_KINDS = ("algebra", "numeric")


class ProofFormatError(AdaptiveDPError, ValueError):
    """A proof file (or a check block) does not follow the documented format."""


class ProofNotFoundError(AdaptiveDPError, LookupError):
    """No proof file with that id is shipped."""


@dataclass(frozen=True, slots=True)
class Step:
    """One numbered step: ``N. [kind] text (uses: ids)`` and, if checked, its code."""

    proof_id: str
    number: int
    kind: StepKind
    text: str
    uses: tuple[str, ...]
    code: str | None
    line: int

    @property
    def label(self) -> str:
        """``<proof id> step <N>``."""
        return f"{self.proof_id} step {self.number}"

    @property
    def is_checked(self) -> bool:
        """An algebra/numeric step whose relation is not a restatement (examples never are)."""
        from adaptive_dp.catalogue.proofs.mutants import trivial_reason  # the tester reads Step

        return self.kind in CHECKED_KINDS and trivial_reason(self) is None


@dataclass(frozen=True, slots=True)
class Proof:
    """A parsed proof file."""

    id: str
    title: str
    statement: str
    hypotheses: str
    provenance: str
    steps: tuple[Step, ...]
    source: str = field(repr=False)

    @property
    def uses(self) -> tuple[str, ...]:
        """Every id cited by a step, in order of first use."""
        seen: dict[str, None] = {}
        for step in self.steps:
            for used in step.uses:
                seen.setdefault(used, None)
        return tuple(seen)

    @property
    def checked_steps(self) -> tuple[Step, ...]:
        """The steps that carry a non-trivial check."""
        return tuple(step for step in self.steps if step.is_checked)

    @property
    def checked_share(self) -> float:
        """Fraction of steps that are checked (0 for a proof without steps)."""
        return len(self.checked_steps) / len(self.steps) if self.steps else 0.0


# ----------------------------------------------------------------------------- parsing

_TITLE = re.compile(r"^#\s+(?P<id>[A-Za-z0-9][A-Za-z0-9.\-]*)\s*[:\u2014-]\s*(?P<title>.+)$")
_SECTION = re.compile(r"^##\s+(?P<name>.+?)\s*$")
_STEP = re.compile(r"^(?P<n>\d+)\.\s+\[(?P<kind>[a-z]+)\]\s*(?P<text>.*)$")
_FENCE = re.compile(r"^(?P<indent>\s*)```(?P<lang>[A-Za-z]*)\s*$")
_USES = re.compile(r"\(uses:\s*(?P<ids>[^)]*)\)")


def _collapse(lines: list[str]) -> str:
    return "\n".join(lines).strip()


def parse_proof(text: str, expected_id: str | None = None) -> Proof:
    """Parse the text of a proof file (see the module docstring for the format)."""
    lines = text.splitlines()
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is None:
        raise ProofFormatError("empty proof file")
    title = _TITLE.match(lines[first].strip())
    if title is None:
        raise ProofFormatError(f"line {first + 1}: expected '# <id>: <title>'")
    proof_id = title["id"]
    if expected_id is not None and proof_id != expected_id:
        raise ProofFormatError(f"title id {proof_id!r} does not match file id {expected_id!r}")

    sections: dict[str, list[tuple[int, str]]] = {}
    current: str | None = None
    for index in range(first + 1, len(lines)):
        heading = _SECTION.match(lines[index])
        if heading is not None:
            current = heading["name"].lower()
            if current in sections:
                raise ProofFormatError(f"line {index + 1}: duplicate section {current!r}")
            sections[current] = []
        elif current is not None:
            sections[current].append((index + 1, lines[index]))
    for required in ("statement", "hypotheses", "proof"):
        if required not in sections:
            raise ProofFormatError(f"{proof_id}: missing section '## {required.capitalize()}'")

    def body(name: str) -> str:
        return _collapse([line for _, line in sections.get(name, [])])

    steps = _parse_steps(proof_id, sections["proof"])
    if not steps:
        raise ProofFormatError(f"{proof_id}: the proof has no steps")
    return Proof(
        id=proof_id,
        title=title["title"].strip(),
        statement=body("statement"),
        hypotheses=body("hypotheses"),
        provenance=body("provenance"),
        steps=tuple(steps),
        source=text,
    )


@dataclass(slots=True)
class _RawStep:
    line: int
    number: int
    kind: str
    text: list[str]
    code: list[str] = field(default_factory=list)
    blocks: int = 0


def _parse_steps(proof_id: str, numbered: list[tuple[int, str]]) -> list[Step]:
    raw: list[_RawStep] = []
    in_code = False
    fence_indent = 0
    for lineno, line in numbered:
        fence = _FENCE.match(line)
        if in_code:
            if fence is not None and fence["lang"] == "":
                in_code = False
                continue
            prefix = line[:fence_indent]
            raw[-1].code.append(line[fence_indent:] if prefix.strip() == "" else line)
            continue
        if fence is not None:
            if not raw:
                raise ProofFormatError(f"{proof_id} line {lineno}: code block before any step")
            if fence["lang"] != "python":
                raise ProofFormatError(f"{proof_id} line {lineno}: code blocks must be python")
            in_code = True
            fence_indent = len(fence["indent"])
            raw[-1].blocks += 1
            continue
        match = _STEP.match(line)
        if match is not None:
            raw.append(_RawStep(lineno, int(match["n"]), match["kind"], [match["text"]]))
        elif raw:
            raw[-1].text.append(line.strip())
    if in_code:
        raise ProofFormatError(f"{proof_id}: unterminated code block")
    steps: list[Step] = []
    for expected, item in enumerate(raw, 1):
        where = f"{proof_id} step {item.number} (line {item.line})"
        if item.number != expected:
            raise ProofFormatError(f"{where}: expected step number {expected}")
        if item.kind not in get_args(StepKind):
            raise ProofFormatError(f"{where}: unknown step kind {item.kind!r}")
        kind: StepKind = item.kind  # type: ignore[assignment]  # checked on the line above
        text = " ".join(part for part in item.text if part).strip()
        found = _USES.findall(text)
        uses = tuple(u.strip() for u in found[-1].split(",") if u.strip()) if found else ()
        source: str | None = None
        if kind == "argument":
            if item.blocks:
                raise ProofFormatError(f"{where}: argument steps carry no code")
        else:
            if item.blocks != 1:
                raise ProofFormatError(f"{where}: a {kind} step needs exactly one python block")
            source = "\n".join(item.code).strip("\n") + "\n"
        steps.append(Step(proof_id, item.number, kind, text, uses, source, item.line))
    return steps


def proof_ids() -> tuple[str, ...]:
    """Ids of every shipped proof, sorted."""
    folder = data_dir("proofs")
    names = (entry.name for entry in folder.iterdir() if entry.name.endswith(".md"))
    return tuple(sorted(name[:-3] for name in names if name != "README.md"))


def load_proof(proof_id: str) -> Proof:
    """The parsed ``proofs/<proof_id>.md``."""
    entry = data_dir("proofs") / f"{proof_id}.md"
    if proof_id == "README" or not entry.is_file():
        raise ProofNotFoundError(f"no proof file for {proof_id!r}")
    return parse_proof(entry.read_text(encoding="utf-8"), expected_id=proof_id)


def all_proofs() -> tuple[Proof, ...]:
    """Every shipped proof, sorted by id."""
    return tuple(load_proof(proof_id) for proof_id in proof_ids())


