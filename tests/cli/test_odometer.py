"""``adaptive-dp odometer``: the running reading per spend."""

from __future__ import annotations

import io
import json

import pytest

from adaptive_dp.cli import main

LINE = '{"kind": "pure", "epsilon": "0.1"}\n'


def run(argv: list[str], stdin: str, monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    return main(argv)


def test_stitched_readings(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert (
        run(["odometer", "w23-stitched", "--delta", "1e-5", "--json"], LINE * 100, monkeypatch) == 0
    )
    records = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert len(records) == 100
    assert abs(records[0]["reading"] - 0.518102) < 1e-6
    assert abs(records[99]["reading"] - 6.174978) < 1e-6
    readings = [r["reading"] for r in records]
    assert readings == sorted(readings)


def test_mixture_needs_rho(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["odometer", "w23-mixture", "--delta", "1e-5"], LINE, monkeypatch) == 2
    assert (
        run(["odometer", "w23-mixture", "--delta", "1e-5", "--mixture-rho", "1"], LINE, monkeypatch)
        == 0
    )
    assert "4.681114" in capsys.readouterr().out


def test_accumulators(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["odometer", "basic", "--json"], LINE * 2, monkeypatch) == 0
    assert json.loads(capsys.readouterr().out.splitlines()[-1])["epsilon"] == 0.2
    stdin = '{"kind": "approx", "epsilon": 0.1, "delta": 1e-6}\n' * 2
    assert (
        run(
            ["odometer", "w23-accumulator", "--delta", "2e-6", "--delta-slack", "1e-6", "--json"],
            stdin,
            monkeypatch,
        )
        == 0
    )
    out = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert out[0]["spec"] == "H23-Thm3.8" and out[1]["reading"] == "exhausted"


def test_figure_odometers(tmp_path: object, monkeypatch: pytest.MonkeyPatch) -> None:
    from pathlib import Path

    out = Path(str(tmp_path)) / "odometers.png"
    assert run(["figure", "odometers", "--out", str(out), "--steps", "20"], "", monkeypatch) == 0
    assert out.stat().st_size > 1000


def test_figure_curves_values() -> None:
    from fractions import Fraction

    from adaptive_dp.cli.figure import odometer_curves

    curves = odometer_curves(Fraction(1, 10), 100, Fraction(1, 10**5), Fraction("0.040171"))
    assert abs(curves["stitched (corrected)"][-1] - 6.174978) < 1e-6
    assert abs(curves["mixture (corrected)"][-1] - 5.588571) < 1e-5
    assert abs(curves["W23 filter expression (fixed n)"][-1] - 5.298526) < 1e-6
    assert curves["basic composition"][-1] == 10.0


def test_gdp_accumulator(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # EXT-GDPAccumulator: sqrt(0.6^2 + 0.8^2) = 1, read rounded up; a pure spend is refused
    stdin = '{"kind": "gdp", "mu": "0.6"}\n{"kind": "gdp", "mu": "0.8"}\n'
    assert run(["odometer", "gdp", "--json"], stdin, monkeypatch) == 0
    out = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [r["spec"] for r in out] == ["EXT-GDPAccumulator"] * 2
    assert out[0]["mu"] == 0.6000000000000001 and out[1]["mu"] == 1.0
    assert run(["odometer", "gdp"], LINE, monkeypatch) == 2
    assert "'gdp' cannot take this pure spend" in capsys.readouterr().err


def test_rruv16_odometer(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """RRUV16-Odometer through the command line: the readings are the library's certified
    ones (pure and pDP spends), and --n is required."""
    from adaptive_dp.guarantees.definitions import ProbabilisticDP, PureDP
    from adaptive_dp.odometers.rruv16 import RRUV16Odometer

    stdin = ('{"kind": "pure", "epsilon": "0.1"}\n'
             '{"kind": "pdp", "epsilon": "0.1", "delta": "1e-9"}\n')
    assert run(["odometer", "rruv16", "--delta", "1e-5", "--n", "10", "--json"], stdin,
               monkeypatch) == 0
    out = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    state = RRUV16Odometer(delta="1e-5", n=10).start()
    expected = []
    for spend in (PureDP("0.1"), ProbabilisticDP("0.1", "1e-9")):
        state = state.spend(spend)
        expected.append(state.reading())
    assert [r["reading"] for r in out] == expected
    assert run(["odometer", "rruv16", "--delta", "1e-5"], stdin, monkeypatch) == 2
    assert "needs --n" in capsys.readouterr().err
