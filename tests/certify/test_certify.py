"""``certify``: every verdict against an expectation computed here, independently of the
code under test (exact Fractions for sum rules, 50-digit mpmath for the W23 and R23
bounds), on the example transcripts and on generated ones with injected unsafe lines."""

from __future__ import annotations

import hashlib
import json
from decimal import Decimal, localcontext
from fractions import Fraction
from pathlib import Path

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adaptive_dp.certify import certify_text, check_certificate
from adaptive_dp.cli import main
from adaptive_dp.guarantees.bounds import W23Bound
from adaptive_dp.numerics import exact_lower

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "transcripts"


def _header(rule: str, mode: str = "refuse-and-continue", concurrent: bool = False,
            **params: str) -> str:
    return json.dumps({"transcript": 1, "rule": rule, "parameters": params, "mode": mode,
                       "concurrent": concurrent})


def _line(kind: str = "pure", **fields: object) -> str:
    return json.dumps({"kind": kind, **{k: v for k, v in fields.items() if v is not None}})


def _w23_admits(k: int, eps: str = "0.1", budget: str = "1", delta: str = "1e-6") -> bool:
    """H23-ThmB.3 at k spends of ``eps``, in 50 digits: sqrt(2 log(1/delta) V) + V/2."""
    with mpmath.workdps(50):
        v = k * mpmath.mpf(eps) ** 2
        return bool(mpmath.sqrt(2 * mpmath.log(1 / mpmath.mpf(delta)) * v) + v / 2
                    <= mpmath.mpf(budget))


# -- the examples -------------------------------------------------------------------------


def _cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_the_truthful_w23_transcript_agrees_and_refuses_at_least_once(
        capsys: pytest.CaptureFixture[str]) -> None:
    path = EXAMPLES / "w23-truthful.jsonl"
    decisions = [json.loads(t).get("decision") for t in path.read_text().splitlines()[1:]]
    admitted = sum(_w23_admits(k) for k in range(1, 7))
    assert decisions == ["continue"] * admitted + ["halt"] * (6 - admitted)
    assert "halt" in decisions
    code, out, _ = _cli(["certify", str(path)], capsys)
    assert code == 0 and "6 agrees" in out


def test_one_admission_too_many_exits_1_naming_that_line(
        capsys: pytest.CaptureFixture[str]) -> None:
    path = EXAMPLES / "w23-one-unsafe.jsonl"
    admitted = sum(_w23_admits(k) for k in range(1, 7))
    assert admitted == 3 and not _w23_admits(4)  # the 4th request is line 5
    code, out, _ = _cli(["certify", str(path)], capsys)
    assert code == 1
    assert "line 5: unsafe" in out and out.count("unsafe:") == 1


def test_an_early_refusal_is_conservative_with_the_unused_budget() -> None:
    cert = certify_text((EXAMPLES / "w23-early-refusal.jsonl").read_text())
    assert cert.exit_code == 0
    assert [v.line for v in cert.verdicts if v.verdict == "conservative"] == [4, 5]
    with mpmath.workdps(50):  # after two spends of 0.1: the largest next epsilon e with
        c = 2 * mpmath.log(mpmath.mpf(10) ** 6)  # sqrt(c (V + e^2)) + (V + e^2)/2 = 1
        room = (mpmath.sqrt(c + 2) - mpmath.sqrt(c)) ** 2  # V* (the root of the bound)
        unused = float(mpmath.sqrt(room - mpmath.mpf("0.02")))
    line4 = cert.verdicts[2]
    assert line4.unused == pytest.approx(unused, rel=1e-12)


def test_every_example_certifies_and_rechecks(capsys: pytest.CaptureFixture[str],
                                              tmp_path: Path) -> None:
    expected = {"w23-truthful": 0, "w23-one-unsafe": 1, "w23-early-refusal": 0,
                "zcdp-filter": 0, "zcdp-sum-concurrent": 0, "w23-stitched-odometer": 0}
    assert {p.stem for p in EXAMPLES.glob("*.jsonl")} == set(expected)
    for stem, code in expected.items():
        path = EXAMPLES / f"{stem}.jsonl"
        cert = tmp_path / f"{stem}.json"
        assert _cli(["certify", str(path), "--json", str(cert)], capsys)[0] == code
        assert _cli(["certify", str(path), "--check", str(cert)], capsys)[0] == 0


def test_the_concurrent_transcript_cites_the_concurrent_theorem() -> None:
    cert = certify_text((EXAMPLES / "zcdp-sum-concurrent.jsonl").read_text())
    assert cert.concurrent and "H23-Thm4.10" in cert.spec
    assert {v.child for v in cert.verdicts} == {"analyst-a", "analyst-b"}
    admitted = [v.decision for v in cert.verdicts].count("continue")
    assert admitted == 5 and cert.verdict == "agrees"  # 5 x 0.1 = 0.5 exactly


def test_a_rule_without_a_concurrent_theorem_is_refused(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text(_header("zcdp", concurrent=True, epsilon="1", delta="1e-6") + "\n"
                    + _line("zcdp", rho="0.01", child="a") + "\n")
    code, _, err = _cli(["certify", str(path)], capsys)
    assert code == 2 and "line 1" in err and "concurrent" in err and err.count("\n") == 1


# -- generated transcripts ----------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 40), st.booleans()), min_size=1, max_size=40))
def test_every_injected_unsafe_admission_is_found_basic(
        requests: list[tuple[int, bool]]) -> None:
    """Basic composition, budget 1, spends k/100, arbitrary recorded decisions: a line
    is unsafe iff it records an admission that overflows what the system really admitted."""
    lines = [_header("basic", epsilon="1")]
    expected, total = [], Fraction(0)
    for k, admit in requests:
        eps = Fraction(k, 100)
        lines.append(_line(epsilon=str(float(eps)), decision="continue" if admit else "halt"))
        fits = total + eps <= 1
        if admit:
            expected.append("agrees" if fits else "unsafe")
            total += eps
        else:
            expected.append("conservative" if fits else "agrees")
    cert = certify_text("\n".join(lines))
    assert [v.verdict for v in cert.verdicts] == expected
    assert cert.exit_code == (1 if "unsafe" in expected else 0)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["0.05", "0.1", "0.2", "0.3"]), st.booleans()),
                min_size=1, max_size=25))
def test_every_injected_unsafe_admission_is_found_w23(
        requests: list[tuple[str, bool]]) -> None:
    """The W23 filter with arbitrary recorded decisions, expectations in 50 digits."""
    lines = [_header("w23", epsilon="1", delta="1e-6")]
    expected, v = [], mpmath.mpf(0)
    with mpmath.workdps(50):
        c = 2 * mpmath.log(mpmath.mpf(10) ** 6)
        for eps, admit in requests:
            after = v + mpmath.mpf(eps) ** 2
            fits = mpmath.sqrt(c * after) + after / 2 <= 1
            lines.append(_line(epsilon=eps, decision="continue" if admit else "halt"))
            if admit:
                expected.append("agrees" if fits else "unsafe")
                v = after
            else:
                expected.append("conservative" if fits else "agrees")
    assert [x.verdict for x in certify_text("\n".join(lines)).verdicts] == expected


def test_terminal_mode_makes_any_admission_after_a_refusal_unsafe() -> None:
    lines = [_header("basic", mode="terminal", epsilon="1"),
             _line(epsilon="0.9", decision="continue"),
             _line(epsilon="0.5", decision="halt"),
             _line(epsilon="0.05", decision="continue")]  # fits, but the rule has halted
    assert [v.verdict for v in certify_text("\n".join(lines)).verdicts] == [
        "agrees", "agrees", "unsafe"]
    lines[0] = _header("basic", epsilon="1")
    assert [v.verdict for v in certify_text("\n".join(lines)).verdicts] == [
        "agrees", "agrees", "agrees"]


# -- reported numbers ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spent", "remaining", "verdicts"),
    [
        ("0.3", "0.7", ["agrees", "agrees"]),                       # exact
        (repr(0.1 + 0.2), repr(1 - (0.1 + 0.2)), ["agrees", "agrees"]),  # float rounding
        ("0.2999999", None, ["unsafe"]),                            # less loss than spent
        ("0.35", None, ["conservative"]),                           # more loss: safe
        (None, "0.7000001", ["unsafe"]),                            # more budget than left
        (None, "0.65", ["conservative"]),                           # less budget: safe
    ],
)
def test_reported_spent_and_remaining_are_judged_against_exact_sums(
        spent: str | None, remaining: str | None, verdicts: list[str]) -> None:
    lines = [_header("basic", epsilon="1"), _line(epsilon="0.1", decision="continue"),
             _line(epsilon="0.2", decision="continue", spent=spent, remaining=remaining)]
    findings = certify_text("\n".join(lines)).verdicts[1].findings
    assert [f.verdict for f in findings if f.field != "decision"] == verdicts
    unused = [f.unused for f in findings if f.verdict == "conservative"]
    assert unused in ([], [pytest.approx(0.05)])


def test_the_r23_remaining_budget_is_compared_with_its_enclosure() -> None:
    with mpmath.workdps(50):  # epsilon - (R + 2 sqrt(R log(1/delta''))) at R = 0.01
        r = mpmath.mpf("0.01")
        left = 1 - (r + 2 * mpmath.sqrt(r * mpmath.log(mpmath.mpf(10) ** 6)))
    header = _header("zcdp", epsilon="1", delta="1e-6")
    for reported, verdict in ((left, "agrees"), (left * (1 + mpmath.mpf("1e-9")), "unsafe"),
                              (left * (1 - mpmath.mpf("1e-9")), "conservative")):
        text = header + "\n" + _line("zcdp", rho="0.01", remaining=mpmath.nstr(reported, 30))
        assert certify_text(text).verdicts[0].findings[-1].verdict == verdict


def test_an_accumulator_reading_below_the_sum_is_unsafe() -> None:
    header = json.dumps({"transcript": 1, "odometer": "zcdp-sum"})
    rows = [_line("zcdp", rho="0.1", reading="0.1"), _line("zcdp", rho="0.2", reading="0.3"),
            _line("zcdp", rho="0.2", reading="0.49")]
    assert [v.verdict for v in certify_text("\n".join([header, *rows])).verdicts] == [
        "agrees", "agrees", "unsafe"]


def test_a_straddling_check_is_undecided_not_unsafe() -> None:
    """A budget equal to the lower end of the certified enclosure of the W23 bound at
    V = 0.03: the check can neither admit nor refuse for certain."""
    budget = exact_lower(W23Bound(Fraction(1, 10**6)).ball(Fraction(3, 100)))
    text = "\n".join([
        json.dumps({"transcript": 1, "rule": "w23",
                    "parameters": {"epsilon": _decimal(budget), "delta": "1e-6"}}),
        _line(epsilon="0.1", decision="continue"), _line(epsilon="0.1", decision="continue"),
        _line(epsilon="0.1", decision="continue")])
    cert = certify_text(text)
    assert [v.verdict for v in cert.verdicts] == ["agrees", "agrees", "undecided"]
    assert cert.exit_code == 0


def _decimal(x: Fraction) -> str:
    """The exact decimal of a dyadic rational."""
    with localcontext() as ctx:
        ctx.prec = 400
        text = format(Decimal(x.numerator) / Decimal(x.denominator), "f")
    assert Fraction(text) == x
    return text


# -- determinism and bad input ------------------------------------------------------------


def test_the_certificate_is_deterministic_and_a_tampered_one_fails() -> None:
    text = (EXAMPLES / "w23-one-unsafe.jsonl").read_text()
    first, second = certify_text(text).to_json(), certify_text(text).to_json()
    assert first == second
    assert check_certificate(first, text) == []
    tampered = first.replace('"verdict": "unsafe"', '"verdict": "agrees"', 1)
    assert check_certificate(tampered, text)
    assert check_certificate(first, text.replace('"continue"', '"halt"', 1))


@pytest.mark.parametrize(
    ("content", "words"),
    [
        ("", ("no header",)),
        (_line(epsilon="0.1"), ("line 1", "transcript")),
        (json.dumps({"transcript": 2, "rule": "w23"}), ("line 1", "version")),
        (_header("w23", epsilon="1") + "\n", ("line 1", "delta")),
        (_header("w23", epsilon="1", delta="1e-6") + "\n" + _line(epsilon="0.1",
                                                               decision="maybe"),
         ("line 2", "decision")),
        (_header("w23", epsilon="1", delta="1e-6") + "\n" + _line("gdp", mu="0.1"),
         ("line 2", "kind")),
        (_header("w23", epsilon="1", delta="1e-6") + "\n" + _line(epsilon="0.1",
                                                               colour="red"),
         ("line 2", "colour")),
        (_header("basic", epsilon="1") + "\n" + _line(epsilon="0.1", child="a"),
         ("line 2", "child")),
    ],
)
def test_bad_input_is_one_line_naming_the_line_and_field(
        content: str, words: tuple[str, ...], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text(content)
    code, _, err = _cli(["certify", str(path)], capsys)
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err
    for word in words:
        assert word in err, (word, err)


def test_the_report_and_plot_are_written(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("matplotlib")
    report, picture = tmp_path / "r.md", tmp_path / "p.png"
    code, _, _ = _cli(["certify", str(EXAMPLES / "w23-one-unsafe.jsonl"), "--report",
                       str(report), "--plot", str(picture)], capsys)
    assert code == 1 and picture.stat().st_size > 1000
    text = report.read_text()
    assert "unsafe lines: 5" in text and "| 5 | q4 | unsafe |" in text


def test_the_certificate_carries_the_sha256_of_the_transcript_bytes(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = (EXAMPLES / "w23-truthful.jsonl").read_bytes().replace(b"\n", b"\r\n")
    path, out = tmp_path / "crlf.jsonl", tmp_path / "c.json"
    path.write_bytes(data)
    assert _cli(["certify", str(path), "--json", str(out)], capsys)[0] == 0
    assert json.loads(out.read_text())["transcript_sha256"] == hashlib.sha256(data).hexdigest()
