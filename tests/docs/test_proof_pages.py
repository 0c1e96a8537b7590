"""The docs extension ``docs/_ext/proof_pages.py`` (issue 17): one page per proof file, and
errata entries whose twins are registered (docs/design.md, Verification: twins)."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("sphinx", reason="the docs extension needs the docs extra")
pytest.importorskip("docutils", reason="the docs extension needs the docs extra")

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "docs" / "_ext"))
proof_pages = importlib.import_module("proof_pages")

from adaptive_dp.verify.registry import REGISTRY  # noqa: E402  # after the path set-up

PRINTED_DEFECTS = (
    "W23-StitchedOdometer",  # the poster's odometers without their drift term
    "W23-MixtureOdometer",
    "H23-Thm3.7-Printed",  # printed reversed
    "CS2080-GaussianSigma-Printed",  # the slides' calibration outside its range
)


def _proof_files() -> set[str]:
    return {path.stem for path in (ROOT / "proofs").glob("*.md") if path.name != "README.md"}


def test_one_page_per_proof_file() -> None:
    pages = proof_pages.proof_pages()
    assert len(pages) == len(_proof_files())
    assert {proof_id for _, proof_id in pages} == _proof_files()
    assert len({docname for docname, _ in pages}) == len(pages)


def test_stubs_follow_the_proof_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(proof_pages, "PAGES", tmp_path)
    (tmp_path / "index.md").write_text("# Proofs\n", encoding="utf-8")
    (tmp_path / "Gone-Thm1.md").write_text(proof_pages.STUB_MARK + "\n# old\n", encoding="utf-8")
    app: Any = None  # the hook does not read the application
    proof_pages.write_stubs(app)
    written = {path.stem for path in tmp_path.glob("*.md")}
    assert written == _proof_files() | {"index"}


def test_every_erratum_names_a_registered_twin() -> None:
    entries = proof_pages.errata_entries()
    assert set(PRINTED_DEFECTS) <= {entry.id for entry, _ in entries}
    for entry, twins in entries:
        assert twins, f"{entry.id}: no registered twin refutes it"
        for claim_id, name in twins:
            registered = {twin.name: twin for twin in REGISTRY[claim_id].twins}
            assert registered[name].spec_id == entry.id
        module, _, symbol = (entry.twin or "").rpartition(".")
        assert module.startswith("adaptive_dp.verify.registry.twins.")
        assert hasattr(importlib.import_module(module), symbol)
