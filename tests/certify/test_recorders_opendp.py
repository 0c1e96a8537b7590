"""OpenDP recorder (AUD-FilterModels: the filter's spent is its privacy_loss(d_in), and a
refusal is terminal): OpenDP 0.16 privacy-filter sessions written as transcripts and
certified; expected decisions and verdicts computed here with exact Fractions of the floats
OpenDP used, independently of the recorder and of the certify engine."""

from __future__ import annotations

import ast
import io
import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from adaptive_dp.certify import certify_text
from adaptive_dp.certify.recorders import opendp as recorder
from adaptive_dp.transcript import read_transcript

dp: Any = pytest.importorskip("opendp.prelude")

pytestmark = pytest.mark.peers


def _laplace(scale: float) -> Any:
    dp.enable_features("contrib")
    space = (dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float))
    return dp.m.make_laplace(*space, scale=scale)


def test_agreeing_session_certifies_clean() -> None:
    """Laplace scales 4, 2, 1 (epsilons 1/4, 1/2, 1: dyadic, so the floats are exact)
    against a budget of 1: two admissions, then refusals that exact arithmetic also
    refuses (1/4 + 1/2 + 1 > 1 and, terminal, the last one after a refusal)."""
    rec = recorder.OpenDPFilterRecorder("max-divergence", 1.0)
    answered = [rec.submit_measurement(_laplace(s)) for s in (4.0, 2.0, 1.0, 4.0)]
    assert answered == [True, True, False, False]
    budget, spends = Fraction(1), [Fraction(1, 4), Fraction(1, 2), Fraction(1)]
    assert sum(spends[:2]) <= budget < sum(spends)
    text = rec.transcript()
    transcript = read_transcript(text.splitlines())
    assert transcript.header.name == "pure" and transcript.header.mode == "terminal"
    assert transcript.header.source is not None
    assert transcript.header.source.startswith(f"opendp {recorder.peer_version()}")
    assert [e.spent for e in transcript.entries] == [Fraction(1, 4), Fraction(3, 4),
                                                     None, None]
    cert = certify_text(text)
    assert [(v.line, v.verdict) for v in cert.verdicts] == [
        (2, "agrees"), (3, "agrees"), (4, "agrees"), (5, "agrees")]
    assert cert.exit_code == 0


def test_agreeing_zcdp_session() -> None:
    rec = recorder.OpenDPFilterRecorder("zero-concentrated", 0.5)
    assert [rec.submit(r) for r in (0.25, 0.125, 0.2)] == [True, True, False]
    assert Fraction(0.25) + Fraction(0.125) + Fraction(0.2) > Fraction(0.5)
    text = rec.transcript()
    assert read_transcript(text.splitlines()).header.name == "zcdp-sum"
    cert = certify_text(text)
    assert [v.verdict for v in cert.verdicts] == ["agrees"] * 3
    assert cert.exit_code == 0


def test_rounded_up_sum_refuses_a_spend_that_fits_exactly() -> None:
    """Laplace scales 10, 5, 10 (epsilons 0.1, 0.2, 0.1 as floats) against 0.4: the exact
    values of the three floats sum to exactly the float 0.4 (0.2 = 2 x 0.1 and 0.4 = 4 x
    0.1 in binary), so the third fits; OpenDP rounds 0.1 + 0.2 up to
    0.30000000000000004, then that + 0.1 up to 0.4000000000000001 > 0.4, and refuses."""
    one, two, budget = Fraction(0.1), Fraction(0.2), Fraction(0.4)
    assert one + two + one == budget  # exact arithmetic admits the third spend
    assert one + two < Fraction(0.30000000000000004)  # what OpenDP reports as spent
    rec = recorder.OpenDPFilterRecorder("max-divergence", 0.4)
    answered = [rec.submit_measurement(_laplace(s)) for s in (10.0, 5.0, 10.0)]
    assert answered == [True, True, False]
    text = rec.transcript()
    lines = [json.loads(t) for t in text.splitlines()]
    assert Fraction(lines[0]["parameters"]["epsilon"]) == budget
    assert [Fraction(t["epsilon"]) for t in lines[1:]] == [one, two, one]
    assert Fraction(lines[2]["spent"]) == Fraction(0.30000000000000004)
    cert = certify_text(text)
    by_line = {v.line: v for v in cert.verdicts}
    assert by_line[2].verdict == by_line[3].verdict == "agrees"
    assert by_line[4].verdict == "conservative"
    assert by_line[4].unused == float(budget - one - two) == 0.1
    assert cert.exit_code == 0


def test_filter_is_terminal_after_a_refusal() -> None:
    """The recorder's header says ``terminal``: OpenDP refuses even a zero spend after
    its first refusal."""
    rec = recorder.OpenDPFilterRecorder("max-divergence", 1.0)
    assert [rec.submit(e) for e in (0.5, 0.75, 0.0)] == [True, False, False]
    assert rec.decisions == ["continue", "halt", "halt"]


def test_approximate_session_and_other_errors_propagate() -> None:
    """Approximate(MaxDivergence) budgets are pairs; a pending loss that exceeds the
    budget in epsilon only is an OpenDP ordering error, not a refusal: it propagates."""
    buffer = io.StringIO()
    decisions = recorder.record_filter_session(
        "approximate-max-divergence", (1.0, 1e-6), [(0.5, 1e-7), (0.75, 1e-6)], buffer)
    assert decisions == [True, False]  # second exceeds in both coordinates
    assert Fraction(0.5) + Fraction(0.75) > 1 and Fraction(1e-7) + Fraction(1e-6) > Fraction(1e-6)
    transcript = read_transcript(buffer.getvalue().splitlines())
    assert transcript.header.name == "basic"
    assert Fraction(transcript.header.parameters["delta"]) == Fraction(1e-6)
    assert certify_text(buffer.getvalue()).exit_code == 0
    rec = recorder.OpenDPFilterRecorder("approximate-max-divergence", (1.0, 1e-6))
    with pytest.raises(dp.OpenDPException) as caught:
        rec.submit((1.5, 0.0))
    assert not recorder.is_refusal(caught.value)
    assert rec.decisions == []


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="measure"):
        recorder.OpenDPFilterRecorder("renyi", 1.0)
    with pytest.raises(ValueError, match="budget"):
        recorder.OpenDPFilterRecorder("max-divergence", -1.0)


def test_imports_opendp_lazily() -> None:
    source = Path(recorder.__file__).read_text(encoding="utf-8")
    top = [n for n in ast.parse(source).body if isinstance(n, (ast.Import, ast.ImportFrom))]
    names = [a.name for n in top if isinstance(n, ast.Import) for a in n.names]
    names += [n.module or "" for n in top if isinstance(n, ast.ImportFrom)]
    assert names and not any(name.split(".")[0] == "opendp" for name in names)
