"""``adaptive-dp filter RULE``: replay JSON-lines spends through a privacy filter.

Reads interchange lines (docs/design.md) on standard input, prints one decision per line
and stops at the first HALT (terminal mode: the papers' "halt forever").
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager

from adaptive_dp.cli import UsageError
from adaptive_dp.cli._replay import Record, output, replay
from adaptive_dp.errors import MissingParameterError, ParameterError, ParameterTypeError
from adaptive_dp.filters.base import Decision, FilterState, Rule
from adaptive_dp.filters.named import (
    ACCUMULATORS,
    ODOMETERS,
    RULES,
    Books,
    Named,
    build_odometer,
    build_rule,
)
from adaptive_dp.guarantees.definitions import upper_fields
from adaptive_dp.guarantees.spends import Spend

NAME = "filter"
HELP = "replay JSON-lines spends through a privacy filter; one decision per line"

__all__ = [
    "HELP",
    "NAME",
    "books_from_flags",
    "configure",
    "decision_record",
    "rule_from_flags",
    "run",
]


def rule_from_flags(args: argparse.Namespace) -> Rule:
    """The rule named ``args.rule`` from the flags that carry its parameters."""
    params = _given(RULES[args.rule], args)
    with _flag_errors(params):
        return build_rule(args.rule, params)


def books_from_flags(args: argparse.Namespace) -> Books:
    """The odometer or accumulator named ``args.kind`` from the flags."""
    params = _given({**ODOMETERS, **ACCUMULATORS}[args.kind], args)
    with _flag_errors(params):
        return build_odometer(args.kind, params)


def _given(named: Named, args: argparse.Namespace) -> dict[str, str]:
    return {n: getattr(args, n) for n in named.parameters if getattr(args, n, None) is not None}


@contextmanager
def _flag_errors(params: dict[str, str]) -> Iterator[None]:
    """A missing or bad parameter as a usage error naming its flag."""
    try:
        yield
    except MissingParameterError as error:
        raise UsageError(f"{error.what} needs --{_flag(error.name)}") from None
    except (ParameterError, ParameterTypeError) as error:
        if error.name not in params:
            raise
        raise UsageError(f"--{_flag(error.name)} {params[error.name]}: expected "
                         f"{error.allowed}") from None


def _flag(name: str) -> str:
    return name.replace("_", "-")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("rule", choices=sorted(RULES), help="the continuation rule")
    parser.add_argument("--epsilon", help="epsilon budget (RDP: at --alpha)")
    parser.add_argument("--delta", help="total target delta")
    parser.add_argument(
        "--delta-slack",
        help="the concentration/conversion part of --delta: delta' in W23, delta'' in "
        "R23 (default: all of --delta)",
    )
    parser.add_argument("--rho", help="zCDP budget rho (zcdp-sum)")
    parser.add_argument("--alpha", help="Renyi order (rdp)")
    parser.add_argument("--mu", help="GDP budget mu (gdp)")
    parser.add_argument(
        "--h-log",
        choices=("1/delta", "2/delta"),
        default="1/delta",
        help="RRUV16 mixture parameter H = eps_g^2/(28.04 log(1/delta_g)) (default) or "
        "with log(2/delta_g)",
    )
    parser.add_argument(
        "--json",
        nargs="?",
        const="-",
        metavar="FILE",
        help="JSON lines to standard output, or to FILE",
    )


def decision_record(rule: Rule, state: FilterState, decision: Decision) -> Record:
    """The interchange answer to one line: decision, spent (rounded up), remaining and
    max_next (rounded down), and the rule's spec id."""
    return {
        "decision": decision.value,
        "spent": upper_fields(state.spent()),
        "remaining": state.remaining(),
        "max_next": state.max_next() if decision is Decision.CONTINUE else None,
        "spec": rule.SPEC,
    }


def run(args: argparse.Namespace) -> int:
    rule = rule_from_flags(args)
    state = rule.start(terminal=True)
    with output(args.json) as out:

        def step(spend: Spend) -> tuple[Record, bool]:
            nonlocal state
            decision, state = state.spend(spend)
            return decision_record(rule, state, decision), decision is Decision.HALT

        def emit(index: int, record: Record) -> None:
            if args.json is not None:
                out.write(json.dumps({"index": index, **record}) + "\n")
                return
            spent = record["spent"]
            assert isinstance(spent, dict)
            fields = " ".join(f"{k}={v!r}" for k, v in spent.items())
            out.write(
                f"{index}\t{record['decision']}\t{fields}\tremaining={record['remaining']!r}"
                f"\tmax_next={record['max_next']!r}\n"
            )

        replay(sys.stdin, rule, f"rule {args.rule!r}", step, emit)
    return 0
