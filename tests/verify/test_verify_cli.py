"""``adaptive-dp verify``: table, twins, JSON, selection, exit codes, determinism."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from types import MappingProxyType

import numpy as np
import pytest

from adaptive_dp.cli import main
from adaptive_dp.interactive.adversary import GAUSSIAN
from adaptive_dp.loss import gaussian_hockey_stick
from adaptive_dp.verify.judge.adversaries import Constant
from adaptive_dp.verify.judge.claim import (
    AdversaryExperiment,
    Claim,
    Experiment,
    Setup,
    Twin,
    samples_for,
)
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
    assert claim["id"] == f"{claim['spec']}/{claim['scenario']}"  # the note does not overwrite it
    assert claim["note"] and claim["twins"][0]["note"]
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


def _constant(value: float) -> Experiment:
    return lambda paths, rng, under: np.full(paths, value)


_KINDS = {  # quantity: (epsilon, claimed, experiment, delta_min, exact worst)
    Quantity.TAIL: (1.0, 0.05, _constant(0.0), None, 0.04),
    Quantity.CROSSING: (0.0, 0.05, _constant(0.0), None, None),
    Quantity.EVALUE: (0.0, 1.0, _constant(0.5), None, None),
    Quantity.MAX_LOSS: (1.0, 1.0, _constant(0.5), 0.02, 0.75),
}


def _kind(quantity: Quantity) -> Claim:
    epsilon, claimed, experiment, delta_min, exact = _KINDS[quantity]
    n = samples_for(quantity, claimed, delta_min, scale=2.0)
    setup = Setup(quantity, epsilon, claimed, experiment, n, delta_min=delta_min, scale=2.0,
                  note="test", exact_worst=exact)
    return Claim("T-" + quantity.name, "a-rather-long-scenario-name", quantity, "kind",
                 lambda p: setup)


def test_detects_slack_and_exact_worst_in_table_and_json(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    exact = replace(_gaussian_setup(0.1), exact_worst=0.05)
    claims = [_kind(q) for q in _KINDS] + [
        Claim("W23-StitchedOdometer-Corrected", "adaptive-epsilon-with-long-name",
              Quantity.HOCKEY_STICK, "hs", lambda p: exact)]
    _fake(monkeypatch, *claims)
    assert main(["verify"]) == 0
    out = capsys.readouterr().out
    assert max(len(line) for line in out.splitlines()) <= 100
    header = out.splitlines()[0].split()
    assert {"detects", "exact"} <= set(header) and "0.50" in out  # the exact worst: 0.05 / 0.1
    assert "holds iff detects <= x2" in out and "x2 " in out and "p2.1e-3" in out
    assert main(["verify", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    for claim in data["claims"]:
        assert claim["verdict"] == "holds"
        max_loss = claim["quantity"] == "max-loss"
        assert (claim["detectable_ratio"] is None) == max_loss
        assert (claim["detectable_exceedance"] is None) != max_loss
        assert claim["slack"]["estimate"] == claim["estimate"] / claim["claimed"]
    by = {c["quantity"]: c for c in data["claims"]}
    assert by["tail"]["detectable_ratio"] <= 2.0 and by["e-value"]["detectable_ratio"] <= 1.1
    assert by["max-loss"]["delta_min"] == 0.02 and by["max-loss"]["slack"]["upper"] is None
    assert by["tail"]["exact_worst"] == {"value": 0.04, "fraction": 0.04 / 0.05}
    assert by["crossing"]["exact_worst"] is None
    assert by["hockey-stick"]["exact_worst"]["fraction"] == 0.5


def test_full_profile_sizes_claims_for_its_target_and_twins_as_quick(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    claim = _kind(Quantity.TAIL)
    sized = Claim("T-Sized", "tail", Quantity.TAIL, "sized",
                  lambda p: replace(claim.build(p), samples=samples_for(Quantity.TAIL, 0.05)),
                  (Twin("tail-twin", "none", lambda p: replace(
                      claim.build(p), samples=samples_for(Quantity.TAIL, 0.05),
                      experiment=_constant(2.0))),))
    _fake(monkeypatch, sized)
    assert main(["verify", "--full", "--json"]) == 0
    (data,) = json.loads(capsys.readouterr().out)["claims"]
    assert data["detectable_ratio"] <= 1.25 and data["verdict"] == "holds"
    assert 1.25 < data["twins"][0]["detectable_ratio"] <= 2.0
    assert data["samples"] > 10 * data["twins"][0]["samples"]
