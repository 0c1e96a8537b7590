"""Extreme but plausible command lines (issue: reliability): one line on stderr naming the
flag as the user wrote it, exit 2, never a traceback or a hang; plain short numbers."""

from __future__ import annotations

import io
import json
import time

import mpmath
import pytest

from adaptive_dp.cli import main

PURE = '{"kind": "pure", "epsilon": "0.1"}\n'


def _run(command: str, monkeypatch: pytest.MonkeyPatch, stdin: str = PURE) -> int:
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    return main(command.split())


@pytest.mark.parametrize(
    ("argv", "names"),
    [
        ("convert zcdp-to-dp --rho 1e400 --delta 1e-6", ("--rho 1e400",)),
        ("convert gdp-to-dp --mu 1e308 --delta 1e-6", ("--mu 1e308",)),
        ("odometer w23-mixture --delta 1e-6 --mixture-v-star abc", ("--mixture-v-star", "abc")),
        ("odometer w23-mixture --delta 1e-6 --mixture-v-star 0", ("--mixture-v-star", "> 0")),
        ("odometer w23-mixture --delta 1e-6 --mixture-v-star -1", ("--mixture-v-star", "> 0")),
        ("filter w23 --epsilon 1 --delta 1e-6 --json /nonexistent/x.json", ("--json",)),
        ("expost bound --t-stop 12.5 --delta 1e-6 --form w22 --boundary linear "
         "--linear-slope 0", ("--linear-slope", "> 0")),
        ("filter w23 --epsilon 1 --delta 0", ("--delta 0",)),
        ("convert compose --rule kov --epsilon 0.1 --k 1000000000 --delta 1e-5",
         ("--k=1000000000", "--rule advanced")),
    ],
)
def test_one_line_usage_errors(
    argv: str, names: tuple[str, ...], monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert _run(argv, monkeypatch) == 2
    captured = capsys.readouterr()
    assert captured.err.count("\n") == 1 and "Traceback" not in captured.err
    for name in names:
        assert name in captured.err, (name, captured.err)


def test_a_delta_next_to_one_converts_whatever_the_global_precision(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    command = "convert zcdp-to-dp --rho 0.5 --delta 0.99999999999999999999 --json"
    outputs = []
    for dps in (15, 50):  # a test module setting mp.dps must not change the answer
        monkeypatch.setattr(mpmath.mp, "dps", dps)
        assert _run(command, monkeypatch) == 0
        outputs.append(capsys.readouterr().out)
    assert outputs[0] == outputs[1] and '"epsilon": "0.0"' in outputs[0]


def test_huge_counts_are_closed_forms_not_hangs(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    start = time.perf_counter()
    assert _run("convert compose --rule basic --epsilon 0.1 --k 1000000000",
                monkeypatch) == 0
    assert time.perf_counter() - start < 5
    assert capsys.readouterr().out.startswith("(100000000.0, 0.0)-DP")


def test_tiny_delta_prints_short(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _run("expost bound --t-stop 12.5 --delta 1e-400", monkeypatch) == 0
    out = capsys.readouterr().out
    assert "delta=1e-400\t" in out and len(out) < 120


def test_expost_filter_text_has_no_python_reprs(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    zcdp = '{"kind": "zcdp", "rho": "0.01"}\n'
    assert _run("expost filter --epsilon 1 --delta 1e-6", monkeypatch, zcdp) == 0
    out = capsys.readouterr().out
    assert "{" not in out and "spent.epsilon=" in out


def test_a_mismatched_order_says_which_order(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    line = '{"kind": "rdp", "alpha": 3, "epsilon": 1}\n'
    assert _run("odometer rdp --alpha 2", monkeypatch, line) == 2
    assert "alpha=2" in capsys.readouterr().err


def test_verify_only_takes_a_source_tag(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", "--only", "R23", "--list"]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert listed and all(line.startswith("R23-") for line in listed)


def test_a_delta_below_the_float_range_converts(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """mu = 1 at delta = 1e-400: the certified epsilon, against a 60-digit root of
    Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2) = delta computed here."""
    assert _run("convert gdp-to-dp --mu 1 --delta 1e-400 --json", monkeypatch) == 0
    epsilon = float(json.loads(capsys.readouterr().out)["epsilon"])
    with mpmath.workdps(60):
        def curve(e: mpmath.mpf) -> mpmath.mpf:
            return (mpmath.ncdf(-e + mpmath.mpf(1) / 2)
                    - mpmath.exp(e) * mpmath.ncdf(-e - mpmath.mpf(1) / 2)
                    - mpmath.mpf("1e-400"))
        lo, hi = mpmath.mpf(40), mpmath.mpf(46)  # curve(40) > 0 > curve(46): bisect
        for _ in range(200):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if curve(mid) > 0 else (lo, mid)
        exact = hi
    assert exact <= epsilon <= exact * (1 + mpmath.mpf("1e-15"))
