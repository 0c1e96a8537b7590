"""The inputs a review tried as a new user would (issue 18, "Why"), each answered properly:
a certified answer (exit 0), or one line on stderr naming the flag as written, the value and
the allowed range (exit 2); never a traceback, a Python repr or a hang."""

from __future__ import annotations

import io
import time

import pytest

from adaptive_dp.cli import main

CASES: list[tuple[list[str], str, int, tuple[str, ...]]] = [
    (["convert", "zcdp-to-dp", "--rho", "1e400", "--delta", "1e-6"], "", 2, ("--rho",)),
    (["convert", "zcdp-to-dp", "--rho", "0.5", "--delta", "0.99999999999999999999"], "", 0,
     ("-DP",)),
    (["convert", "gdp-to-dp", "--mu", "1e308", "--delta", "1e-6"], "", 2, ("--mu",)),
    (["convert", "gdp-to-dp", "--mu", "1", "--delta", "1e-400"], "", 0, ("-DP",)),
    (["odometer", "w23-mixture", "--delta", "1e-6", "--mixture-v-star", "abc"], "", 2,
     ("--mixture-v-star abc",)),
    (["odometer", "w23-mixture", "--delta", "1e-6", "--mixture-v-star", "0"], "", 2,
     ("--mixture-v-star 0",)),
    (["odometer", "w23-mixture", "--delta", "1e-6", "--mixture-v-star", "-1"], "", 2,
     ("--mixture-v-star -1",)),
    (["filter", "w23", "--epsilon", "1", "--delta", "1e-6", "--json", "/nonexistent/x.json"],
     '{"kind": "pure", "epsilon": "0.1"}\n', 2, ("--json",)),
    (["convert", "compose", "--rule", "basic", "--epsilon", "0.1", "--k", "1000000000"], "", 0,
     ("100000000.0",)),
    (["convert", "zcdp-to-dp", "--rho", "0.5", "--delta", "0"], "", 2, ("--delta 0",)),
    (["convert", "zcdp-to-dp", "--rho", "nan", "--delta", "1e-6"], "", 2, ("--rho nan",)),
    (["expost", "bound", "--t-stop", "2", "--delta", "1e-6", "--form", "w22", "--boundary",
      "linear", "--linear-slope", "0"], "", 2, ("--linear-slope 0",)),
    (["convert", "compose", "--rule", "basic", "--epsilon", "1e308", "--k", "1"], "", 0,
     ("1e+308",)),
    (["filter", "rdp", "--alpha", "2", "--epsilon", "1"],
     '{"kind": "rdp", "alpha": 3, "epsilon": 0.1}\n', 2, ("line 1", "alpha=3", "alpha=2")),
    (["expost", "bound", "--t-stop", "2", "--delta", "1e-400"], "", 0, ("delta=1e-400",)),
    (["verify", "--only", "R23", "--list"], "", 0, ("R23-",)),
]


@pytest.mark.parametrize("argv, stdin, code, shown", CASES, ids=[" ".join(c[0]) for c in CASES])
def test_reported_input(argv: list[str], stdin: str, code: int, shown: tuple[str, ...],
                        monkeypatch: pytest.MonkeyPatch,
                        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    started = time.perf_counter()
    assert main(argv) == code
    assert time.perf_counter() - started < 30
    out, err = capsys.readouterr()
    text = out if code == 0 else err
    for part in shown:
        assert part in text, text
    for bad in ("Traceback", "Decimal(", "Fraction(", "'None'"):
        assert bad not in out + err
    if code == 2:
        assert len(err.strip().splitlines()) == 1, err
