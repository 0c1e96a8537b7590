"""The command-line reference (issue 17, item 4): docs/_ext/cli_reference.py renders a
section for every subcommand and sub-subcommand the parser has, with every option."""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from pathlib import Path

import pytest

from adaptive_dp import cli

pytest.importorskip("sphinx")  # the docs extra
nodes = pytest.importorskip("docutils.nodes")
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "docs" / "_ext"))
cli_reference = importlib.import_module("cli_reference")  # a docs extension, not a package


def _walk(parser: argparse.ArgumentParser) -> dict[str, set[str]]:
    """Every parser's prog with its long option strings."""
    found = {parser.prog: {flag for action in parser._actions for flag in action.option_strings
                           if flag.startswith("--")}}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                found |= _walk(child)
    return found


def test_every_subcommand_and_option_is_rendered() -> None:
    parser = cli.build_parser()
    expected = _walk(parser)
    modules = {m.name for m in pkgutil.iter_modules(cli.__path__) if not m.name.startswith("_")}
    assert {f"adaptive-dp {name}" for name in modules} <= set(expected)
    assert {"adaptive-dp convert zcdp-to-dp", "adaptive-dp session spend"} <= set(expected)
    page = cli_reference.render(parser)
    sections = {s[0].astext(): s for s in page.findall(nodes.section)}
    assert set(sections) == set(expected)
    for prog, flags in expected.items():
        terms = {t.astext() for t in sections[prog].findall(nodes.term)}
        for flag in flags - {"--help"}:
            assert any(t.startswith(flag) or f", {flag}" in t for t in terms), (prog, flag)
