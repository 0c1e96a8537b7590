"""``adaptive-dp verify``: table, twins, JSON, selection, exit codes, determinism."""

from __future__ import annotations

import json
from pathlib import Path
from types import MappingProxyType

import pytest

from adaptive_dp.cli import main
from adaptive_dp.interactive.adversary import GAUSSIAN
from adaptive_dp.loss import gaussian_hockey_stick
from adaptive_dp.verify.judge.adversaries import Constant
from adaptive_dp.verify.judge.claim import AdversaryExperiment, Claim, Setup, Twin, samples_for
from adaptive_dp.verify.judge.estimators import Quantity
from adaptive_dp.verify.registry import REGISTRY

ONE = "R23-Lem2.3/gaussian"


def test_list(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", "--list"]) == 0
    out = capsys.readouterr().out
    assert all(cid in out for cid in REGISTRY)


def test_table_and_twins(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", "--only", ONE]) == 0
    out = capsys.readouterr().out
    for word in ("spec id", "scenario", "quantity", "samples", "estimate", "lower",
                 "claimed", "verdict", "R23-Lem2.3", "holds", "halved-rho", "caught"):
        assert word in out
    assert "NOT CAUGHT" not in out
    assert max(len(line) for line in out.splitlines()) <= 100


def test_json_stdout_and_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["verify", "--only", ONE, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["profile"] == "quick" and data["exit"] == 0
    (claim,) = data["claims"]
    assert claim["id"] == ONE and claim["verdict"] == "holds"
    assert claim["twins"][0]["caught"] is True
    target = tmp_path / "out.json"
    assert main(["verify", "--only", ONE, "--json", str(target), "--seed", "3"]) == 0
    assert "R23-Lem2.3" in capsys.readouterr().out
    assert json.loads(target.read_text())["seed"] == 3


def test_deterministic_per_seed_and_across_workers(capsys: pytest.CaptureFixture[str]) -> None:
    ids = [ONE, "R23-Lem2.4/budget-hugging"]
    main(["verify", "--only", *ids, "--json", "--seed", "7"])
    one = json.loads(capsys.readouterr().out)["claims"]
    main(["verify", "--only", *ids, "--json", "--seed", "7", "--workers", "2"])
    two = json.loads(capsys.readouterr().out)["claims"]
    strip = [{k: v for k, v in c.items() if k != "seconds"} for c in one]
    assert strip == [{k: v for k, v in c.items() if k != "seconds"} for c in two]


def test_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", "--only", "no-such-claim"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no-such-claim" in err
    assert main(["verify", "--workers", "0", "--only", ONE]) == 2


def _gaussian_setup(claimed: float) -> Setup:
    return Setup(Quantity.HOCKEY_STICK, 1.0, claimed,
                 AdversaryExperiment(Constant((GAUSSIAN,), 1.0, 1)),
                 samples_for(Quantity.HOCKEY_STICK, claimed), note="test")


def _fake(monkeypatch: pytest.MonkeyPatch, *claims: Claim) -> None:
    registry = MappingProxyType({c.id: c for c in claims})
    monkeypatch.setattr("adaptive_dp.cli.verify.REGISTRY", registry)
    monkeypatch.setattr("adaptive_dp.cli.verify.load", lambda: registry)


def test_exit_1_on_violation_and_uncaught_twin(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    truth = gaussian_hockey_stick(1.0, 1.0)  # the exact delta of mu = 1 at eps = 1
    valid = _gaussian_setup(min(0.2, truth * 1.02))
    wrong = _gaussian_setup(truth / 3)
    _fake(monkeypatch, Claim("T-Valid", "ok", Quantity.HOCKEY_STICK, "valid", lambda p: valid))
    assert main(["verify"]) == 0
    _fake(monkeypatch, Claim("T-Wrong", "bad", Quantity.HOCKEY_STICK, "wrong", lambda p: wrong))
    assert main(["verify"]) == 1
    assert "violated" in capsys.readouterr().out
    _fake(monkeypatch, Claim("T-Valid", "ok", Quantity.HOCKEY_STICK, "valid", lambda p: valid,
                             (Twin("not-a-defect", "none", lambda p: valid),)))
    assert main(["verify"]) == 1
    assert "NOT CAUGHT" in capsys.readouterr().out


def test_weak_fails_only_with_strict(monkeypatch: pytest.MonkeyPatch) -> None:
    weak = Setup(Quantity.HOCKEY_STICK, 1.0, 0.2,
                 AdversaryExperiment(Constant((GAUSSIAN,), 0.1, 1)), 50, note="too few")
    _fake(monkeypatch, Claim("T-Weak", "small", Quantity.HOCKEY_STICK, "weak", lambda p: weak))
    assert main(["verify"]) == 0
    assert main(["verify", "--strict"]) == 1


def test_errors_fail(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    def broken(profile: str) -> Setup:
        raise RuntimeError("calculator missing")

    _fake(monkeypatch, Claim("T-Broken", "x", Quantity.HOCKEY_STICK, "broken", broken))
    assert main(["verify"]) == 1
    assert "calculator missing" in capsys.readouterr().out
    assert main(["verify", "--json"]) == 1
    data = json.loads(capsys.readouterr().out)  # strict JSON: NaN became null
    assert data["claims"][0]["verdict"] == "error" and data["claims"][0]["estimate"] is None
