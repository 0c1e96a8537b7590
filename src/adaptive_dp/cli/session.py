"""``adaptive-dp session``: a persistent, crash-safe session around a filter, odometer
or accumulator (:mod:`adaptive_dp.sessions`; docs/sessions.md).

``create DB`` makes the store, ``spend DB`` decides requests (each committed to disk
before it is answered; an ``"id"`` makes retries idempotent), ``status DB`` reports the
counts and the hash-chain head, ``export DB`` writes the session as a version-1 budget
transcript for ``adaptive-dp certify``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from typing import Literal

from adaptive_dp.cli import Parser, UsageError
from adaptive_dp.cli.filter import books_from_flags, rule_from_flags
from adaptive_dp.filters.named import ACCUMULATORS, ODOMETERS, RULES
from adaptive_dp.guarantees.histories import NEIGHBOURS
from adaptive_dp.interchange import numbered_lines
from adaptive_dp.sessions import SessionStore, Status
from adaptive_dp.transcript import MODES, Header, header_line

NAME = "session"
HELP = ("a persistent, crash-safe session (sqlite3): create, spend (committed before it "
        "is answered), status, export as a budget transcript")

__all__ = ["HELP", "NAME", "configure", "run"]

_PARAMETERS = (
    ("epsilon", "epsilon budget (RDP: at --alpha)"),
    ("delta", "total target delta"),
    ("delta_slack", "the concentration/conversion part of --delta (default: all of it)"),
    ("rho", "zCDP budget rho (zcdp-sum)"),
    ("alpha", "Renyi order (rdp)"),
    ("mu", "GDP budget mu (gdp)"),
    ("h_log", "RRUV16 mixture parameter: 1/delta (default) or 2/delta"),
    ("mixture_rho", "w23-mixture: the mixture parameter rho"),
    ("mixture_v_star", "w23-mixture: choose rho for this intrinsic time instead"),
    ("sides", "w23-mixture: one (default) or two"),
    ("stitch_eta", "w23-stitched: eta (default 2)"),
    ("stitch_s", "w23-stitched: s (default 1.4)"),
    ("stitch_form", "w23-stitched: poster (default) or exact"),
    ("n", "rruv16: the n fixed in advance (an integer >= 2)"),
)
"""Every parameter a named rule, odometer or accumulator reads, with its flag's help."""


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


class _Intermixed(Parser):
    """A parser taking options between positionals (``spend DB --id ID JSON``)."""

    _inside = False

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        if self._inside:
            return super().parse_known_args(args, namespace)
        self._inside = True
        try:
            return self.parse_known_intermixed_args(args, namespace)
        finally:
            self._inside = False


def configure(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True,
                                    parser_class=_Intermixed)

    create = actions.add_parser(
        "create", help="create a session store for a rule or an odometer",
        description="Create the session store DB (refuses an existing file). The "
        "parameters are written to the transcript header exactly as given and checked "
        "by building the rule first.")
    create.add_argument("db", metavar="DB", help="the session store to create")
    which = create.add_mutually_exclusive_group(required=True)
    which.add_argument("--rule", choices=sorted(RULES), help="a continuation rule (filter)")
    which.add_argument("--odometer", choices=sorted({*ODOMETERS, *ACCUMULATORS}),
                       help="an odometer or accumulator (every request is admitted)")
    for name, text in _PARAMETERS:
        create.add_argument(_flag(name), dest=name, help=text)
    create.add_argument("--mode", choices=MODES, default="refuse-and-continue",
                        help="after a refusal: refuse-and-continue (default) or terminal "
                        "(halt forever)")
    create.add_argument("--neighbours", choices=NEIGHBOURS, default="add-remove",
                        help="the neighbouring relation (default add-remove)")
    create.add_argument("--source", help="free text for the header: which system, which run")
    create.set_defaults(_action=_create)

    spend = actions.add_parser(
        "spend", help="decide requests; each is committed to disk before it is answered",
        description="Decide one interchange request given as JSON, or, without it, one per "
        "line on standard input (each may carry an \"id\" field). Prints one JSON answer "
        "per request: index, id, decision, spent and remaining (rules) or reading "
        "(odometers), replayed (true when the id had already been answered: nothing is "
        "charged). A bad line stops with exit 2 naming it; the lines before it stay "
        "answered and committed.")
    spend.add_argument("db", metavar="DB", help="the session store")
    spend.add_argument("request", metavar="JSON", nargs="?",
                       help='one request, e.g. \'{"kind": "pure", "epsilon": "0.1"}\'')
    spend.add_argument("--id", help="the request id of the JSON argument (idempotent retry)")
    spend.set_defaults(_action=_spend)

    status = actions.add_parser(
        "status", help="counts, current spent/remaining or reading, and the chain head",
        description="Verify the store and report its header, the number of requests and of "
        "admitted ones, the current answer and the hash-chain head (keep a copy of the "
        "head elsewhere to detect a truncated tail).")
    status.add_argument("db", metavar="DB", help="the session store")
    status.add_argument("--json", action="store_true", help="one JSON object")
    status.set_defaults(_action=_status)

    export = actions.add_parser(
        "export", help="write the session as a version-1 budget transcript",
        description="Write the session as a budget transcript (header line, then every "
        "request with its decision, answered numbers as exact text and id), readable by "
        "'adaptive-dp certify'. The count and chain head go to standard error.")
    export.add_argument("db", metavar="DB", help="the session store")
    export.add_argument("--out", metavar="FILE", help="write to FILE (default: stdout)")
    export.set_defaults(_action=_export)


def run(args: argparse.Namespace) -> int:
    action: Callable[[argparse.Namespace], int] = args._action
    return action(args)


def _create(args: argparse.Namespace) -> int:
    books: Literal["rule", "odometer"] = "rule" if args.rule is not None else "odometer"
    name: str = args.rule if args.rule is not None else args.odometer
    named = RULES[name] if books == "rule" else {**ODOMETERS, **ACCUMULATORS}[name]
    given = {n: str(getattr(args, n)) for n, _ in _PARAMETERS if getattr(args, n) is not None}
    for key in given:
        if key not in named.parameters:
            reads = ", ".join(_flag(p) for p in named.parameters) or "no parameters"
            raise UsageError(f"{_flag(key)} is not a parameter of {books} {name!r} "
                             f"(it reads {reads})")
    if books == "rule":
        rule_from_flags(args)
    else:
        books_from_flags(argparse.Namespace(**{**vars(args), "kind": name}))
    header = Header(books, name, given, args.mode, args.neighbours, source=args.source)
    with SessionStore.create(args.db, header) as store:
        head = store.status().head
    sys.stdout.write(f"created {args.db}: {header_line(header)}\nchain head {head}\n")
    return 0


def _spend(args: argparse.Namespace) -> int:
    if args.request is None and args.id is not None:
        raise UsageError("--id goes with a JSON argument; on standard input give each "
                         "request an \"id\" field")
    with SessionStore.open(args.db) as store:
        if args.request is not None:
            answer = store.spend(args.request, args.id)
            sys.stdout.write(json.dumps(answer.record()) + "\n")
            return 0
        for number, text in numbered_lines(sys.stdin):
            if text.strip():
                answer = store.spend(text, line=number)
                sys.stdout.write(json.dumps(answer.record()) + "\n")
                sys.stdout.flush()
    return 0


def _status(args: argparse.Namespace) -> int:
    with SessionStore.open(args.db) as store:
        status = store.status()
    if args.json:
        sys.stdout.write(json.dumps(status.record()) + "\n")
        return 0
    sys.stdout.write(f"{args.db}: {header_line(status.header)}\n")
    sys.stdout.write(f"requests {status.count}, admitted {status.admitted}"
                     f"{', halted' if status.halted else ''}\n")
    sys.stdout.write(_now(status) + "\n")
    sys.stdout.write(f"chain head {status.head}\n")
    return 0


def _now(status: Status) -> str:
    if status.reading is not None:
        reading = status.reading
        if isinstance(reading, dict):
            return "reading " + " ".join(f"{k}={v!r}" for k, v in reading.items())
        return f"reading {reading!r}"
    spent = " ".join(f"{k}={v!r}" for k, v in (status.spent or {}).items())
    return f"spent {spent}; remaining {status.remaining!r}"


def _export(args: argparse.Namespace) -> int:
    with SessionStore.open(args.db) as store:
        if args.out is None:
            status = store.export(sys.stdout)
        else:
            try:
                with open(args.out, "w", encoding="utf-8", newline="\n") as out:
                    status = store.export(out)
            except OSError as error:
                raise UsageError(f"--out {args.out}: {error.strerror}") from None
    sys.stderr.write(f"exported {status.count} requests; chain head {status.head}\n")
    return 0
