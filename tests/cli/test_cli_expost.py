"""``adaptive-dp expost``: R23-Thm5 / W22-Thm3.6 bounds and the R23-Thm6 filter CLI."""

from __future__ import annotations

import io
import json
from pathlib import Path

import mpmath
import pytest

from adaptive_dp.cli import main


def test_r23_thm5_bound_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["expost", "bound", "--t-stop", "4", "--t-stop", "0.25", "--delta", "1e-6",
                 "--mixture-rho", "0.5", "--json"]) == 0
    rec = json.loads(capsys.readouterr().out)
    with mpmath.workdps(40):
        v = mpmath.mpf(1) / 4 + 4
        w = v + mpmath.mpf("0.5")
        ref = v / 2 + mpmath.sqrt(w * (mpmath.log(w / mpmath.mpf("0.5"))
                                        + 2 * mpmath.log(mpmath.mpf(10) ** 6)))
    assert rec["spec"] == "R23-Thm5"
    assert rec["epsilon"] >= float(ref) and rec["epsilon"] - float(ref) < 1e-12


def test_w22_bound_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["expost", "bound", "--form", "w22", "--t-stop", "12.5", "--t-min", "10",
                 "--delta", "1e-6"]) == 0
    out = capsys.readouterr().out
    assert "W22-Thm3.6" in out and "max_epsilon=" in out


@pytest.mark.parametrize(
    "argv",
    [
        ["expost", "bound", "--t-stop", "1", "--delta", "1.5"],
        ["expost", "bound", "--t-stop", "-1", "--delta", "0.1"],
        ["expost", "bound", "--form", "w22", "--t-stop", "1", "--t-stop", "2", "--delta", "0.1"],
        ["expost", "filter", "--epsilon", "1", "--delta", "0.1", "--delta-slack", "0.2"],
    ],
)
def test_usage_errors_exit_2_one_line(argv: list[str], capsys: pytest.CaptureFixture[str],
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_r23_thm6_filter_over_json_lines(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    lines = [
        {"kind": "zcdp", "rho": 0.5},
        {"kind": "bm", "sensitivity": 1, "t_min": 1, "t_stop": 2},
        {"kind": "bm", "sensitivity": 1, "t_min": 0.5, "t_stop": 2},  # pre-check fails
        {"kind": "zcdp", "rho": 0.01},
    ]
    path = tmp_path / "session.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    assert main(["expost", "filter", "--epsilon", "10", "--delta", "1e-6", "--json",
                 str(path)]) == 0
    records = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [r["decision"] for r in records] == ["continue", "continue", "halt"]
    assert records[0]["spec"] == "R23-Thm6"
    assert records[1]["t_min_next"] > 0


def test_filter_rejects_unsupported_kind(monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO('{"kind": "gdp", "mu": 0.1}\n'))
    assert main(["expost", "filter", "--epsilon", "1", "--delta", "0.1"]) == 2
    assert "line 1" in capsys.readouterr().err


def test_r23_lem5_2_filter_over_json_lines(monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    text = (
        '{"kind": "expost", "max_epsilon": "0.5", "epsilon": "0.35", "delta": 0}\n'
        '{"kind": "expost", "max_epsilon": "0.65", "epsilon": "0.1", "delta": 0}\n'
        '{"kind": "expost", "max_epsilon": "0.6", "epsilon": "0.1", "delta": 0}\n'
    )
    monkeypatch.setattr("sys.stdin", io.StringIO(text))
    assert main(["expost", "filter", "--rule", "expost", "--epsilon", "1", "--delta", "0",
                 "--json"]) == 0
    records = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [r["decision"] for r in records] == ["continue", "continue", "halt"]
    assert records[1]["spent"]["epsilon"] == pytest.approx(0.45)
