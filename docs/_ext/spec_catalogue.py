"""Sphinx extension: render the spec catalogue (``spec/<TAG>.toml``) inside the docs.

Directives (MyST fenced syntax)::

    ```{spec-coverage}
    ```

    ```{spec-filter}
    ```

    ```{spec-items} R23
    ```

``spec-coverage`` renders the coverage table per source; ``spec-items TAG`` renders every
item of one source: id, kind, status, provenance, statement (LaTeX, rendered by MathJax),
aliases, and its links (:func:`item_links`: proof page, API symbol, claims with their
committed verdicts, tests). Each item is a ``div.spec-item`` anchored at the label
:func:`spec_label` with the classes ``source-<TAG>`` and ``status-<status>``, which the
``spec-filter`` form (inline JavaScript, no network) filters on. The directives build MyST
markdown and parse it in place, so the statements' ``$...$`` math goes through
``dollarmath``. The helpers here are shared with ``proof_pages.py``.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path, PurePosixPath
from typing import Any

from docutils import nodes  # type: ignore[import-untyped]  # no stubs in the dev venv
from docutils.statemachine import StringList  # type: ignore[import-untyped]  # same
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective

from adaptive_dp.catalogue.items import SOURCES, STATUSES, SpecItem, coverage, load_catalogue
from adaptive_dp.catalogue.proofs import proof_ids
from adaptive_dp.resources import data_dir
from adaptive_dp.verify.registry import REGISTRY

DOCS = Path(__file__).resolve().parent.parent
RUNS = {
    "quick": DOCS / "results" / "verify-quick.json",
    "full": DOCS / "results" / "verify-full.json",
}
"""The committed verification runs whose verdicts the pages show: ``verify --quick`` of the
current registry (refreshed with every change of the registry) and the last ``verify --full``
(hours on two cores, rerun less often: a claim added since shows as not in it)."""


def _escape(text: str) -> str:
    """Escape markdown emphasis and brackets in plain (non-math) text."""
    for char in ("\\", "*", "_", "[", "]", "<", ">", "|", "`"):
        text = text.replace(char, "\\" + char)
    return text


def spec_label(ident: str) -> str:
    """The cross-reference label of a catalogue item (its anchor on the catalogue page)."""
    return f"spec-{ident}".lower()


def spec_ref(ident: str) -> str:
    """MyST markdown linking to the catalogue item ``ident``."""
    return f"{{ref}}`{ident} <{spec_label(ident)}>`"


@lru_cache(maxsize=1)
def shipped_proofs() -> frozenset[str]:
    """The ids of the shipped proofs (listed once per build)."""
    return frozenset(proof_ids())


def proof_stem(entry: SpecItem) -> str | None:
    """The id of the proof file that proves ``entry``, if it is shipped."""
    if entry.proof is None:
        return None
    stem = PurePosixPath(entry.proof).stem
    return stem if stem in shipped_proofs() else None


@lru_cache(maxsize=2)
def committed_claims(run: str) -> dict[str, dict[str, Any]]:
    """Claim id -> its record in the committed ``run`` (empty if the file is absent)."""
    path = RUNS[run]
    if not path.is_file():
        return {}
    return {record["id"]: record for record in json.loads(path.read_text("utf-8"))["claims"]}


def _twin_text(twin: dict[str, Any] | None) -> str:
    if twin is None:
        return "not run"
    return f"{'caught' if twin['caught'] else 'NOT caught'} ({twin['verdict']})"


def twin_verdict(claim_id: str, twin_name: str) -> str:
    """``quick: caught (violated); full: caught (violated)``: one twin's committed verdicts."""
    parts = []
    for run in RUNS:
        record = committed_claims(run).get(claim_id)
        twins = {} if record is None else {t["name"]: t for t in record["twins"]}
        parts.append(f"{run}: {_twin_text(twins.get(twin_name))}")
    return "; ".join(parts)


def claim_verdict(claim_id: str) -> str:
    """``quick: holds (detects x2); full: holds (detects x1.25)``, or "not run"."""
    parts = []
    for run in RUNS:
        record = committed_claims(run).get(claim_id)
        if record is None:
            parts.append(f"{run}: not run")
            continue
        ratio = record.get("detectable_ratio")
        detects = f" (detects x{ratio:.3g})" if isinstance(ratio, float) else ""
        parts.append(f"{run}: {record['verdict']}{detects}")
    return "; ".join(parts)


def claim_lines(claim_ids: tuple[str, ...]) -> list[str]:
    """Markdown bullets: each claim with its committed verdicts, and its twins'."""
    lines: list[str] = []
    for claim_id in claim_ids:
        claim = REGISTRY.get(claim_id)
        names = () if claim is None else tuple(twin.name for twin in claim.twins)
        lines.append(f"- `{claim_id}`: {claim_verdict(claim_id)}")
        lines.extend(f"  - twin `{name}`: {twin_verdict(claim_id, name)}" for name in names)
    return lines


def item_links(entry: SpecItem, *, with_proof: bool = True) -> list[str]:
    """Markdown lines linking ``entry`` to its proof page, API symbol, claims and tests."""
    lines: list[str] = []
    stem = proof_stem(entry)
    if with_proof and stem is not None:
        lines.append(f"- proof: {{doc}}`{stem} </proofs/{stem}>`")
    elif with_proof and entry.proof:
        lines.append(f"- proof: `{entry.proof}` (not written)")
    if entry.implemented_by:
        lines.append(f"- symbol: {{py:obj}}`{entry.implemented_by}`")
    if entry.twin:
        lines.append(f"- twin: {{py:obj}}`{entry.twin}`")
    if entry.claims:
        lines.append("- claims (verdicts of the committed quick and full runs):")
        lines.extend("  " + line for line in claim_lines(entry.claims))
    if entry.tested_by:
        lines.append("- tests: " + ", ".join(f"`{path}`" for path in entry.tested_by))
    return lines


def _item_markdown(entry: SpecItem) -> list[str]:
    flags = [entry.kind, entry.status, f"provenance {entry.provenance}"]
    if entry.reconstructed:
        flags.append("reconstructed")
    lines = [f"**{entry.id}** ({', '.join(flags)}): {_escape(entry.title)}", ""]
    lines.extend(entry.statement.splitlines())
    lines.append("")
    facts = [f"source: {_escape(entry.source)}"]
    if entry.aliases:
        facts.append("aliases: " + ", ".join(f"`{a}`" for a in entry.aliases))
    lines.extend(["; ".join(facts), ""])
    lines.extend(item_links(entry))
    lines.append("")
    return lines


class MarkdownDirective(SphinxDirective):
    """A directive that renders MyST markdown it builds."""

    def parse(self, lines: list[str]) -> list[nodes.Node]:
        """The nodes of ``lines`` parsed as MyST markdown in place."""
        container = nodes.container()
        source = self.get_source_info()[0]
        self.state.nested_parse(
            StringList(lines, source=source), self.content_offset, container
        )
        return list(container.children)

    def anchored(self, ident: str, classes: list[str], children: list[nodes.Node]) -> nodes.Node:
        """A ``div`` holding ``children``, anchored at :func:`spec_label` of ``ident`` (its
        HTML id keeps the id's spelling, ``spec-R23-Thm2.17``, so a link names the item)."""
        box = nodes.container(
            "", *children, classes=classes, ids=[f"spec-{ident}"], names=[spec_label(ident)]
        )
        self.state.document.note_explicit_target(box, box)
        return box

    def depend_on_catalogue(self) -> None:
        """Rebuild the page when the catalogue, a proof or the committed run changes."""
        for toml in sorted((DOCS.parent / "spec").glob("*.toml")):
            self.env.note_dependency(str(toml))
        for proof in sorted(Path(str(data_dir("proofs"))).glob("*.md")):
            self.env.note_dependency(str(proof))
        for path in RUNS.values():
            if path.is_file():
                self.env.note_dependency(str(path))


class SpecItems(MarkdownDirective):
    """``{spec-items} TAG``: every item of one source."""

    required_arguments = 1

    def run(self) -> list[nodes.Node]:
        tag = self.arguments[0]
        if tag not in SOURCES:
            raise self.error(f"unknown source tag {tag!r}")
        self.depend_on_catalogue()
        boxes: list[nodes.Node] = []
        for entry in load_catalogue():
            if entry.tag == tag:
                classes = ["spec-item", f"source-{entry.tag}", f"status-{entry.status}"]
                boxes.append(self.anchored(entry.id, classes, self.parse(_item_markdown(entry))))
        return boxes


def _options(name: str, values: tuple[str, ...]) -> str:
    choices = "".join(f'<option value="{value}">{value}</option>' for value in values)
    return (
        f'<label>{name} <select data-filter="{name}"><option value="">all</option>'
        f"{choices}</select></label>"
    )


_FILTER_SCRIPT = """<script>
(function () {
  const selects = document.querySelectorAll("select[data-filter]");
  function apply() {
    const wanted = [];
    selects.forEach(function (s) {
      if (s.value) { wanted.push(s.dataset.filter + "-" + s.value); }
    });
    document.querySelectorAll("div.spec-item").forEach(function (item) {
      const show = wanted.every(function (c) { return item.classList.contains(c); });
      item.style.display = show ? "" : "none";
    });
    document.querySelectorAll("section").forEach(function (section) {
      const own = Array.from(section.querySelectorAll(":scope > div.spec-item"));
      if (own.length) {
        const shown = own.some(function (i) { return i.style.display !== "none"; });
        section.style.display = shown ? "" : "none";
      }
    });
  }
  selects.forEach(function (s) { s.addEventListener("change", apply); });
})();
</script>"""


class SpecFilter(SphinxDirective):
    """``{spec-filter}``: a form filtering the page's items by source and status."""

    def run(self) -> list[nodes.Node]:
        form = (
            '<form class="spec-filter">'
            + _options("source", SOURCES)
            + " "
            + _options("status", STATUSES)
            + "</form>"
        )
        return [nodes.raw("", form + _FILTER_SCRIPT, format="html")]


class SpecCoverage(MarkdownDirective):
    """``{spec-coverage}``: items per status for every source."""

    def run(self) -> list[nodes.Node]:
        self.depend_on_catalogue()
        lines = [
            "| source | items | planned | implemented | verified | refuted | reconstructed "
            "| reference |",
            "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
        ]
        for row in coverage():
            planned = dict(row.by_status)["planned"]
            lines.append(
                f"| {row.tag} | {row.items} | {planned} | {row.implemented} | {row.verified} "
                f"| {row.refuted} | {row.reconstructed} | {row.reference} |"
            )
        return self.parse(lines)


def clear_caches(app: Sphinx) -> None:
    """Forget the proof list and the committed run read by a previous build."""
    shipped_proofs.cache_clear()
    committed_claims.cache_clear()


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("builder-inited", clear_caches)
    app.add_directive("spec-items", SpecItems)
    app.add_directive("spec-coverage", SpecCoverage)
    app.add_directive("spec-filter", SpecFilter)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
