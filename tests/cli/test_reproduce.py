"""``adaptive-dp reproduce relative-error`` (R23 section 7.2, Figure 3)."""

from __future__ import annotations

from pathlib import Path

import pytest

from adaptive_dp.applications.experiment import read_csv
from adaptive_dp.cli import main


def test_quick_mode_writes_csv_png_and_command(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["reproduce", "relative-error", "--quick", "--trials", "3",
                 "--out", str(tmp_path), "--seed", "5"])
    assert code == 0
    out = capsys.readouterr().out
    assert "doubling" in out and "brownian" in out
    rows = read_csv(tmp_path / "relative-error.csv")
    assert {r.size for r in rows} == {10**4, 10**5, 10**6}
    assert all(r.trials == 3 and r.certified for r in rows)
    assert (tmp_path / "relative-error.png").read_bytes()[:4] == b"\x89PNG"
    command = (tmp_path / "command.txt").read_text()
    assert "--seed 5" in command and "eps2_min=1/1000000" in command


def test_sizes_and_no_plot(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["reproduce", "relative-error", "--trials", "2", "--sizes", "1000", "20000",
                 "--out", str(tmp_path / "sub"), "--no-plot", "--no-certify"])
    assert code == 0
    assert not (tmp_path / "sub" / "relative-error.png").exists()
    rows = read_csv(tmp_path / "sub" / "relative-error.csv")
    assert [r.size for r in rows] == [1000, 1000, 20000, 20000]
    assert not any(r.certified for r in rows)
    capsys.readouterr()


@pytest.mark.parametrize("argv", [
    ["reproduce", "relative-error", "--trials", "0"],
    ["reproduce", "relative-error", "--sizes", "-5", "--trials", "1"],
    ["reproduce", "nothing"],
    ["reproduce", "relative-error", "--trials", "1", "--sizes", "10", "--workers", "0"],
    ["reproduce", "relative-error", "--trials", "1", "--sizes", "10", "--scheduler", "no-port"],
    ["reproduce", "relative-error", "--trials", "1", "--sizes", "10", "--seed", "-1"],
])
def test_usage_errors_exit_2(argv: list[str], capsys: pytest.CaptureFixture[str],
                             tmp_path: Path) -> None:
    try:
        code = main([*argv, "--out", str(tmp_path)])
    except SystemExit as exit_:  # argparse's own usage errors
        code = exit_.code  # type: ignore[assignment]
    assert code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
