"""The certificate of a transcript (docs/design.md, certify): an immutable value with a
verdict per line, written as deterministic JSON (the same transcript gives the same bytes).

Verdicts, from best to worst: ``replayed`` (a line with no recorded outcome, decided by
the certified rule), ``agrees``, ``conservative`` (safe: the system refused what the rule
admits, reported more loss or less remaining budget than certified; ``unused`` says how
much), ``undecided`` (the certified check straddles the budget) and ``unsafe`` (the
recorded value lies outside the certified enclosure on the unsafe side). A line's
verdict is the worst of its findings (decision, each reported field).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction

from adaptive_dp.numerics import short_exact

__all__ = ["VERDICTS", "Certificate", "Finding", "LineVerdict", "worst"]

VERDICTS = ("replayed", "agrees", "conservative", "undecided", "unsafe")
"""Per-line verdicts, best first."""


def worst(verdicts: list[str] | tuple[str, ...]) -> str:
    """The worst of some verdicts (``replayed`` for none)."""
    return max(verdicts, key=VERDICTS.index, default="replayed")


@dataclass(frozen=True)
class Finding:
    """One recorded field against its certified value: ``certified`` is a decision
    (``continue``, ``halt``, ``undecided``) or an enclosure ``[low, high]`` written as
    floats rounded outward; ``unused`` the budget left unused on a conservative finding."""

    field: str
    verdict: str
    recorded: str
    certified: str
    unused: float | None = None

    def as_json(self) -> dict[str, object]:
        out: dict[str, object] = {"field": self.field, "verdict": self.verdict,
                                  "recorded": self.recorded, "certified": self.certified}
        if self.unused is not None:
            out["unused"] = self.unused
        return out


@dataclass(frozen=True)
class LineVerdict:
    """The verdict of one transcript line (``line`` counts the header as line 1)."""

    line: int
    verdict: str
    findings: tuple[Finding, ...]
    decision: str | None
    """The decision the certified state took: the recorded one where there is one."""
    certified: float | None
    """The certified loss after the line (primary parameter, rounded up), for plots."""
    recorded: float | None
    """The loss the system reported after the line (primary parameter), for plots."""
    child: str | None = None
    id: str | None = None

    @property
    def unused(self) -> float | None:
        """The largest budget left unused among the conservative findings, or None."""
        found = [f.unused for f in self.findings if f.unused is not None]
        return max(found) if found else None

    def as_json(self) -> dict[str, object]:
        out: dict[str, object] = {"line": self.line, "verdict": self.verdict,
                                  "decision": self.decision,
                                  "findings": [f.as_json() for f in self.findings],
                                  "certified": self.certified, "recorded": self.recorded}
        for key, value in (("child", self.child), ("id", self.id)):
            if value is not None:
                out[key] = value
        return out


@dataclass(frozen=True)
class Certificate:
    """What ``certify`` concluded about one transcript."""

    sha256: str
    """SHA-256 of the transcript's bytes."""
    books: str
    name: str
    parameters: tuple[tuple[str, str], ...]
    mode: str
    neighbours: str
    concurrent: bool
    spec: tuple[str, ...]
    version: str
    tolerance: Fraction
    verdicts: tuple[LineVerdict, ...]

    @property
    def counts(self) -> Mapping[str, int]:
        """How many lines got each verdict."""
        return {v: sum(1 for x in self.verdicts if x.verdict == v) for v in VERDICTS}

    @property
    def verdict(self) -> str:
        """The worst line verdict."""
        return worst([v.verdict for v in self.verdicts])

    @property
    def unsafe_lines(self) -> tuple[int, ...]:
        """The line numbers with an unsafe verdict."""
        return tuple(v.line for v in self.verdicts if v.verdict == "unsafe")

    @property
    def exit_code(self) -> int:
        """0 when no line is unsafe, 1 otherwise (docs/design.md, verdicts)."""
        return 1 if self.unsafe_lines else 0

    def as_json(self) -> dict[str, object]:
        """The certificate as a JSON object."""
        return {
            "certificate": 1,
            "library": f"adaptive-dp {self.version}",
            "transcript_sha256": self.sha256,
            "header": {self.books: self.name, "parameters": dict(self.parameters),
                       "mode": self.mode, "neighbours": self.neighbours,
                       "concurrent": self.concurrent},
            "spec": list(self.spec),
            "tolerance": short_exact(self.tolerance),
            "summary": {"lines": len(self.verdicts), **self.counts,
                        "verdict": self.verdict, "unsafe_lines": list(self.unsafe_lines),
                        "exit_code": self.exit_code},
            "lines": [v.as_json() for v in self.verdicts],
        }

    def to_json(self) -> str:
        """Deterministic JSON text (sorted keys, one trailing newline)."""
        return json.dumps(self.as_json(), indent=1, sort_keys=True) + "\n"
