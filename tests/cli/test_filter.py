"""``adaptive-dp filter``: one decision per line, stop at the first HALT, exit 2 on a bad line."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from adaptive_dp.cli import main

LINE = '{"kind": "pure", "epsilon": "0.1"}\n'


def run(argv: list[str], stdin: str, monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    return main(argv)


def test_w23_hand_values_and_stop(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code = run(
        ["filter", "w23", "--epsilon", "1", "--delta", "1e-6", "--json"], LINE * 6, monkeypatch
    )
    assert code == 0
    records = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [r["decision"] for r in records] == ["continue"] * 3 + ["halt"]
    assert abs(records[2]["spent"]["epsilon"] - 0.925456) < 1e-6
    assert records[3]["max_next"] is None and records[0]["spec"] == "H23-ThmB.3"


def test_basic_text_output_exhausts_exactly(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    stdin = LINE + '{"kind": "pure", "epsilon": "0.9"}\n' + LINE
    assert run(["filter", "basic", "--epsilon", "1"], stdin, monkeypatch) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [x.split("\t")[1] for x in lines] == ["continue", "continue", "halt"]


@pytest.mark.parametrize(
    ("argv", "stdin", "expected"),
    [
        (
            ["filter", "zcdp", "--epsilon", "10", "--delta", "1e-6"],
            '{"kind": "zcdp", "rho": 1}\n' * 3,
            ["continue", "halt"],
        ),
        (
            ["filter", "zcdp-sum", "--rho", "1"],
            '{"kind": "zcdp", "rho": 0.5}\n' * 3,
            ["continue", "continue", "halt"],
        ),
        (
            ["filter", "rdp", "--alpha", "2", "--epsilon", "1"],
            '{"kind": "rdp", "alpha": 2, "epsilon": 1}\n' * 2,
            ["continue", "halt"],
        ),
        (
            ["filter", "gdp", "--mu", "1"],
            '{"kind": "gdp", "mu": 0.6}\n{"kind": "gdp", "mu": 0.8}\n{"kind": "gdp", "mu": 0.1}\n',
            ["continue", "continue", "halt"],
        ),
        (
            ["filter", "rruv16", "--epsilon", "1", "--delta", "1e-6"],
            '{"kind": "pure", "epsilon": 0.9}\n',
            ["halt"],
        ),
        (["filter", "pure", "--epsilon", "0.1"], LINE * 2, ["continue", "halt"]),
    ],
)
def test_rules(
    argv: list[str],
    stdin: str,
    expected: list[str],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert run([*argv, "--json"], stdin, monkeypatch) == 0
    assert [json.loads(x)["decision"] for x in capsys.readouterr().out.splitlines()] == expected


def test_bad_line_exits_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code = run(
        ["filter", "basic", "--epsilon", "1"],
        LINE + '{"kind": "pure", "epsilon": "x"}\n',
        monkeypatch,
    )
    assert code == 2
    err = capsys.readouterr().err
    assert "line 2" in err and "epsilon" in err and len(err.strip().splitlines()) == 1


def test_unsupported_kind_and_missing_flag_exit_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(["filter", "gdp", "--mu", "1"], LINE, monkeypatch) == 2
    assert run(["filter", "w23", "--epsilon", "1"], LINE, monkeypatch) == 2
    assert "--delta" in capsys.readouterr().err


def test_json_to_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "d.jsonl"
    assert run(["filter", "pure", "--epsilon", "1", "--json", str(out)], LINE, monkeypatch) == 0
    assert json.loads(out.read_text().splitlines()[0])["decision"] == "continue"


def test_unsupported_kind_names_line_and_kind(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    stdin = LINE + '{"kind": "bm", "sensitivity": 1, "t_min": 1, "t_stop": 2}\n'
    assert run(["filter", "w23", "--epsilon", "1", "--delta", "1e-6"], stdin, monkeypatch) == 2
    err = capsys.readouterr().err
    assert "line 2" in err and "this bm spend" in err


@pytest.mark.parametrize(("t_min", "decision"), [("0.59", "continue"), ("0.58", "halt")])
def test_unified_rule_prechecks_the_bm_at_t_min(
    t_min: str, decision: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """R23-Thm6 via ``filter unified``: rho* = (sqrt(L + eps) - sqrt(L))^2 = 1.35311 at
    eps = 10, L = log(1e6); after rho = 0.5 a BM is admitted iff 0.5 + 1/(2 t_min) <= rho*."""
    stdin = (
        '{"kind": "zcdp", "rho": "0.5"}\n'
        f'{{"kind": "bm", "sensitivity": 1, "t_min": {t_min}, "t_stop": 2}}\n'
    )
    argv = ["filter", "unified", "--epsilon", "10", "--delta", "1e-6", "--json"]
    assert run(argv, stdin, monkeypatch) == 0
    records = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [r["decision"] for r in records] == ["continue", decision]
    assert records[1]["spec"] == "R23-Thm6"


def test_expost_rule_charges_the_realised_value(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """R23-Lem5.2 via ``filter expost``: pre-check on max_epsilon, charge the realised E."""
    line = '{"kind": "expost", "max_epsilon": "0.5", "epsilon": "0.35", "delta": 0}\n'
    assert run(["filter", "expost", "--epsilon", "1", "--json"], line * 3, monkeypatch) == 0
    records = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    # 0.35 + 0.5 <= 1 admits the second; 0.7 + 0.5 > 1 halts the third
    assert [r["decision"] for r in records] == ["continue", "continue", "halt"]
    assert records[1]["spent"]["epsilon"] == pytest.approx(0.7)


def test_brownian_rule_refuses_zcdp_lines(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["filter", "brownian", "--epsilon", "1", "--delta", "0.05"]
    assert run(argv, '{"kind": "zcdp", "rho": "0.01"}\n', monkeypatch) == 2
    assert "cannot take this zcdp spend" in capsys.readouterr().err
