"""The ``adaptive-dp`` command: one module per subcommand.

Each subcommand module defines ``NAME``, ``HELP``, ``configure(parser)`` and
``run(args) -> int``; this dispatcher finds them. Usage errors exit 2 with one line
on stderr, never a traceback (docs/design.md, command line).
"""

from __future__ import annotations

import argparse
import importlib
import itertools
import pkgutil
import sys
from collections.abc import Sequence
from typing import NoReturn, Protocol, cast

from adaptive_dp import __version__
from adaptive_dp.errors import (
    AdaptiveDPError,
    NonFiniteResultError,
    ParameterError,
    ParameterTypeError,
)

__all__ = ["Parser", "Subcommand", "UsageError", "build_parser", "main"]


class UsageError(Exception):
    """Raised by a subcommand for bad input: reported on one line, exit 2."""


class Parser(argparse.ArgumentParser):
    """The parser of the command and its subcommands: a usage error is one line on
    stderr and exit status 2."""

    def error(self, message: str) -> NoReturn:
        sys.stderr.write(f"{self.prog}: error: {message}\n")
        raise SystemExit(2)


class Subcommand(Protocol):
    """What a subcommand module provides."""

    NAME: str
    HELP: str

    def configure(self, parser: argparse.ArgumentParser) -> None: ...

    def run(self, args: argparse.Namespace) -> int: ...


def _subcommands() -> list[Subcommand]:
    modules: list[Subcommand] = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        if hasattr(module, "NAME") and hasattr(module, "run"):
            modules.append(cast(Subcommand, module))
    return modules


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser, with every installed subcommand."""
    parser = Parser(
        prog="adaptive-dp",
        description="Reference implementation of adaptive privacy composition.",
    )
    parser.add_argument("--version", action="version", version=f"adaptive-dp {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    for module in _subcommands():
        child = sub.add_parser(module.NAME, help=module.HELP, description=module.HELP)
        module.configure(child)
        child.set_defaults(_run=module.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``adaptive-dp`` console script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    try:
        code: int = args._run(args)
    except (UsageError, AdaptiveDPError) as error:
        given = list(sys.argv[1:] if argv is None else argv)
        sys.stderr.write(f"adaptive-dp {args.command}: error: {_in_flags(error, given)}\n")
        return 2
    except BrokenPipeError:
        return 0
    return code


def _in_flags(error: Exception, argv: list[str]) -> str:
    """The error in the user's vocabulary: a bad library parameter whose flag the user gave
    is named by that flag and the text written after it (``--rho nan: expected a finite
    number``); a certified computation with no finite answer lists the flags given; any
    other error as it is."""
    if isinstance(error, NonFiniteResultError):
        pairs = " ".join(f"{a} {b}" for a, b in itertools.pairwise(argv)
                         if a.startswith("--") and not b.startswith("--"))
        return f"{error} (given {pairs})" if pairs else str(error)
    if isinstance(error, (ParameterError, ParameterTypeError)):
        name = error.name.replace("_", "-")
        given = {t.split("=", 1)[0] for t in argv if t.startswith("--")}
        flags = [f for f in given if f == f"--{name}"] or [
            f for f in given if f.endswith(f"-{name}")]  # --mixture-rho for rho
        if len(flags) == 1:
            flag = flags[0]
            for i, token in enumerate(argv):
                text = (argv[i + 1] if token == flag and i + 1 < len(argv)
                        else token[len(flag) + 1:] if token.startswith(flag + "=") else None)
                if text is not None and _denotes(text, error.value):
                    return f"{flag} {text}: expected {error.allowed}"
    return str(error)


def _denotes(text: str, value: object) -> bool:
    """Whether the flag's text is the value the error is about (not a value derived from
    it, which the library's own message describes better)."""
    if isinstance(value, str):
        return value.strip() == text.strip()
    try:
        a, b = float(text), float(value)  # type: ignore[arg-type]  # checked by the except
    except (TypeError, ValueError, OverflowError):
        return False
    return a == b or (a != a and b != b)
