"""Tests of ``adaptive-dp convert`` (cli/convert.py): output equals the library's
certified values, JSON format, errors exit 2 with one line."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from adaptive_dp.cli import main
from adaptive_dp.guarantees import (
    GDP,
    RDP,
    ZCDP,
    PureDP,
    RDPCurve,
    compose_advanced,
    compose_kov,
    gdp_to_dp,
    rdp_to_dp,
    zcdp_to_dp_bun_steinke,
    zcdp_to_dp_optimal,
)
from adaptive_dp.guarantees.definitions import ApproxDP
from adaptive_dp.guarantees.optimal import compose_optimal
from adaptive_dp.numerics import round_up


def _json(capsys: pytest.CaptureFixture[str], argv: list[str]) -> dict[str, str]:
    assert main(argv) == 0
    out = capsys.readouterr().out
    data = json.loads(out)
    assert set(data) == {"epsilon", "delta", "method", "spec"}
    return {str(k): str(v) for k, v in data.items()}


def test_zcdp_to_dp_cks(capsys: pytest.CaptureFixture[str]) -> None:
    data = _json(capsys, ["convert", "zcdp-to-dp", "--rho", "0.5", "--delta", "1e-6", "--json"])
    expected = zcdp_to_dp_optimal(ZCDP("0.5"), "1e-6")
    assert data["epsilon"] == repr(round_up(expected.epsilon))
    assert data["delta"] == repr(round_up(Fraction(1, 10**6)))
    assert float(data["delta"]) >= 1e-6
    assert (data["method"], data["spec"]) == ("cks20", "EXT-CKS20")


def test_zcdp_to_dp_bun_steinke(capsys: pytest.CaptureFixture[str]) -> None:
    data = _json(capsys, ["convert", "zcdp-to-dp", "--rho", "1.35301", "--delta", "1e-6",
                          "--method", "bun-steinke", "--json"])
    expected = zcdp_to_dp_bun_steinke(ZCDP("1.35301"), "1e-6")
    assert data["epsilon"] == repr(round_up(expected.epsilon))
    assert (data["method"], data["spec"]) == ("bun-steinke", "R23-Lem2.3")


def test_gdp_to_dp(capsys: pytest.CaptureFixture[str]) -> None:
    data = _json(capsys, ["convert", "gdp-to-dp", "--mu", "1", "--delta", "1e-6", "--json"])
    assert data["epsilon"] == repr(round_up(gdp_to_dp(GDP(1), "1e-6").epsilon))
    assert (data["method"], data["spec"]) == ("drs19", "EXT-DRS19")


def test_rdp_to_dp_single_and_curve(capsys: pytest.CaptureFixture[str]) -> None:
    data = _json(capsys, ["convert", "rdp-to-dp", "--alpha", "8", "--epsilon", "0.5",
                          "--delta", "1e-6", "--method", "mironov17", "--json"])
    expected = rdp_to_dp(RDP(8, "0.5"), "1e-6", method="mironov17")
    assert data["epsilon"] == repr(round_up(expected.epsilon))
    assert data["spec"] == "EXT-Mironov17"
    data = _json(capsys, ["convert", "rdp-to-dp", "--curve", "2:0.1,8:0.5", "--delta", "1e-6",
                          "--json"])
    expected = rdp_to_dp(RDPCurve([("2", "0.1"), ("8", "0.5")]), "1e-6")
    assert data["epsilon"] == repr(round_up(expected.epsilon))
    assert (data["method"], data["spec"]) == ("bbghs20", "EXT-BBGHS20")


def test_compose_rules(capsys: pytest.CaptureFixture[str]) -> None:
    data = _json(capsys, ["convert", "compose", "--rule", "basic", "--epsilon", "0.1",
                          "--mechanism-delta", "1e-7", "--k", "10", "--json"])
    assert data["epsilon"] == repr(round_up(Fraction(1))) and data["spec"] == "CS2080-BasicComp"
    assert data["delta"] == repr(round_up(Fraction(1, 10**6)))
    data = _json(capsys, ["convert", "compose", "--rule", "advanced", "--epsilon", "0.1",
                          "--k", "100", "--delta-slack", "1e-6", "--json"])
    adv = compose_advanced(PureDP("0.1"), 100, "1e-6")
    assert data["epsilon"] == repr(round_up(adv.epsilon)) and data["method"] == "advanced"
    data = _json(capsys, ["convert", "compose", "--rule", "kov", "--epsilon", "0.1",
                          "--k", "100", "--delta-slack", "1e-6", "--json"])
    kov = compose_kov(PureDP("0.1"), 100, "1e-6")
    assert data["epsilon"] == repr(round_up(kov.epsilon))
    assert (data["method"], data["spec"]) == ("kov15", "EXT-KOV15")


def test_compose_total_delta_is_the_design_convention(capsys: pytest.CaptureFixture[str]) -> None:
    """--delta is the total target (docs/design.md): with k = 10 mechanisms of delta 1e-7, a
    total of 2e-6 leaves delta' = 1e-6 for advanced composition, as --delta-slack 1e-6 does."""
    common = ["convert", "compose", "--rule", "advanced", "--epsilon", "0.1",
              "--mechanism-delta", "1e-7", "--k", "10", "--json"]
    by_total = _json(capsys, [*common, "--delta", "2e-6"])
    by_slack = _json(capsys, [*common, "--delta-slack", "1e-6"])
    assert by_total == by_slack
    assert by_total["delta"] == repr(round_up(Fraction(2, 10**6)))


def test_human_output(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["convert", "gdp-to-dp", "--mu", "0.5", "--delta", "1e-5"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("(") and "drs19" in out and "EXT-DRS19" in out


def test_json_to_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "out.json"
    assert main(["convert", "zcdp-to-dp", "--rho", "0.1", "--delta", "1e-6",
                 "--json", str(target)]) == 0
    assert capsys.readouterr().out == ""
    assert json.loads(target.read_text())["method"] == "cks20"


@pytest.mark.parametrize(
    "argv",
    [
        ["convert", "zcdp-to-dp", "--rho", "nan", "--delta", "1e-6"],
        ["convert", "zcdp-to-dp", "--rho", "-1", "--delta", "1e-6"],
        ["convert", "zcdp-to-dp", "--rho", "1", "--delta", "1"],
        ["convert", "zcdp-to-dp", "--rho", "1", "--delta", "abc"],
        ["convert", "zcdp-to-dp", "--rho", "1", "--delta", "1e-6", "--method", "nope"],
        ["convert", "gdp-to-dp", "--mu", "inf", "--delta", "1e-6"],
        ["convert", "rdp-to-dp", "--alpha", "1", "--epsilon", "1", "--delta", "1e-6"],
        ["convert", "rdp-to-dp", "--curve", "2:0.1,8", "--delta", "1e-6"],
        ["convert", "rdp-to-dp", "--curve", "2:0.1,2:0.2", "--delta", "1e-6"],
        ["convert", "rdp-to-dp", "--alpha", "2", "--delta", "1e-6"],
        ["convert", "rdp-to-dp", "--alpha", "2", "--epsilon", "1", "--curve", "2:1",
         "--delta", "1e-6"],
        ["convert", "compose", "--rule", "advanced", "--epsilon", "0.1", "--k", "10"],
        ["convert", "compose", "--rule", "kov", "--epsilon", "0.1", "--k", "0",
         "--delta-slack", "1e-6"],
        ["convert", "compose", "--rule", "kov", "--epsilon", "0.1", "--k", "3",
         "--delta-slack", "0"],
        ["convert", "compose", "--rule", "basic", "--epsilon", "0.1", "--k", "ten"],
        ["convert", "compose", "--rule", "basic", "--epsilon", "0.1", "--mechanism-delta",
         "0.5", "--k", "3"],
        ["convert", "compose", "--rule", "advanced", "--epsilon", "0.1", "--k", "3",
         "--delta", "1e-6", "--delta-slack", "1e-6"],
        ["convert", "compose", "--rule", "advanced", "--epsilon", "0.1", "--k", "10",
         "--mechanism-delta", "1e-7", "--delta", "1e-6"],
        ["convert", "compose", "--rule", "basic", "--epsilon", "0.1", "--k", "3",
         "--delta", "1e-6"],
        ["convert", "compose", "--rule", "optimal", "--k", "3", "--delta", "1e-6"],
        ["convert", "compose", "--rule", "kov", "--epsilon", "0.1", "--delta", "1e-6"],
        ["convert", "compose", "--rule", "optimal", "--epsilon", "0.1", "--k", "100000",
         "--delta", "1e-6"],
        ["convert", "compose", "--rule", "optimal", "--epsilon", "0.1", "--k", "3",
         "--mechanism-delta", "1e-5", "--delta", "1e-5"],
        ["convert", "compose", "--rule", "optimal", "--spends", "/nonexistent/spends.jsonl",
         "--delta", "1e-6"],
        ["convert"],
    ],
)
def test_bad_input_exits_2_with_one_line(argv: list[str],
                                         capsys: pytest.CaptureFixture[str]) -> None:
    try:
        code = main(argv)
    except SystemExit as stop:  # argparse errors
        code = int(stop.code) if isinstance(stop.code, int) else 2
    assert code == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = [line for line in captured.err.splitlines() if line.strip()]
    assert lines and "Traceback" not in captured.err
    assert len(lines) == 1 or lines[0].startswith("usage:")


def test_help_gives_the_papers_symbols(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["convert", "zcdp-to-dp", "--help"])
    out = capsys.readouterr().out
    assert "delta''" in out and "rho" in out and "EXT-CKS20" in out


def test_compose_optimal_homogeneous(capsys: pytest.CaptureFixture[str]) -> None:
    """100 x 0.1-DP at delta 1e-5: the exact optimum 4.30679137251650... (50-digit check in
    tests/guarantees/test_optimal.py), not KOV15's grid value 4.4."""
    argv = ["convert", "compose", "--rule", "optimal", "--epsilon", "0.1", "--k", "100",
            "--delta", "1e-5"]
    data = _json(capsys, [*argv, "--json"])
    assert data == {"epsilon": "4.306791372516507", "delta": "1e-05", "method": "optimal",
                    "spec": "EXT-MV16"}
    assert data["epsilon"] == repr(
        float(compose_optimal([PureDP("0.1")] * 100, "1e-5").epsilon))
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert out.startswith("(4.306791372516507, 1e-05)-DP") and "EXT-MV16" in out
    # --delta-slack: the total is k * --mechanism-delta + delta'
    data = _json(capsys, ["convert", "compose", "--rule", "optimal", "--epsilon", "0.1",
                          "--k", "10", "--mechanism-delta", "1e-7", "--delta-slack", "1e-6",
                          "--json"])
    expected = compose_optimal([ApproxDP("0.1", "1e-7")] * 10, "2e-6")
    assert data["epsilon"] == repr(float(expected.epsilon))
    assert data["delta"] == repr(round_up(Fraction(2, 10**6)))


def test_compose_optimal_spends(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spends = tmp_path / "spends.jsonl"
    spends.write_text('{"kind": "pure", "epsilon": "0.1"}\n\n'
                      '{"kind": "approx", "epsilon": 0.5, "delta": 1e-7}\n'
                      '{"kind": "pure", "epsilon": "0.25"}\n', encoding="utf-8")
    data = _json(capsys, ["convert", "compose", "--rule", "optimal", "--spends", str(spends),
                          "--delta", "1e-5", "--json"])
    expected = compose_optimal([PureDP("0.1"), ApproxDP("0.5", "1e-7"), PureDP("0.25")],
                               "1e-5")
    assert data["epsilon"] == repr(float(expected.epsilon)) and data["spec"] == "EXT-MV16"
    assert float(data["epsilon"]) < 0.85  # basic composition: 0.85
    by_slack = _json(capsys, ["convert", "compose", "--rule", "optimal", "--spends",
                              str(spends), "--delta-slack", "0.0000099", "--json"])
    assert by_slack["epsilon"] == data["epsilon"]


@pytest.mark.parametrize(
    ("lines", "extra", "message"),
    [
        ('{"kind": "zcdp", "rho": 0.1}\n', ["--rule", "optimal"], "pure or approx"),
        ("", ["--rule", "optimal"], "no spends"),
        ('{"kind": "pure", "epsilon": 0.1}\n', ["--rule", "kov"], "--rule optimal"),
        ('{"kind": "pure", "epsilon": 0.1}\n', ["--rule", "optimal", "--k", "2"], "either"),
        ('{"kind": "pure", "epsilon": -1}\n', ["--rule", "optimal"], "epsilon"),
        ('{"kind": "approx", "epsilon": 1, "delta": 1e-5}\n', ["--rule", "optimal"],
         "delta' = -9/1000000"),
    ],
)
def test_compose_spends_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                               lines: str, extra: list[str], message: str) -> None:
    spends = tmp_path / "spends.jsonl"
    spends.write_text(lines, encoding="utf-8")
    code = main(["convert", "compose", *extra, "--spends", str(spends), "--delta", "1e-6"])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == ""
    assert len(captured.err.strip().splitlines()) == 1 and message in captured.err


@pytest.mark.parametrize("method", ["cks", "bun-steinke"])
def test_epsilon_beyond_floats_names_the_inputs(method: str,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    """rho = 1e400 is a finite exact input whose epsilon overflows a float: one line naming
    the flags (the long fuzz campaign found bun-steinke reporting "epsilon=inf")."""
    argv = ["convert", "zcdp-to-dp", "--rho", "1e400", "--delta", "0.5", "--method", method]
    assert main(argv) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert "--rho 1e400" in line and "no finite certified value" in line
