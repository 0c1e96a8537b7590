"""Sphinx extension: render the spec catalogue (``spec/<TAG>.toml``) inside the docs.

Directives (MyST fenced syntax)::

    ```{spec-coverage}
    ```

    ```{spec-items} R23
    ```

``spec-coverage`` renders the coverage table per source; ``spec-items TAG`` renders every
item of one source: id, kind, status, provenance, statement (LaTeX, rendered by MathJax),
aliases and the implementing symbol. Both build MyST markdown and parse it in place, so the
statements' ``$...$`` math goes through ``dollarmath``.
"""

from __future__ import annotations

from typing import Any

from docutils import nodes  # type: ignore[import-untyped]  # no stubs in the dev venv
from docutils.statemachine import StringList  # type: ignore[import-untyped]  # same
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective

from adaptive_dp.catalogue.items import SOURCES, SpecItem, coverage, load_catalogue


def _escape(text: str) -> str:
    """Escape markdown emphasis and brackets in plain (non-math) text."""
    for char in ("\\", "*", "_", "[", "]", "<", ">", "|", "`"):
        text = text.replace(char, "\\" + char)
    return text


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
    if entry.implemented_by:
        facts.append(f"symbol: `{entry.implemented_by}`")
    if entry.proof:
        facts.append(f"proof: `{entry.proof}`")
    if entry.twin:
        facts.append(f"twin: `{entry.twin}`")
    lines.extend(["; ".join(facts), ""])
    return lines


class _MarkdownDirective(SphinxDirective):
    def _parse(self, lines: list[str]) -> list[nodes.Node]:
        container = nodes.container()
        source = self.get_source_info()[0]
        self.state.nested_parse(
            StringList(lines, source=source), self.content_offset, container
        )
        return list(container.children)


class SpecItems(_MarkdownDirective):
    """``{spec-items} TAG``: every item of one source."""

    required_arguments = 1

    def run(self) -> list[nodes.Node]:
        tag = self.arguments[0]
        if tag not in SOURCES:
            raise self.error(f"unknown source tag {tag!r}")
        lines: list[str] = []
        for entry in load_catalogue():
            if entry.tag == tag:
                if lines:
                    lines.extend(["---", ""])
                lines.extend(_item_markdown(entry))
        return self._parse(lines)


class SpecCoverage(_MarkdownDirective):
    """``{spec-coverage}``: items per status for every source."""

    def run(self) -> list[nodes.Node]:
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
        return self._parse(lines)


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_directive("spec-items", SpecItems)
    app.add_directive("spec-coverage", SpecCoverage)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
