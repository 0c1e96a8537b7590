"""Sphinx extension: the command-line reference, generated from the argument parsers.

Directives (MyST fenced syntax)::

    ```{cli-reference}
    ```

    ```{command-output} adaptive-dp certify examples/transcripts/w23-truthful.jsonl
    :returncode: 0
    ```

``cli-reference`` walks :func:`adaptive_dp.cli.build_parser` and renders every subcommand
and sub-subcommand as a section: its help, its usage and its arguments (help, choices,
default). ``command-output`` runs a shell command at build time, from a scratch directory
of the page that sees the repository's ``examples/`` (files a command writes stay there
for the page's next command), with ``adaptive-dp`` meaning ``python -m adaptive_dp`` on
this checkout's sources; it shows the command and its real output, and fails the build
if the exit status differs from ``:returncode:`` (default 0).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, ClassVar

from docutils import nodes  # type: ignore[import-untyped]  # no stubs in the dev venv
from docutils.parsers.rst import directives  # type: ignore[import-untyped]  # same
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective

from adaptive_dp.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]
USAGE_WIDTH = 88
_SCRATCH: dict[str, Path] = {}
_FLAG = re.compile(r"(--[a-z][a-z0-9-]*)")


def subcommands(
    parser: argparse.ArgumentParser,
) -> Iterator[tuple[argparse.ArgumentParser, str | None]]:
    """Every subparser below ``parser``, depth first, with the help its parent gave it."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {choice.dest: choice.help for choice in action._choices_actions}
            for name, child in action.choices.items():
                yield child, helps.get(name)
                yield from subcommands(child)


def _usage(parser: argparse.ArgumentParser) -> str:
    formatter = argparse.HelpFormatter(parser.prog, width=USAGE_WIDTH)
    formatter.add_usage(parser.usage, parser._actions, parser._mutually_exclusive_groups)
    return formatter.format_help().strip()


def _prose(text: str) -> nodes.paragraph:
    """A paragraph whose flags are literals (so smart quotes leave their dashes alone)."""
    paragraph = nodes.paragraph()
    for i, piece in enumerate(_FLAG.split(text)):
        paragraph += nodes.literal(piece, piece) if i % 2 else nodes.Text(piece)
    return paragraph


def _argument(action: argparse.Action) -> nodes.definition_list_item:
    formatter = argparse.HelpFormatter("", width=USAGE_WIDTH)
    term = formatter._format_action_invocation(action)  # as argparse prints it
    help_text = action.help or ""
    if action.required and action.option_strings:
        help_text += " (required)"
    if (action.default not in (None, False, argparse.SUPPRESS) and action.nargs != 0
            and "default" not in help_text):
        help_text += f" (default: {action.default})"
    item = nodes.definition_list_item()
    item += nodes.term("", "", nodes.literal(term, term))
    item += nodes.definition("", _prose(help_text.strip()))
    return item


def _section(parser: argparse.ArgumentParser, help_text: str | None) -> nodes.section:
    section = nodes.section(ids=[nodes.make_id(parser.prog)], names=[parser.prog])
    section += nodes.title(text=parser.prog)
    text = parser.description or help_text
    if text:
        section += _prose(text)
    usage = _usage(parser)
    section += nodes.literal_block(usage, usage)
    arguments = nodes.definition_list()
    for action in parser._actions:
        if not isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
            arguments += _argument(action)
    if arguments.children:
        section += arguments
    if parser.epilog:
        section += _prose(parser.epilog)
    return section


def render(parser: argparse.ArgumentParser) -> nodes.section:
    """A section for ``parser`` holding one per subcommand, each holding its own."""
    sections = {parser.prog: _section(parser, None)}
    for child, help_text in subcommands(parser):
        sections[child.prog] = _section(child, help_text)
        sections[child.prog.rsplit(" ", 1)[0]] += sections[child.prog]
    return sections[parser.prog]


def run_shell(command: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run ``command`` with bash in ``cwd``, ``adaptive-dp`` being this checkout's
    ``python -m adaptive_dp``; standard error is merged into the output."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "COLUMNS": str(USAGE_WIDTH)}
    prelude = f'adaptive-dp() {{ "{sys.executable}" -m adaptive_dp "$@"; }}\n'
    return subprocess.run(["bash", "-c", prelude + command], cwd=cwd, env=env, text=True,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=120,
                          check=False)


class CliReference(SphinxDirective):
    """``{cli-reference}``: every subcommand of ``adaptive-dp``."""

    def run(self) -> list[nodes.Node]:
        return [render(build_parser())]


class CommandOutput(SphinxDirective):
    """``{command-output} COMMAND``: the command and its output, run at build time."""

    required_arguments = 1
    final_argument_whitespace = True
    option_spec: ClassVar[dict[str, Callable[[str], Any]]] = {
        "returncode": directives.nonnegative_int}

    def run(self) -> list[nodes.Node]:
        command = self.arguments[0]
        scratch = _SCRATCH.get(self.env.docname)
        if scratch is None:
            scratch = Path(tempfile.mkdtemp(prefix="adaptive-dp-docs-"))
            (scratch / "examples").symlink_to(ROOT / "examples")
            _SCRATCH[self.env.docname] = scratch
        done = run_shell(command, scratch)
        expected = self.options.get("returncode", 0)
        if done.returncode != expected:
            raise self.error(f"{command!r} exited {done.returncode}, expected {expected}:\n"
                             f"{done.stdout}")
        text = f"$ {command}\n{done.stdout}".rstrip()
        if expected:
            text += f"\n(exit status {expected})"
        return [nodes.literal_block(text, text, language="console")]


def _remove_scratch(app: Sphinx, error: Exception | None) -> None:
    while _SCRATCH:
        shutil.rmtree(_SCRATCH.popitem()[1])


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_directive("cli-reference", CliReference)
    app.add_directive("command-output", CommandOutput)
    app.connect("build-finished", _remove_scratch)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
