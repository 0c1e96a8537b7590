"""The report of a verification run: its tables and its JSON (``adaptive-dp verify``).

:func:`report`: the claims table (spec id, scenario, quantity, samples per order of the
neighbouring pair, estimate and lower confidence bound of the decisive order, claimed
value, the smallest violation the test detects, the exact worst case as a fraction of the
claim when some claim sets one, verdict), the verdict rule in a line under it, and the
twins with caught / NOT CAUGHT, each table at most :data:`WIDTH` columns wide (long cells
abbreviated; the JSON has them whole). :func:`to_json`: per test ``detectable_ratio``
(null for max-loss claims, which give ``detectable_exceedance`` and ``delta_min``),
``slack`` (estimate and upper bound over the claimed value) and ``exact_worst`` (value
and fraction of the claimed value, or null); strict JSON (no NaN or infinity).
"""

from __future__ import annotations

import math
from typing import Any

from adaptive_dp.verify.judge.estimators import Quantity
from adaptive_dp.verify.judge.runner import ClaimResult, TestResult
from adaptive_dp.verify.judge.verdicts import EVALUE_TARGET, TARGETS, Verdict

__all__ = ["WIDTH", "report", "to_json"]


def _fmt(value: float) -> str:
    return f"{value:.4g}"


WIDTH = 100
"""The widest line of a table; the widest columns are abbreviated to fit."""


def _cell(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "~"


def _table(rows: list[list[str]], header: list[str], shrink: tuple[int, ...] = ()) -> str:
    """Columns padded to their widest cell; while a line is wider than :data:`WIDTH`, the
    widest column of ``shrink`` loses a character (never below its header's width)."""
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    while sum(widths) + 2 * (len(widths) - 1) > WIDTH:
        narrowable = [i for i in shrink if widths[i] > len(header[i])]
        if not narrowable:
            break
        widths[max(narrowable, key=lambda i: widths[i])] -= 1
    lines = ["  ".join(_cell(h, w).ljust(w) for h, w in zip(header, widths, strict=True))
             .rstrip()]
    lines.append("  ".join("-" * w for w in widths))
    lines.extend("  ".join(_cell(c, w).ljust(w) for c, w in zip(r, widths, strict=True))
                 .rstrip() for r in rows)
    return "\n".join(lines)


def _num(value: float) -> float | None:
    """Strict JSON has no NaN or infinity: those become null."""
    return value if math.isfinite(value) else None


def _optional(value: float | None) -> float | None:
    return None if value is None else _num(value)


def _fraction(value: float | None, claimed: float) -> float | None:
    """``value`` as a fraction of the claimed value (None where either is not finite,
    or the claim is not positive)."""
    if value is None or not math.isfinite(value) or not claimed > 0:
        return None
    return value / claimed


def _test_json(result: TestResult) -> dict[str, Any]:
    worst = result.exact_worst
    return {
        "quantity": result.quantity.value, "samples": result.samples, "order": result.order,
        "estimate": _num(result.estimate), "lower": _num(result.lower),
        "upper": _num(result.upper), "epsilon": _num(result.epsilon),
        "claimed": _num(result.claimed),
        "detectable_ratio": _optional(result.detectable_ratio),
        "detectable_exceedance": _optional(result.detectable_exceedance),
        "delta_min": _optional(result.delta_min),
        "slack": {"estimate": _fraction(result.estimate, result.claimed),
                  "upper": _fraction(result.upper, result.claimed)},
        "exact_worst": None if worst is None else {
            "value": _num(worst), "fraction": _fraction(worst, result.claimed)},
        "verdict": result.verdict.value, "note": result.note, "error": result.error,
    }


def to_json(results: list[ClaimResult], profile: str, seed: int, code: int) -> dict[str, Any]:
    """The run as strict JSON: profile, seed, exit status and every claim with its twins."""
    return {
        "profile": profile, "seed": seed, "exit": code,
        "claims": [
            {"id": r.claim_id, "spec": r.spec_id, "scenario": r.scenario,
             "seconds": round(r.seconds, 3), **_test_json(r.result),
             "twins": [{"name": t.name, "spec": t.spec_id, "defect": t.defect,
                        "caught": t.caught, **_test_json(t.result)} for t in r.twins]}
            for r in results
        ],
    }


_SHORT = {Quantity.HOCKEY_STICK: "hockey"}
"""Quantities abbreviated in the table (the JSON has their full names)."""


def _detects(result: TestResult) -> str:
    """``x1.93`` (detectable ratio, rounded up) or, for max-loss claims, ``p2.1e-3``
    (the detectable exceedance probability)."""
    if result.detectable_exceedance is not None:
        mantissa, exponent = f"{result.detectable_exceedance:.1e}".split("e")
        return f"p{mantissa}e{int(exponent)}"
    ratio = result.detectable_ratio
    if ratio is None or not math.isfinite(ratio):
        return "none"
    return f"x{math.ceil(ratio * 100) / 100:g}" if ratio < 100 else f"x{ratio:.3g}"


def _share(value: float | None, claimed: float) -> str:
    share = _fraction(value, claimed)
    return "-" if share is None else f"{share:.2f}"


def _rule(profile: str, exact: bool) -> list[str]:
    """The verdict rule and the columns it uses, under the claims table."""
    return [f"verdict: violated iff lower > claimed, else holds iff detects <= "
            f"x{TARGETS[profile]:g} (e-value x{EVALUE_TARGET:g}), else weak",
            "detects xR: a true R x claimed is flagged with probability 0.95; max-loss pP: "
            "a loss > eps",
            "of probability P is seen with probability 0.95, and holds iff n >= 14/delta_min",
            "slack (estimate / claimed) is in --json" + (
                "; exact: the exact worst case / claimed" if exact else "")]


def report(results: list[ClaimResult], profile: str) -> str:
    """The claims table, the verdict rule, the twins table, errors and a summary line."""
    exact = any(r.result.exact_worst is not None for r in results)
    rows = [[r.spec_id, r.scenario,
             _SHORT.get(r.result.quantity, r.result.quantity.value), str(r.result.samples),
             _fmt(r.result.estimate), _fmt(r.result.lower), _fmt(r.result.claimed),
             _detects(r.result),
             *([_share(r.result.exact_worst, r.result.claimed)] if exact else []),
             r.verdict.value] for r in results]
    out = [_table(rows, ["spec id", "scenario", "quantity", "samples", "estimate",
                         "lower", "claimed", "detects", *(["exact"] if exact else []),
                         "verdict"], shrink=(0, 1)),
           *_rule(profile, exact)]
    errors = [f"{r.claim_id}: {r.result.error}" for r in results if r.result.error] + [
        f"{r.claim_id} twin {t.name}: {t.result.error}"
        for r in results for t in r.twins if t.result.error]
    twin_rows = [[r.claim_id, t.name, t.defect, _fmt(t.result.estimate), _fmt(t.result.lower),
                  _fmt(t.result.claimed), "caught" if t.caught else "NOT CAUGHT"]
                 for r in results for t in r.twins]
    if twin_rows:
        out.append("")
        out.append(_table(twin_rows, ["claim", "twin", "defect", "estimate", "lower",
                                      "claimed", "twin"], shrink=(0, 1, 2)))
    if errors:
        out.append("")
        out.extend(f"error: {e}" for e in errors)
    held = sum(r.verdict is Verdict.HOLDS for r in results)
    weak = sum(r.verdict is Verdict.WEAK for r in results)
    violated = sum(r.verdict is Verdict.VIOLATED for r in results)
    caught = sum(t.caught for r in results for t in r.twins)
    total = sum(len(r.twins) for r in results)
    out.append("")
    failed = sum(r.verdict is Verdict.ERROR for r in results)
    out.append(f"{len(results)} claims: {held} hold, {weak} weak, {violated} violated, "
               f"{failed} errors; "
               f"twins: {caught} of {total} caught")
    return "\n".join(out)
