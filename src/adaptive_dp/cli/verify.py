"""``adaptive-dp verify``: run the registered claims and their negative controls.

Prints a table (spec id, scenario, quantity, samples per order of the neighbouring
pair, estimate and lower confidence bound of the decisive order, claimed value, the
smallest violation the test detects, the exact worst case as a fraction of the claim
when some claim sets one, verdict), the verdict rule in a line under it, and the twins
with caught / NOT CAUGHT, each table at most 100 columns wide (long cells abbreviated;
the JSON has them whole); a progress bar on standard error when it is a terminal. The
JSON adds per test ``detectable_ratio`` (null for max-loss claims, which give
``detectable_exceedance`` and ``delta_min``), ``slack`` (estimate and upper bound over
the claimed value) and ``exact_worst`` (value and fraction of the claimed value, or
null). Exit status 1 on any violated claim or uncaught twin, and on weak claims with
``--strict``; 0 otherwise.

``--workers N`` shards the claims' path batches over N local processes (a Dask
``LocalCluster`` with the ``dask`` extra, else a process pool), ``--scheduler ADDRESS``
over an existing Dask cluster; the JSON is the same as with one worker, timings aside
(docs/design.md, random seeds).
"""

from __future__ import annotations

import argparse
import json
import math
from typing import Any

from adaptive_dp.cli import UsageError
from adaptive_dp.cli._progress import progress
from adaptive_dp.verify.judge.distributed import dask_available
from adaptive_dp.verify.judge.estimators import Quantity
from adaptive_dp.verify.judge.runner import ClaimResult, TestResult, run_claims, select
from adaptive_dp.verify.judge.verdicts import EVALUE_TARGET, TARGETS, Verdict
from adaptive_dp.verify.registry import REGISTRY, load

NAME = "verify"
HELP = "Check every registered privacy claim statistically, with negative controls."


def configure(parser: argparse.ArgumentParser) -> None:
    profile = parser.add_mutually_exclusive_group()
    profile.add_argument("--quick", dest="profile", action="store_const", const="quick",
                         help="quick profile: claimed deltas 0.02 to 0.2 (default)")
    profile.add_argument("--full", dest="profile", action="store_const", const="full",
                         help="full profile: claimed deltas 1e-3 (slow)")
    parser.set_defaults(profile="quick")
    parser.add_argument("--strict", action="store_true", help="exit 1 on weak claims too")
    parser.add_argument("--only", nargs="+", metavar="ID",
                        help="claim ids, spec ids or id prefixes to run")
    parser.add_argument("--json", nargs="?", const="-", metavar="FILE",
                        help="JSON to standard output, or to FILE")
    parser.add_argument("--seed", type=int, default=0, help="seed (default 0)")
    parser.add_argument("--workers", type=int, default=1,
                        help="local processes to shard the path batches across: a Dask "
                             "LocalCluster with the dask extra, else a process pool "
                             "(default 1: this process); results do not depend on it")
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help="run the batches on the Dask cluster at ADDRESS "
                             "(needs the dask extra; --workers is ignored)")
    parser.add_argument("--list", action="store_true", help="list the claims and exit")


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
        "verdict": result.verdict.value, "scenario": result.note, "error": result.error,
    }


def _json(results: list[ClaimResult], profile: str, seed: int, code: int) -> dict[str, Any]:
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


def _report(results: list[ClaimResult], profile: str) -> str:
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


def run(args: argparse.Namespace) -> int:
    if args.workers < 1:
        raise UsageError(f"--workers={args.workers} is not allowed: expected at least 1")
    try:
        ids = select(REGISTRY, args.only)
    except KeyError as error:
        raise UsageError(f"--only {error.args[0]!r}: no such claim (see --list)") from None
    if args.list:
        for cid in ids:
            claim = REGISTRY[cid]
            twins = ", ".join(t.name for t in claim.twins) or "-"
            print(f"{cid}  [{claim.quantity.value}]  twins: {twins}  {claim.summary}")
        return 0
    bar = progress(len(ids), "claim", quiet=args.json == "-")

    def tick(result: ClaimResult) -> None:
        bar.set_postfix_str(result.claim_id, refresh=False)
        bar.update(1)

    if args.scheduler is not None and not dask_available():
        raise UsageError("--scheduler needs Dask: pip install 'adaptive-dp[dask]'")
    try:
        results = run_claims(load, ids, args.profile, args.seed, args.workers, tick,
                             scheduler=args.scheduler)
    except ConnectionError as error:
        if args.scheduler is None:
            raise
        raise UsageError(f"--scheduler {args.scheduler!r}: {error}") from None
    finally:
        bar.close()
    bad = any(r.verdict in (Verdict.VIOLATED, Verdict.ERROR) or not all(t.caught for t in r.twins)
              for r in results)
    weak = any(r.verdict is Verdict.WEAK for r in results)
    code = 1 if bad or (args.strict and weak) else 0
    if args.json == "-":
        print(json.dumps(_json(results, args.profile, args.seed, code), indent=2,
                         allow_nan=False))
        return code
    print(_report(results, args.profile))
    if args.json is not None:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump(_json(results, args.profile, args.seed, code), handle, indent=2,
                      allow_nan=False)
            handle.write("\n")
    return code
