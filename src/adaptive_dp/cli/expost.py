"""``adaptive-dp expost``: ex-post bounds of Brownian noise reduction and the R23 filters.

* ``expost bound --t-stop T [--t-stop T2 ...] --delta D``: the ex-post epsilon of BMs
  stopped at the given time values (R23-Thm5 with a normal-mixture or stitched boundary
  fixed in advance; ``--form w22``: the single-BM W22-Thm3.6 form).
* ``expost filter --epsilon E --delta D [--delta-slack D2] [--rule unified]``: replay
  interchange lines (docs/design.md; ``zcdp`` and ``bm`` kinds, and what implies zCDP, for
  ``unified``; ``bm`` for ``brownian``; ``expost``/``pure``/``pdp`` for ``expost``) through
  R23-Thm6, R23-Lem6.2 or R23-Lem5.2, one decision per line, stopping at the first HALT
  (terminal mode).
"""

from __future__ import annotations

import argparse
import json
import sys

from adaptive_dp.cli import UsageError
from adaptive_dp.cli._replay import Record, replay
from adaptive_dp.cli.filter import decision_record
from adaptive_dp.evalues.boundaries import (
    Boundary,
    NormalMixtureBoundary,
    StitchedBoundary,
    VilleBoundary,
)
from adaptive_dp.evalues.expost import brownian_expost, single_bm_expost
from adaptive_dp.filters.base import Decision, Rule
from adaptive_dp.filters.brownian import BrownianFilter, UnifiedFilter, smallest_time_value
from adaptive_dp.filters.expost import ExPostFilter
from adaptive_dp.guarantees.spends import Spend
from adaptive_dp.numerics import exact_positive, round_up, short_exact

NAME = "expost"
HELP = "ex-post bounds of Brownian noise reduction; R23 ex-post, BM and unified filters"

__all__ = ["HELP", "NAME", "configure", "run"]


def configure(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION", parser_class=type(parser))
    bound = sub.add_parser("bound", help="ex-post epsilon of BMs stopped at given time values")
    bound.add_argument("--t-stop", action="append", required=True,
                       help="time value where a BM stopped (repeat for chained BMs)")
    bound.add_argument("--t-min", action="append",
                       help="smallest time value of each BM's grid (gives max_epsilon)")
    bound.add_argument("--sensitivity", action="append",
                       help="declared l2 sensitivity of each BM (default 1)")
    bound.add_argument("--delta", required=True, help="ex-post delta (R23 delta)")
    bound.add_argument("--form", choices=("r23", "w22"), default="r23",
                       help="r23: R23-Thm5 (default); w22: single BM, W22-Thm3.6")
    bound.add_argument("--boundary", choices=("mixture", "stitched", "linear"),
                       default="mixture",
                       help="time-uniform boundary, fixed in advance (stitched: r23 form "
                       "only; linear: w22 form only)")
    bound.add_argument("--linear-slope", default="1",
                       help="linear boundary a t + log(1/delta)/(2a): slope a > 0 (w22)")
    bound.add_argument("--mixture-rho", default="1",
                       help="normal-mixture parameter rho > 0, fixed in advance (default 1)")
    bound.add_argument("--stitch-v-min", default="1",
                       help="stitching: smallest variance m of the first epoch (default 1)")
    bound.add_argument("--stitch-eta", default="2", help="stitching: epoch ratio eta > 1")
    bound.add_argument("--json", action="store_true", help="JSON to standard output")

    filt = sub.add_parser("filter", help="replay JSON lines through an R23 filter")
    filt.add_argument("--rule", choices=("unified", "brownian", "expost"), default="unified",
                      help="unified: R23-Thm6 (zcdp and bm lines; default); brownian: "
                      "R23-Lem6.2 (bm lines); expost: R23-Lem5.2 (expost lines)")
    filt.add_argument("--epsilon", required=True, help="epsilon budget")
    filt.add_argument("--delta", required=True, help="total target delta")
    filt.add_argument("--delta-slack",
                      help="the conversion part of --delta: delta'' in R23 (unified; "
                      "default: all of --delta)")
    filt.add_argument("--sensitivity", default="1",
                      help="sensitivity for the offered smallest time value (default 1)")
    filt.add_argument("--json", action="store_true", help="JSON lines to standard output")
    filt.add_argument("file", nargs="?", help="JSON-lines file (default: standard input)")


def _boundary(args: argparse.Namespace) -> Boundary:
    if args.boundary == "mixture":
        return NormalMixtureBoundary(args.mixture_rho, delta=args.delta)
    if args.boundary == "linear":
        if args.form != "w22":
            raise UsageError("--boundary linear is for --form w22")
        return VilleBoundary(2 * exact_positive(args.linear_slope, "linear_slope"),
                             delta=args.delta)
    if args.form == "w22":
        raise UsageError("--boundary stitched is for --form r23")
    return StitchedBoundary(args.stitch_v_min, delta=args.delta, eta=args.stitch_eta)


def _bound(args: argparse.Namespace) -> int:
    n = len(args.t_stop)
    sens = args.sensitivity or ["1"] * n
    if len(sens) != n:
        raise UsageError("give --sensitivity once per --t-stop (or never)")
    if args.t_min is not None and len(args.t_min) != n:
        raise UsageError("give --t-min once per --t-stop (or never)")
    if args.form == "w22":
        if n != 1:
            raise UsageError("--form w22 is the single-BM bound: give one --t-stop")
        result = single_bm_expost(sens[0], args.t_stop[0], _boundary(args), t_grid=args.t_min)
        spec = "W22-Thm3.6"
    else:
        result = brownian_expost(sens, args.t_stop, _boundary(args), t_mins=args.t_min)
        spec = "R23-Thm5"
    record = {
        "epsilon": round_up(result.epsilon),
        "delta": round_up(result.delta),
        "max_epsilon": round_up(result.max_epsilon),
        "spec": spec,
    }
    if args.json:
        sys.stdout.write(json.dumps(record) + "\n")
    else:
        sys.stdout.write(
            f"epsilon={record['epsilon']!r}\tdelta={short_exact(result.delta)}"
            f"\tmax_epsilon={record['max_epsilon']!r}\t({spec})\n"
        )
    return 0


def _text_fields(record: Record) -> list[str]:
    """``key=value`` fields of a record, a nested record as ``key.sub=value``."""
    out: list[str] = []
    for key, value in record.items():
        if isinstance(value, dict):
            out.extend(f"{key}.{sub}={_plain(v)}" for sub, v in value.items())
        else:
            out.append(f"{key}={_plain(value)}")
    return out


def _plain(value: object) -> str:
    """A field as text: floats in shortest form, names bare, None as '-'."""
    return "-" if value is None else repr(value) if isinstance(value, float) else str(value)


def _rule(args: argparse.Namespace) -> Rule:
    if args.rule == "expost":
        return ExPostFilter(args.epsilon, delta=args.delta)
    if args.rule == "brownian":
        return BrownianFilter(args.epsilon, delta=args.delta)
    return UnifiedFilter(args.epsilon, delta=args.delta, delta_slack=args.delta_slack)


def _filter(args: argparse.Namespace) -> int:
    rule = _rule(args)
    state = rule.start(terminal=True)

    def step(spend: Spend) -> tuple[Record, bool]:
        nonlocal state
        decision, state = state.spend(spend)
        record = decision_record(rule, state, decision)
        spent = record["spent"]
        assert isinstance(spent, dict)
        record["spent"] = {k: v for k, v in spent.items() if k in ("epsilon", "delta")}
        if isinstance(rule, UnifiedFilter):
            record["t_min_next"] = (
                smallest_time_value(state, args.sensitivity)
                if decision is Decision.CONTINUE else None
            )
        return record, decision is Decision.HALT

    def emit(index: int, record: Record) -> None:
        line = {"index": index, **record}
        if args.json:
            sys.stdout.write(json.dumps(line) + "\n")
        else:
            sys.stdout.write("\t".join(_text_fields(line)) + "\n")

    try:
        handle = sys.stdin if args.file is None else open(args.file, encoding="utf-8")  # noqa: SIM115
    except OSError as error:
        raise UsageError(f"cannot read {args.file}: {error.strerror}") from None
    try:
        replay(handle, rule, f"rule {args.rule!r}", step, emit)
    finally:
        if handle is not sys.stdin:
            handle.close()
    return 0


def run(args: argparse.Namespace) -> int:
    if args.action == "bound":
        return _bound(args)
    if args.action == "filter":
        return _filter(args)
    raise UsageError("expost needs an action: bound or filter")
