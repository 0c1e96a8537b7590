"""The README's command-line tour runs as written (issue 17, item 4).

Every fenced block of README.md after the first (the install commands) is the tour, except
a block whose first line is a ``# long runs`` comment. Its commands run in order, each in
bash, in one scratch directory that sees the repository's ``examples/`` (files the tour
writes stay there for later commands), ``adaptive-dp`` being ``python -m adaptive_dp`` on
this checkout. Each must exit 0, or the status its ``# exits N`` comment documents; a
command commented ``needs the X extra`` is skipped when that extra's packages are missing.
"""

from __future__ import annotations

import importlib
import importlib.util
import re
import sys
import tomllib
from pathlib import Path

import pytest

pytest.importorskip("docutils")  # the docs extra: run_shell lives in the docs extension
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "docs" / "_ext"))
_EXTENSION = importlib.import_module("cli_reference")  # a docs extension, not a package
ROOT: Path = _EXTENSION.ROOT
run_shell = _EXTENSION.run_shell

_FENCE = re.compile(r"^```[^\n]*\n(.*?)^```$", re.MULTILINE | re.DOTALL)
_EXTRA = re.compile(r"needs the (\w+) extra")
_EXITS = re.compile(r"# exits (\d+)")


def tour() -> list[str]:
    """The tour's commands, continuation lines joined, in README order."""
    blocks = _FENCE.findall((ROOT / "README.md").read_text())[1:]
    text = "".join(b for b in blocks if not b.startswith("# long runs"))
    return [c for c in text.replace("\\\n", " ").splitlines() if c.strip()]


def _missing(extra: str) -> list[str]:
    """The distributions of an optional extra that cannot be imported here."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    names = [re.split(r"[<>=\[ ]", d)[0] for d in project["optional-dependencies"][extra]]
    return [n for n in names if importlib.util.find_spec(n.replace("-", "_")) is None]


def test_the_tour_is_the_documented_one() -> None:
    commands = tour()
    assert commands[0] == "adaptive-dp spec --items"
    assert sum("certify" in c for c in commands) >= 4
    assert not any("verify --full" in c or "audit gallery" in c for c in commands)


def test_the_tour_runs_as_written(tmp_path: Path) -> None:
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    for command in tour():
        extra = _EXTRA.search(command)
        if extra and _missing(extra.group(1)):
            continue
        expected = _EXITS.search(command)
        done = run_shell(command, tmp_path)
        assert done.returncode == (int(expected.group(1)) if expected else 0), (
            command, done.stdout)
