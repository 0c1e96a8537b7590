"""A session's export is a version-1 transcript that ``adaptive_dp.certify`` certifies
line by line: every recorded decision and number agrees with the certified rule."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from adaptive_dp.certify import certify_text
from adaptive_dp.sessions import SessionStore
from adaptive_dp.transcript import Header


@pytest.mark.parametrize(("header", "requests"), [
    (Header("rule", "w23", {"epsilon": "1", "delta": "1e-6"}),
     [{"kind": "pure", "epsilon": e} for e in ("0.3", "0.4", "0.9", "0.2", "0.8", "0.01")]),
    (Header("rule", "basic", {"epsilon": "1", "delta": "1e-6"}, mode="terminal"),
     [{"kind": "approx", "epsilon": "0.4", "delta": "1e-7"}, {"kind": "pure", "epsilon": "0.7"},
      {"kind": "pure", "epsilon": "0.1"}]),
    (Header("rule", "zcdp-sum", {"rho": "0.5"}),
     [{"kind": "zcdp", "rho": r} for r in ("0.2", "0.25", "0.1", "0.05")]),
    (Header("odometer", "w23-stitched", {"delta": "1e-6"}),
     [{"kind": "pure", "epsilon": e} for e in ("0.1", "0.2", "0.05")]),
])
def test_export_certifies(tmp_path: Path, header: Header,
                          requests: list[dict[str, object]]) -> None:
    with SessionStore.create(tmp_path / "s.db", header) as store:
        answers = [store.spend(r, f"q{i}") for i, r in enumerate(requests)]
        out = io.StringIO()
        store.export(out)
    if header.books == "rule":
        assert "halt" in {a.decision for a in answers}  # the export has refusals
    cert = certify_text(out.getvalue())
    assert [v.verdict for v in cert.verdicts] == ["agrees"] * len(requests)
    assert cert.exit_code == 0
