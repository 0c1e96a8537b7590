"""Code, tests, proofs, the catalogue and the docs cite only what is in the repository.

The design document is ``docs/design.md`` and the derivations the code relies on are in
``docs/derivations.md`` and ``proofs/``; a citation of the original briefing or of a
notes file kept outside the repository is a dangling reference (docs/design.md,
sources). The patterns are assembled from pieces so that this file does not match them.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCANNED = ("src", "tests", "proofs", "spec", "docs", "README.md")
TEXT_SUFFIXES = {".py", ".md", ".toml", ".txt", ".json", ".csv", ".cfg", ".ini", ".rst"}
SKIPPED_DIRS = {"__pycache__", "_build", ".mypy_cache", ".ruff_cache", ".pytest_cache"}

_DOC = "DES" + "IGN"
_NOTES = "-no" + "tes"

FORBIDDEN: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("the briefing file", re.compile(re.escape(_DOC + ".md"))),
    ("a principle of the briefing", re.compile(_DOC + r"\s+principle")),
    # the briefing as a bare document name: "(X", "X,", "X:", "X)", "X's", "as X states";
    # never part of a longer word or identifier (REDESIGN, DESIGNER, SOME_DESIGN).
    ("the briefing by name", re.compile(r"\(" + _DOC + r"(?![\w-])")),
    (
        "the briefing by name",
        re.compile(r"(?<![\w./-])" + _DOC + r"(?:[,:;)]|'s\b|\s+(?:states|says)\b)"),
    ),
    ("a path outside the repository", re.compile(re.escape(".." + "/shared"))),
    ("the reference folder outside", re.compile(re.escape("shared" + "/reference"))),
    ("a notes file outside", re.compile(re.escape(_NOTES + ".md"))),
    ("a notes file outside", re.compile(r"\bno" + r"tes\s+section")),
    (
        "a notes file outside",
        re.compile(r"\b(?:odometer|reconstruction|laplace-noise-reduction)" + _NOTES + r"\b"),
    ),
)


def findings(text: str) -> list[tuple[int, str, str]]:
    """(line number, what, matched text) for every forbidden citation in ``text``."""
    found = []
    for number, line in enumerate(text.splitlines(), start=1):
        for what, pattern in FORBIDDEN:
            for match in pattern.finditer(line):
                found.append((number, what, match.group(0)))
    return found


def scanned_files() -> list[Path]:
    """Every text file under the scanned roots."""
    files: list[Path] = []
    for name in SCANNED:
        path = ROOT / name
        if path.is_file():
            files.append(path)
            continue
        for child in sorted(path.rglob("*")):
            if (
                child.is_file()
                and child.suffix in TEXT_SUFFIXES
                and not SKIPPED_DIRS.intersection(child.relative_to(ROOT).parts)
            ):
                files.append(child)
    return files


def test_the_scan_covers_the_repository() -> None:
    files = {p.relative_to(ROOT).as_posix() for p in scanned_files()}
    assert "README.md" in files
    assert "docs/design.md" in files
    assert "tests/test_citations.py" in files
    assert any(f.startswith("src/adaptive_dp/") for f in files)
    assert any(f.startswith("proofs/") for f in files)
    assert any(f.startswith("spec/") for f in files)


def test_no_citation_of_files_outside_the_repository() -> None:
    problems = [
        f"{path.relative_to(ROOT).as_posix()}:{number}: {what}: {matched!r}"
        for path in scanned_files()
        for number, what, matched in findings(path.read_text(encoding="utf-8"))
    ]
    assert not problems, (
        "cite docs/design.md (principle N, or a section), docs/derivations.md or a proof "
        "file instead:\n" + "\n".join(problems)
    )


@pytest.mark.parametrize(
    "line",
    [
        f"Exception types (see {_DOC}.md, interchange format).",
        f"one per kind of misuse ({_DOC} principle 4).",
        f"never a traceback ({_DOC}, command line).",
        f"the order of {_DOC}'s table",
        f"# {_DOC}: about 1,000 paths",
        f"Verdict rules exactly as {_DOC} states them.",
        f"claims, {_DOC}) against valid",
        f"the total target ({_DOC}): with k = 10",
        "see ../" + "shared/seeds/",
        "shared" + "/reference/composition-basics.md",
        "the reading of reconstruction" + _NOTES + ".md",
        "boundary hugging (odometer" + _NOTES + " section 5.3, A3)",
        "odometer" + _NOTES + " Lemma 3",
    ],
)
def test_the_patterns_catch_outside_citations(line: str) -> None:
    assert findings(line)


@pytest.mark.parametrize(
    "line",
    [
        "one per kind of misuse (docs/design.md, principle 4).",
        "the derivation is in docs/derivations.md, section 2.8",
        "seed 003, Theorem 2.17",
        f"REDESIGN, {_DOC}ER's notes and {_DOC}_MATRIX: unrelated words",
        f"EXPERIMENTAL_{_DOC}, SOME_{_DOC}) and {_DOC} = 3",
        "design, principle and notes in lower case",
        "release notes: section 3",
    ],
)
def test_the_patterns_leave_other_text_alone(line: str) -> None:
    assert not findings(line)
