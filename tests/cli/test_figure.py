"""W23-OdometerComparison: the curves of ``adaptive-dp figure odometers``
(adaptive_dp.cli.figure.odometer_curves), the RRUV16 curve against an independent mpmath
evaluation of RRUV16-Odometer's formula."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest
from mpmath import mp

from adaptive_dp.cli import main
from adaptive_dp.cli.figure import odometer_curves, rruv16_n_for


def _rruv16(k: int, eps: str, n: int, delta_g: str) -> mp.mpf:
    with mp.workdps(40):
        e = mp.mpf(eps)
        v = k * e**2
        conc = mp.sqrt(2 * (v + mp.mpf(1) / n**2) * (1 + mp.log(1 + n**2 * v) / 2)
                       * mp.log(4 * mp.log(n, 2) / mp.mpf(delta_g)))
        return k * e * mp.expm1(e) / 2 + conc


def test_rruv16_curve_and_comparison() -> None:
    """100 steps of (0.1, 0)-DP at delta' = 1e-5: the RRUV16 curve (n = 10) is its formula
    rounded up; at n = 100 both corrected W23 odometers lie below it (the poster's
    "significantly improve over the original odometer"), the stitched one at every step."""
    curves = odometer_curves(Fraction(1, 10), 100, Fraction(1, 10**5), Fraction("0.040171"))
    assert set(curves) == {"stitched (corrected)", "mixture (corrected)",
                           "RRUV16 (reconstructed)", "basic composition",
                           "W23 filter expression (fixed n)"}
    rruv16 = curves["RRUV16 (reconstructed)"]
    for k in (1, 10, 100):
        exact = _rruv16(k, "0.1", 10, "1e-5")
        assert 0 <= rruv16[k - 1] - exact < 1e-12
    assert abs(rruv16[-1] - 10.23) < 0.01
    assert all(s < r for s, r in zip(curves["stitched (corrected)"], rruv16, strict=True))
    assert curves["mixture (corrected)"][-1] < 0.6 * rruv16[-1]


def test_rruv16_n_default_and_override() -> None:
    assert rruv16_n_for(Fraction(1, 10)) == 10
    assert rruv16_n_for(Fraction(3, 10)) == 4
    assert rruv16_n_for(Fraction(2)) == 2
    curves = odometer_curves(Fraction(1, 10), 3, Fraction(1, 10**5), 1, rruv16_n=100)
    assert 0 <= curves["RRUV16 (reconstructed)"][2] - _rruv16(3, "0.1", 100, "1e-5") < 1e-12


def test_figure_rruv16_n_flag(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "odometers.png"
    assert main(["figure", "odometers", "--out", str(out), "--rruv16-n", "1"]) == 2
    assert "--rruv16-n must be at least 2" in capsys.readouterr().err
    assert not out.exists()
