"""The import direction of docs/design.md (layers): imports run from a higher row to a
lower one, packages on one row never import each other, and inside ``verify/`` the
registry may use the judge, never the reverse. Read from the source with ``ast``, so a
new upward import fails here before it reaches a reviewer."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "adaptive_dp"

ROWS: tuple[tuple[str, ...], ...] = (
    ("cli",),
    ("audit", "certify", "verify.registry", "catalogue"),
    ("applications",),
    ("verify.judge",),
    ("interactive", "sessions"),
    ("filters",),
    ("odometers",),
    ("evalues", "loss"),
    ("mechanisms",),
    ("ledger",),
    ("guarantees",),
    ("numerics",),
)
"""Top to bottom. ``applications`` sits below the registry (whose claims check its
algorithms); ``verify.judge`` sits below the registry (which uses it) and beside nothing
else; ``catalogue`` needs neither."""

EDGE_ROWS = {
    "interchange": 9.5,
    "transcript": 9.25,
    "errors": len(ROWS),
    "resources": len(ROWS),
}
"""Modules at the edges: the JSON formats just above the guarantees they read (a
transcript is interchange lines under a header), so that the session store and
``certify`` read and write them; the errors and the data-folder locator below
everything."""


def _unit(module: str) -> str:
    """The layer a dotted module name (below adaptive_dp) belongs to."""
    parts = module.split(".")
    if parts[0] == "verify":  # the package face of verify sits with its top, the registry
        return "verify.judge" if parts[1:2] == ["judge"] else "verify.registry"
    return parts[0]


def _row(unit: str) -> float:
    for number, row in enumerate(ROWS):
        if unit in row:
            return number
    return EDGE_ROWS.get(unit, float("nan"))


def _imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            found.extend(n for n in names if n.startswith("adaptive_dp."))
        elif isinstance(node, ast.Import):
            found.extend(a.name for a in node.names if a.name.startswith("adaptive_dp."))
    return found


def _modules() -> list[Path]:
    top = {f"{name}.py" for name in EDGE_ROWS}
    return [p for p in sorted(SRC.rglob("*.py")) if p.parent != SRC or p.name in top]


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(SRC)))
def test_imports_run_downward(path: Path) -> None:
    own = _unit(".".join(path.relative_to(SRC).with_suffix("").parts))
    own_row = _row(own)
    assert own_row == own_row, f"{own} is in no row of docs/design.md"
    for target in _imports(path):
        unit = _unit(target.removeprefix("adaptive_dp."))
        if unit == own or unit not in {u for row in ROWS for u in row} | set(EDGE_ROWS):
            continue  # itself, or a name imported from the package face (__version__)
        assert _row(unit) > own_row, f"{own} (row {own_row}) imports {target} (row {_row(unit)})"
        if unit == "verify.judge":  # nothing but the command line and the registry uses it
            assert own in ("cli", "verify.registry"), f"{own} imports the judge"
