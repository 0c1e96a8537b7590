"""The API reference (issue 17, item 4): every public package of adaptive_dp has a page
under docs/api/, listed in its toctree, that documents each of the package's public
modules with autodoc (the command line's subcommand modules are internal: docs/cli.md)."""

from __future__ import annotations

import pkgutil
import re
from pathlib import Path

import adaptive_dp

ROOT = Path(__file__).resolve().parents[2]
API = ROOT / "docs" / "api"
SOURCE = Path(adaptive_dp.__file__).parent
INTERNAL = {"adaptive_dp.cli"}  # its modules are the subcommands, rendered in docs/cli.md


def _packages() -> dict[str, Path]:
    """Regular packages as pkgutil walks them, plus namespace packages (a directory of
    modules without ``__init__.py``, which pkgutil does not list)."""
    walked = {m.name for m in pkgutil.walk_packages(adaptive_dp.__path__, "adaptive_dp.")
              if m.ispkg}
    found = {
        ".".join(("adaptive_dp", *d.relative_to(SOURCE).parts)): d
        for d in [SOURCE, *SOURCE.rglob("*")]
        if d.is_dir() and d.name != "__pycache__" and any(d.glob("*.py"))
    }
    assert walked <= set(found), walked - set(found)
    return found


def _automodules(page: Path) -> set[str]:
    return set(re.findall(r"^\.\. automodule:: (\S+)$", page.read_text(), re.MULTILINE))


def test_every_public_package_has_a_page_documenting_its_modules() -> None:
    packages = _packages()
    assert {"adaptive_dp.filters", "adaptive_dp.audit", "adaptive_dp.verify.judge"} <= set(
        packages)
    for name, directory in packages.items():
        page = API / f"{name}.md"
        assert page.is_file(), f"no API page for {name}"
        modules = set() if name in INTERNAL else {
            f"{name}.{m.name}" for m in pkgutil.iter_modules([str(directory)])
            if not m.ispkg and not m.name.startswith("_")}
        if (directory / "__init__.py").is_file():
            modules.add(name)
        assert _automodules(page) == modules, name


def test_the_index_lists_every_page() -> None:
    listed = set(re.findall(r"^(adaptive_dp[\w.]*)$", (API / "index.md").read_text(),
                            re.MULTILINE))
    pages = {p.stem for p in API.glob("adaptive_dp*.md")}
    assert listed == pages == set(_packages())
