"""Fuzzing every command-line entry point (issue 18, item 1).

The argument parser is walked to find every subcommand and flag; Hypothesis draws a
subcommand, flags with hostile values (NaN, infinities, signed zeros, subnormals, 1e-400
and 1e400 as text, huge integers, fractions, garbage) or ordinary ones, and standard input
made of interchange and transcript lines with the same values, malformed or truncated
JSON, unknown kinds and fields. Every run must end with exit 0, 1 or 2 (argparse's own
exit 2 included), never an uncaught exception, within the time limit; an exit-2 run prints
exactly one line on standard error naming the command, and no output shows a Python repr
(``Decimal(``, ``Fraction(``, a traceback).

Commands whose runs are long by design (``verify`` without ``--list``, ``reproduce``,
``audit``, ``figure``, ``proof --mutants``, ``spec --run-checks``) are left out; their
inputs go through the same parsers that are fuzzed here. The default run draws a modest
number of examples; ``-m slow`` draws many more.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import shutil
import signal
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adaptive_dp.cli import build_parser, main

HOSTILE = (
    "nan", "NaN", "-nan", "inf", "-inf", "Infinity", "-0", "0", "-0.0", "4.9e-324",
    "2.2250738585072014e-308", "1e-400", "1e400", "-1e400", "1e308", "1.7976931348623157e308",
    "9" * 400, "-1", "1/0", "2/3", "0x10", "", " ", "abc", "1e", "--", "1_000", "１",
    "0.99999999999999999999", "1", "1.0000000000000002", "-1e-400",
)
ORDINARY = ("0.5", "1", "2", "1e-6", "0.1", "8", "3", "1e-5", "0.01", "100")
SKIP = {("verify",), ("reproduce",), ("figure",), ("audit", "dpsgd"), ("audit", "history"),
        ("audit", "gallery"), ("audit", "sweep")}
SKIP_FLAGS = {"--mutants", "--run-checks", "--workers", "--full", "--quick", "--only",
              "--strict", "--seed"}
PATH_DESTS = {"json", "report", "out", "plot", "db", "file", "transcript", "spends", "check"}
TIME_LIMIT = 60
"""Seconds before a run counts as a hang (generous: the shared CI machine may be loaded)."""
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@dataclass(frozen=True)
class Leaf:
    """One runnable subcommand: its argv prefix and its actions."""

    prefix: tuple[str, ...]
    actions: tuple[argparse.Action, ...]


def _leaves(parser: argparse.ArgumentParser, prefix: tuple[str, ...] = ()) -> Iterator[Leaf]:
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        yield Leaf(prefix, tuple(a for a in parser._actions
                                 if not isinstance(a, (argparse._HelpAction,
                                                       argparse._VersionAction))))
        return
    for action in subs:
        for name, child in action.choices.items():
            yield from _leaves(child, (*prefix, name))


LEAVES = tuple(leaf for leaf in _leaves(build_parser()) if leaf.prefix not in SKIP)
VERIFY_LIST = Leaf(("verify", "--list"), ())


def _number() -> st.SearchStrategy[str]:
    return st.one_of(st.sampled_from(HOSTILE), st.sampled_from(ORDINARY),
                     st.floats(allow_nan=True, allow_infinity=True).map(repr),
                     st.integers(-(10**30), 10**30).map(str))


def _json_value() -> st.SearchStrategy[object]:
    return st.one_of(_number(), st.floats(allow_nan=False, allow_infinity=False),
                     st.integers(-(10**20), 10**20), st.none(), st.booleans(),
                     st.lists(st.lists(_number(), max_size=3), max_size=3))


KINDS = ("pure", "approx", "pdp", "zcdp", "rdp", "gdp", "expost", "bm", "history",
         "subsampled-gaussian", "gaussian", "laplace", "rr", "nonsense")
FIELDS = ("epsilon", "delta", "rho", "alpha", "mu", "curve", "max_epsilon", "sensitivity",
          "t_min", "t_stop", "noise_multiplier", "sampling_rate", "count", "sampling",
          "decision", "spent", "remaining", "reading", "id", "child", "unknown_field")


@st.composite
def _line(draw: st.DrawFn) -> str:
    shape = draw(st.integers(0, 9))
    if shape == 0:
        return draw(st.sampled_from(["", "{", "[]", "null", "{\"kind\": ", "garbage", "\x00",
                                     "{\"kind\": \"pure\", \"epsilon\": NaN}",
                                     '{"kind": "pure", "epsilon": "0.1", "epsilon": "5"}',
                                     '{"kind": "pure", "kind": "zcdp", "rho": "0.1"}',
                                     '{"kind": "rr", "epsilon": 1, "count": ' + "9" * 40 + "}",
                                     '{"kind": "pure"}']))
    obj: dict[str, object] = {"kind": draw(st.sampled_from(KINDS))}
    for field in draw(st.lists(st.sampled_from(FIELDS), max_size=4, unique=True)):
        obj[field] = draw(_json_value())
    text = json.dumps(obj)
    return text[: draw(st.integers(1, len(text)))] if shape == 1 else text


@st.composite
def _stdin(draw: st.DrawFn) -> str | bytes:
    if draw(st.integers(0, 9)) == 0:  # bytes that are not UTF-8
        return draw(st.sampled_from([b"\xff\xfe{\"kind\": \"pure\"}\n",
                                     b'{"kind": "pure", "epsilon": "0.1\xc3"}\n', b"\x80"]))
    lines = draw(st.lists(_line(), max_size=5))
    if draw(st.booleans()):  # a transcript header first
        header = {"transcript": draw(st.sampled_from([1, 2, "1", None])),
                  draw(st.sampled_from(["rule", "odometer"])):
                      draw(st.sampled_from(["w23", "zcdp", "basic", "w23-stitched", "x"])),
                  "parameters": {draw(st.sampled_from(["epsilon", "delta", "rho"])):
                                 draw(_number())}}
        lines.insert(0, json.dumps(header))
    return "\n".join(lines) + ("\n" if draw(st.booleans()) else "")


def _value(draw: st.DrawFn, action: argparse.Action, tmp: Path) -> list[str]:
    if action.choices is not None:
        pick = draw(st.one_of(st.sampled_from(list(action.choices)), _number()))
        return [str(pick)]
    if action.dest in PATH_DESTS:
        return [draw(st.sampled_from([str(tmp / "out.txt"), "/nonexistent/dir/x", str(tmp),
                                      str(tmp / "spends.jsonl"), str(tmp / "transcript.jsonl"),
                                      str(tmp / "garbage.jsonl")]))]
    return [draw(_number())]


@st.composite
def _argv(draw: st.DrawFn, tmp: Path) -> list[str]:
    leaf = draw(st.sampled_from((*LEAVES, VERIFY_LIST)))
    argv = list(leaf.prefix)
    for action in leaf.actions:
        if any(flag in SKIP_FLAGS for flag in action.option_strings):
            continue
        required = action.required or not action.option_strings
        if not required and not draw(st.booleans()):
            continue
        if not action.option_strings:  # positional
            if action.nargs == "?" and not draw(st.booleans()):
                continue
            argv += _value(draw, action, tmp)
            continue
        flag = action.option_strings[-1]
        if action.nargs == 0 or (action.nargs == "?" and draw(st.booleans())):
            argv.append(flag)
        else:
            repeats = draw(st.integers(1, 2)) if action.nargs in ("+", "*") or isinstance(
                action, argparse._AppendAction) else 1
            for _ in range(repeats):
                argv += [flag, *_value(draw, action, tmp)]
    return argv


class _HangError(Exception):
    """No answer within TIME_LIMIT seconds."""


def _alarm(signum: int, frame: FrameType | None) -> None:
    raise _HangError


def _run(argv: list[str], stdin: str | bytes) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(TIME_LIMIT)
    old_stdin = sys.stdin
    raw = stdin.encode() if isinstance(stdin, str) else stdin
    sys.stdin = io.TextIOWrapper(io.BytesIO(raw), encoding="utf-8")
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(argv)
            except SystemExit as exit_:
                code = exit_.code if isinstance(exit_.code, int) else 2
    except _HangError:
        pytest.fail(f"no answer within {TIME_LIMIT} s: adaptive-dp {' '.join(argv)}")
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
        sys.stdin = old_stdin
    return code, out.getvalue(), err.getvalue()


def _check(argv: list[str], stdin: str | bytes) -> None:
    code, out, err = _run(argv, stdin)
    shown = f"adaptive-dp {' '.join(argv)}\nstdin: {stdin!r}\nstderr: {err}"
    assert code in (0, 1, 2), shown
    for text in (out, err):
        assert "Traceback" not in text, shown
        assert "Decimal(" not in text and "Fraction(" not in text, shown
    if code == 2 and argv and argv[0] != "--help":
        lines = err.strip().splitlines()
        assert len(lines) == 1 and "error" in lines[0], shown
        assert lines[0].startswith("adaptive-dp"), shown
        positional = [a for i, a in enumerate(argv)
                      if i and not a.startswith("--") and not argv[i - 1].startswith("--")]
        named = [a for a in argv if "/" in a] + positional + ["--", "line ", "argument"]
        assert any(n in lines[0] for n in named), f"names no flag or line: {shown}"


@pytest.fixture(scope="module")
def tmp(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("fuzz")
    (path / "garbage.jsonl").write_bytes(b"\xff\xfe{not json\n")
    # copies: a drawn path may be an output (--json, --out), and the repository's files
    # must never be overwritten
    shutil.copy(EXAMPLES / "spends.jsonl", path / "spends.jsonl")
    shutil.copy(EXAMPLES / "transcripts" / "w23-truthful.jsonl", path / "transcript.jsonl")
    return path


_SETTINGS = dict(deadline=None, derandomize=True, database=None,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@settings(max_examples=80, **_SETTINGS)  # type: ignore[arg-type]
@given(data=st.data())
def test_every_command_answers_or_refuses_on_one_line(tmp: Path, data: st.DataObject) -> None:
    _check(data.draw(_argv(tmp)), data.draw(_stdin()))


@pytest.mark.slow
@settings(max_examples=3000, **_SETTINGS)  # type: ignore[arg-type]
@given(data=st.data())
def test_every_command_long_campaign(tmp: Path, data: st.DataObject) -> None:
    _check(data.draw(_argv(tmp)), data.draw(_stdin()))


def test_every_leaf_is_fuzzed() -> None:
    """The walk finds the subcommands a user sees (so a new one is fuzzed automatically)."""
    found = {leaf.prefix for leaf in LEAVES}
    for expected in [("convert", "gdp-to-dp"), ("filter",), ("odometer",), ("certify",),
                     ("session", "spend"), ("expost", "bound"), ("spec",), ("proof",)]:
        assert expected in found


@settings(max_examples=60, **_SETTINGS)  # type: ignore[arg-type]
@given(line=_line())
def test_a_refused_session_request_changes_nothing(tmp_path_factory: pytest.TempPathFactory,
                                                   line: str) -> None:
    """A hostile request to ``session spend`` either is decided (exit 0) or is refused
    (exit 2) leaving the store exactly as it was (status and export unchanged)."""
    db = str(tmp_path_factory.mktemp("session") / "s.db")
    assert _run(["session", "create", db, "--rule", "w23", "--epsilon", "1",
                 "--delta", "1e-6"], "")[0] == 0
    assert _run(["session", "spend", db, '{"kind": "pure", "epsilon": "0.1"}'], "")[0] == 0
    before = _run(["session", "status", db, "--json"], "")[1]
    code, _, err = _run(["session", "spend", db, line], "")
    assert code in (0, 2), err
    if code == 2:
        assert _run(["session", "status", db, "--json"], "")[1] == before, err
