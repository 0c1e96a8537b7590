"""The ``adaptive-dp proof`` subcommand."""

from __future__ import annotations

import json

import pytest

from adaptive_dp.catalogue.proofs import load_proof
from adaptive_dp.cli import main


def test_list(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["proof", "--list"]) == 0
    out = capsys.readouterr().out
    assert "EXT-GaussianRDP" in out and "share" in out
    assert main(["proof", "--list", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    steps, checked = sum(r["steps"] for r in rows), sum(r["checked"] for r in rows)
    total = out.strip().splitlines()[-1]
    assert total.startswith(f"all {len(rows)} proofs: {checked}/{steps} steps checked")


def test_list_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["proof", "--list", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    row = next(row for row in rows if row["id"] == "EXT-GaussianRDP")
    proof = load_proof("EXT-GaussianRDP")
    assert row["steps"] == len(proof.steps)
    assert row["checked"] == len(proof.checked_steps)


def test_show_proof(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["proof", "EXT-GDPComposition"]) == 0
    out = capsys.readouterr().out
    assert "checked-pass" in out and "argument" in out and "checked-FAIL" not in out


def test_show_proof_json_with_mutants(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["proof", "EXT-RandomizedResponse", "--json", "--mutants"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["id"] == "EXT-RandomizedResponse"
    statuses = {step["status"] for step in report["steps"]}
    assert statuses <= {"checked-pass", "argument"}
    assert all(step["survivors"] == [] for step in report["steps"] if "mutants" in step)


def test_unknown_id_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["proof", "NOPE-Thm0"]) == 2
    assert "NOPE-Thm0" in capsys.readouterr().err


def test_missing_id_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["proof"]) == 2
    assert "--list" in capsys.readouterr().err
