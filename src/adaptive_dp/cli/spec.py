"""``adaptive-dp spec``: coverage of the spec catalogue, per source or per item.

``adaptive-dp spec`` prints, for each source tag, how many items it has (reference items,
i.e. proof-internal equations and remarks, are counted apart and excluded from coverage),
how many are planned, implemented, verified and refuted, and how many are reconstructions.
``--items`` prints one row per item: id, kind, status, reconstructed, implementing symbol,
whether a proof file exists and how many of its steps carry a check (and, with
``--run-checks``, how many of those pass). ``--show ID`` prints one item in full.
``--source TAG`` and ``--status STATUS`` filter; ``--json [FILE]`` writes JSON to standard
output or to FILE. Works from an installed wheel: the catalogue and proofs are read with
:func:`adaptive_dp.resources.data_dir`.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

from adaptive_dp.catalogue.items import (
    SOURCES,
    STATUSES,
    CatalogueError,
    SpecItem,
    coverage,
    item,
    load_catalogue,
)
from adaptive_dp.catalogue.proofs import load_proof, run_check
from adaptive_dp.cli import UsageError
from adaptive_dp.resources import data_dir

NAME = "spec"
HELP = "print the coverage of the spec catalogue per source, or one row per item"


def configure(parser: argparse.ArgumentParser) -> None:
    """Arguments of ``adaptive-dp spec``."""
    parser.add_argument("--items", action="store_true", help="one row per item")
    parser.add_argument(
        "--json",
        nargs="?",
        const="-",
        default=None,
        metavar="FILE",
        help="write JSON to standard output, or to FILE",
    )
    parser.add_argument(
        "--source", metavar="TAG", help=f"only this source tag ({', '.join(SOURCES)})"
    )
    parser.add_argument(
        "--status", choices=STATUSES, help="only items with this status (with --items)"
    )
    parser.add_argument("--show", metavar="ID", help="print one item (id or alias) in full")
    parser.add_argument(
        "--run-checks",
        action="store_true",
        help="with --items or --show: also run the proof checks and count the passing ones",
    )


@dataclass(frozen=True, slots=True)
class ProofInfo:
    """What ``--items`` reports about an item's proof."""

    file: str | None
    exists: bool
    steps: int | None = None
    checked: int | None = None
    passed: int | None = None
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready mapping."""
        return {
            "file": self.file,
            "exists": self.exists,
            "steps": self.steps,
            "checked_steps": self.checked,
            "passed": self.passed,
            "error": self.error,
        }

    def cell(self) -> str:
        """The table cell: ``-`` (no proof), ``missing`` (listed, not written), ``yes``,
        ``3/5 checked`` or ``3/5 checked, 3 pass``."""
        if not self.exists:
            return "missing" if self.file is not None else "-"
        if self.error is not None:
            return "invalid"
        if self.steps is None:
            return "yes"
        text = f"{self.checked}/{self.steps} checked"
        if self.passed is not None:
            text += f", {self.passed} pass"
        return text


def _proof_info(entry: SpecItem, run_checks: bool) -> ProofInfo:
    name = PurePosixPath(entry.proof).stem if entry.proof else entry.id
    folder = data_dir("proofs")
    exists = (folder / f"{name}.md").is_file()
    file = f"proofs/{name}.md" if exists or entry.proof else None
    if not exists:
        return ProofInfo(file=file, exists=exists)
    try:
        proof = load_proof(name)
    except Exception as error:  # a malformed proof file is reported, not raised
        return ProofInfo(file=file, exists=True, error=str(error))
    checked = proof.checked_steps
    passed: int | None = None
    if run_checks:
        passed = sum(1 for step in checked if run_check(step))
    return ProofInfo(
        file=file, exists=True, steps=len(proof.steps), checked=len(checked), passed=passed
    )


def _select(source: str | None, status: str | None) -> tuple[SpecItem, ...]:
    entries: Iterable[SpecItem] = load_catalogue()
    if source is not None:
        entries = (e for e in entries if e.tag == source)
    if status is not None:
        entries = (e for e in entries if e.status == status)
    return tuple(entries)


def _tag(value: str | None) -> str | None:
    if value is None:
        return None
    for tag in SOURCES:
        if tag.lower() == value.lower():
            return tag
    raise UsageError(f"--source {value}: expected one of {', '.join(SOURCES)}")


def _emit(payload: Any, target: str) -> None:
    text = json.dumps(payload, indent=2, ensure_ascii=False) + "\n"
    if target == "-":
        sys.stdout.write(text)
        return
    try:
        with open(target, "w", encoding="utf-8") as handle:
            handle.write(text)
    except OSError as error:
        raise UsageError(f"cannot write {target}: {error.strerror}") from error


def _table(header: tuple[str, ...], rows: Sequence[tuple[str, ...]]) -> str:
    widths = [max([len(h), *(len(r[i]) for r in rows)]) for i, h in enumerate(header)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)).rstrip()]
    for row in rows:
        lines.append("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip())
    return "\n".join(lines)


def _coverage_rows(source: str | None) -> list[dict[str, Any]]:
    return [c.to_json() for c in coverage() if source is None or c.tag == source]


def _print_coverage(rows: list[dict[str, Any]]) -> None:
    header = (
        "source", "items", "planned", "implemented", "verified", "refuted", "reconstructed",
        "reference",
    )
    body: list[tuple[str, ...]] = [
        (
            str(row["tag"]),
            str(row["items"]),
            str(row["by_status"]["planned"]),
            str(row["implemented"]),
            str(row["verified"]),
            str(row["refuted"]),
            str(row["reconstructed"]),
            str(row["reference"]),
        )
        for row in rows
    ]
    if len(rows) > 1:
        total = [sum(int(r[i]) for r in body) for i in range(1, len(header))]
        body.append(("total", *(str(n) for n in total)))
    print(_table(header, body))
    print(
        "\nimplemented counts implemented and verified items; reference items "
        "(proof-internal equations, remarks) are not counted in items."
    )


def _item_rows(entries: tuple[SpecItem, ...], run_checks: bool) -> list[dict[str, Any]]:
    rows = []
    for entry in entries:
        data = entry.to_json()
        data["proof_info"] = _proof_info(entry, run_checks).to_json()
        rows.append(data)
    return rows


def _print_items(rows: list[dict[str, Any]]) -> None:
    header = ("id", "kind", "status", "recon", "symbol", "proof")
    body: list[tuple[str, ...]] = []
    for row in rows:
        info = ProofInfo(
            file=row["proof_info"]["file"],
            exists=row["proof_info"]["exists"],
            steps=row["proof_info"]["steps"],
            checked=row["proof_info"]["checked_steps"],
            passed=row["proof_info"]["passed"],
            error=row["proof_info"]["error"],
        )
        body.append(
            (
                str(row["id"]),
                str(row["kind"]),
                str(row["status"]),
                "yes" if row["reconstructed"] else "no",
                str(row["implemented_by"] or "-"),
                info.cell(),
            )
        )
    print(_table(header, body))


def _show(ident: str, run_checks: bool, target: str | None) -> int:
    try:
        entry = item(ident)
    except KeyError as error:
        raise UsageError(f"--show {ident}: no spec item or alias of that name") from error
    data = entry.to_json()
    data["proof_info"] = _proof_info(entry, run_checks).to_json()
    if target is not None:
        _emit(data, target)
        return 0
    print(f"{entry.id}: {entry.title}")
    for key in ("kind", "status", "source", "provenance"):
        print(f"  {key}: {data[key]}")
    print(f"  reconstructed: {'yes' if entry.reconstructed else 'no'}")
    for key in ("aliases", "tested_by", "claims"):
        if data[key]:
            print(f"  {key}: {', '.join(data[key])}")
    for key in ("implemented_by", "proof", "twin"):
        if data[key]:
            print(f"  {key}: {data[key]}")
    print(f"\n{entry.statement}")
    return 0


def run(args: argparse.Namespace) -> int:
    """Print coverage per source, one row per item, or one item."""
    try:
        load_catalogue()
    except (CatalogueError, FileNotFoundError) as error:
        raise UsageError(f"the spec catalogue cannot be read: {error}") from error
    if args.show is not None:
        return _show(args.show, args.run_checks, args.json)
    source = _tag(args.source)
    if args.status is not None and not args.items:
        raise UsageError("--status filters rows: use it with --items")
    rows = _coverage_rows(source)
    if not args.items:
        if args.json is not None:
            _emit({"coverage": rows}, args.json)
        else:
            _print_coverage(rows)
        return 0
    item_rows = _item_rows(_select(source, args.status), args.run_checks)
    if args.json is not None:
        _emit({"coverage": rows, "items": item_rows}, args.json)
    else:
        _print_items(item_rows)
    return 0
