"""Unit tests of the proof parser, the sandbox and the mutator (docs/design.md, proofs)."""

from __future__ import annotations

import textwrap

import pytest

from adaptive_dp.catalogue.proofs import (
    ProofFormatError,
    ProofNotFoundError,
    Step,
    all_proofs,
    evaluate_check,
    load_proof,
    mutants,
    mutation_report,
    parse_proof,
    proof_ids,
    run_check,
    trivial_reason,
)


def _proof(*steps: str) -> str:
    header = textwrap.dedent(
        """\
        # TEST-Lem1: a test lemma

        ## Statement

        Something holds.

        ## Hypotheses

        None.

        ## Proof

        """
    )
    return header + "\n".join(textwrap.dedent(step) for step in steps)


def _step(code: str, kind: str = "algebra") -> Step:
    block = textwrap.indent(textwrap.dedent(code).strip("\n"), "   ")
    text = _proof(f"1. [{kind}] a step (uses: A-1, B-2)\n\n   ```python\n{block}\n   ```\n")
    return parse_proof(text).steps[0]


def test_parse_structure() -> None:
    text = _proof(
        """\
        1. [argument] first a prose step,
           continued on a second line (uses: R23-Def2.1)

        2. [numeric] then a check (uses: R23-Lem2.2, EXT-CKS20)

           ```python
           from mpmath import mp

           def check() -> bool:
               return mp.mpf(2) + 2 == 4
           ```
        """
    )
    proof = parse_proof(text, expected_id="TEST-Lem1")
    assert proof.id == "TEST-Lem1"
    assert proof.title == "a test lemma"
    assert proof.statement == "Something holds."
    assert [step.kind for step in proof.steps] == ["argument", "numeric"]
    assert proof.steps[0].text.endswith("(uses: R23-Def2.1)")
    assert "continued on a second line" in proof.steps[0].text
    assert proof.uses == ("R23-Def2.1", "R23-Lem2.2", "EXT-CKS20")
    assert proof.steps[1].code is not None and proof.steps[1].code.startswith("from mpmath")
    assert proof.checked_steps == (proof.steps[1],)
    assert proof.checked_share == 0.5
    assert run_check(proof.steps[1])


@pytest.mark.parametrize(
    "text",
    [
        "no title\n",
        "# X-1: t\n## Statement\ns\n## Proof\n1. [argument] a\n",
        "# X-1: t\n## Statement\ns\n## Hypotheses\nh\n## Proof\n",
        "# X-1: t\n## Statement\ns\n## Hypotheses\nh\n## Proof\n2. [argument] a\n",
        "# X-1: t\n## Statement\ns\n## Hypotheses\nh\n## Proof\n1. [guess] a\n",
        "# X-1: t\n## Statement\ns\n## Hypotheses\nh\n## Proof\n1. [algebra] no code\n",
        "# X-1: t\n## Statement\ns\n## Hypotheses\nh\n## Proof\n1. [argument] a\n```python\n"
        "def check():\n    return 1 == 1\n```\n",
        "# X-1: t\n## Statement\ns\n## Hypotheses\nh\n## Proof\n1. [algebra] a\n```python\n"
        "def check():\n    return 1 == 1\n",
    ],
)
def test_malformed_files_are_rejected(text: str) -> None:
    with pytest.raises(ProofFormatError):
        parse_proof(text)


def test_title_must_match_file_id() -> None:
    with pytest.raises(ProofFormatError):
        parse_proof(_proof("1. [argument] a\n"), expected_id="OTHER-Lem1")


@pytest.mark.parametrize(
    "code",
    [
        "import os\n\ndef check():\n    return os.sep == '/'\n",
        "from math import pi\n\ndef check():\n    return pi > 3\n",
        "def check():\n    return eval('1') == 1\n",
        "def check():\n    return ().__class__ is tuple\n",
        "X = 1\n\ndef check():\n    return X == 1\n",
        "def check():\n    if True:\n        return 1 == 1\n    return 2 == 2\n",
        "def check(x):\n    return x == 1\n",
        "import sympy as sp\n\ndef check():\n    return sp.sympify('1') == 1\n",
        "import sympy as sp\n\ndef check():\n    return sp.S('1') == 1\n",
        "import adaptive_dp\n\ndef check():\n    return adaptive_dp is not None\n",
        "def check():\n    x = 1\n",
    ],
)
def test_sandbox_rejects_forbidden_code(code: str) -> None:
    step = _step(code)
    with pytest.raises(ProofFormatError):
        run_check(step)


def test_dunder_names_are_rejected() -> None:
    step = _step("def check():\n    return __builtins__ == 0\n")
    with pytest.raises(ProofFormatError):
        run_check(step)


def test_failing_and_raising_checks_fail() -> None:
    code = "import sympy as sp\n\ndef check():\n    return sp.Integer(2) == 3\n"
    assert not run_check(_step(code))
    result = evaluate_check(_step("def check():\n    return 1 / 0 == 1\n"))
    assert not result.passed and "ZeroDivisionError" in result.detail


def test_mpmath_precision_is_restored() -> None:
    from mpmath import mp

    before = mp.prec
    code = "from mpmath import mp\n\ndef check():\n    mp.dps = 80\n    return mp.dps == 80\n"
    assert run_check(_step(code))
    assert mp.prec == before


def test_timeout_counts_as_failure() -> None:
    code = "def check():\n    x = 0\n    while x >= 0:\n        x = x + 1\n    return x == 1\n"
    step = _step(code)
    result = evaluate_check(step, timeout=0.2)
    assert not result.passed and "timed out" in result.detail


@pytest.mark.parametrize(
    ("code", "reason"),
    [
        ("def check():\n    return True\n", "constant"),
        ("import sympy as sp\n\ndef check():\n    x = sp.Symbol('x')\n    return x**2 == x**2\n",
         "itself"),
        ("import sympy as sp\n\ndef check():\n    x = sp.Symbol('x')\n"
         "    return sp.simplify(x - x) == 0\n", "itself"),
        ("def check():\n    ok = True\n    return ok\n", "no mutation site"),
    ],
)
def test_restatements_are_detected(code: str, reason: str) -> None:
    step = _step(code)
    found = trivial_reason(step)
    assert found is not None and reason in found
    assert not step.is_checked


def test_mutants_cover_literals_operators_and_comparisons() -> None:
    step = _step(
        """\
        import sympy as sp

        def check():
            x = sp.Symbol("x")
            helper = 2 * x + 3
            unused = 7 * x
            return sp.expand(helper**2 - (4 * x**2 + 12 * x + 9)) == 0
        """
    )
    descriptions = [mutant.description for mutant in mutants(step)]
    # helper: 2, *, +, 3; relation: **, 2, -, 4, *, **, 2, +, 12, *, +, 9, 0, ==
    assert len(descriptions) == 18
    assert not any("literal 7" in text for text in descriptions)  # not named by the relation
    assert sum("negated" in text for text in descriptions) == 1
    report = mutation_report(step)
    assert report.total == 18 and not report.survivors and report.killed == 18


def test_tolerances_keywords_and_sample_points_are_not_mutated() -> None:
    step = _step(
        """\
        from mpmath import mp

        def check():
            tol_rel = mp.mpf(10) ** -20
            values = [mp.sqrt(v) ** 2 - v for v in (2, 3, 5)]
            bound = mp.mpf(0.5)
            return abs(mp.fsum(values)) < 1e-20 and bound + tol_rel < mp.quad(
                lambda t: t + 1, [0, 1], maxdegree=6
            )
        """
    )
    descriptions = [mutant.description for mutant in mutants(step)]
    assert not any("1e-20" in text or "literal 10" in text or "literal 6" in text
                   for text in descriptions)
    assert not any(f"literal {v} " in text for v in (3, 5) for text in descriptions)


def test_a_weak_check_has_surviving_mutants() -> None:
    step = _step(
        """\
        from mpmath import mp

        def check():
            value = mp.sqrt(2)
            return value < 10
        """,
        kind="numeric",
    )
    report = mutation_report(step)
    assert report.survivors  # 10 -> 11 and sqrt(2) -> sqrt(3) both still hold


def test_equality_check_kills_every_mutant() -> None:
    step = _step(
        """\
        import sympy as sp

        def check():
            a, b = sp.symbols("a b")
            return sp.expand((a + b) ** 2 - (a**2 + 2 * a * b + b**2)) == 0
        """
    )
    assert mutation_report(step).survivors == ()


def test_shipped_proofs_load() -> None:
    ids = proof_ids()
    assert "EXT-GaussianRDP" in ids
    proofs = all_proofs()
    assert tuple(proof.id for proof in proofs) == ids
    proof = load_proof("EXT-GaussianRDP")
    assert proof.statement and proof.hypotheses
    with pytest.raises(ProofNotFoundError):
        load_proof("NOPE-Thm0")
    with pytest.raises(ProofNotFoundError):
        load_proof("README")


def test_loop_data_is_followed_but_headers_are_not_mutated() -> None:
    step = _step(
        """\
        import sympy as sp

        def check():
            table = [sp.Rational("1/4") * 3, sp.Rational("1/4")]
            total = sum(p for p in table)
            count = sum(1 for k in range(5))
            return total == 1 and count == 5
        """
    )
    descriptions = [mutant.description for mutant in mutants(step)]
    assert any("literal 3" in text for text in descriptions)  # reached through 'table'
    assert not any("literal 5 ->" in text and "line 6" in text for text in descriptions)
    assert mutation_report(step).survivors == ()


def test_an_example_step_runs_but_is_not_counted() -> None:
    text = _proof(
        """\
        1. [example] a worked instance (uses: R23-Lem2.2)

           ```python
           from mpmath import mp

           def check() -> bool:
               return mp.mpf(2) + 2 == 4
           ```

        2. [example] an instance without its code
        """
    )
    with pytest.raises(ProofFormatError, match="exactly one python block"):
        parse_proof(text)
    proof = parse_proof(text.split("2. [example]")[0])
    (step,) = proof.steps
    assert step.kind == "example" and not step.is_checked
    assert proof.checked_steps == () and proof.checked_share == 0.0
    assert run_check(step)


def test_thresholds_written_as_strings_are_mutated() -> None:
    step = _step(
        """\
        from mpmath import mp
        import sympy as sp

        def check() -> bool:
            x = mp.exp(mp.mpf("0.5"))
            return x - mp.mpf("1") <= mp.mpf("0.65") and sp.Rational("7/2") > 3
        """
    )
    sources = [mutant.source for mutant in mutants(step)]
    assert any("mp.mpf('2')" in source for source in sources)
    assert any("mp.mpf('1.65')" in source for source in sources)
    assert any("sp.Rational('9/2')" in source for source in sources)
    # a string inside another call's argument is a sample point: never mutated
    assert all("mp.exp(mp.mpf('0.5'))" in source for source in sources)


def test_a_loose_threshold_survives() -> None:
    step = _step(
        """\
        from mpmath import mp

        def check() -> bool:
            return mp.exp(mp.mpf("0.5")) <= mp.mpf("10")
        """
    )
    survivors = [mutant.description for mutant in mutation_report(step).survivors]
    assert survivors == ["line 4: threshold '10' -> +1"]


def test_a_check_that_swallows_exceptions_still_times_out() -> None:
    """A looping mutant inside library code that catches ``Exception`` (sympy's comparisons
    do) once hung the mutation test: the time limit is not an ``Exception`` and repeats."""
    step = _step(
        """\
        def check() -> bool:
            def down(v):
                for _ in range(1000):  # the alarm lands here, inside the try, nearly always
                    v = v + 0
                return v - 1

            x = 0
            while x < 1:
                try:
                    x = down(x)
                except Exception:
                    x = 0
            return x == 1
        """
    )
    result = evaluate_check(step, timeout=0.3)
    assert not result.passed and "timed out" in result.detail
