"""Write the example transcripts of this folder (run from the repository root:
``python examples/transcripts/generate.py``). The "systems" here are small scripted
ones: a truthful one that reports what the certified rule says (floats as a float system
writes them, shortest repr), and three that go wrong in one named way each."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction
from pathlib import Path

from adaptive_dp.filters.base import FilterState
from adaptive_dp.filters.named import build_odometer, build_rule
from adaptive_dp.guarantees.definitions import ZCDP
from adaptive_dp.interchange import parse_line
from adaptive_dp.transcript import Header, entry_line, header_line

HERE = Path(__file__).resolve().parent


def _float(x: float) -> Fraction:
    """A float as a float system writes it in JSON (shortest repr), read exactly."""
    return Fraction(Decimal(repr(x)))


def _filter(name: str, params: dict[str, str], spends: list[str], source: str,
            decide: dict[int, str] | None = None, report: bool = True,
            children: list[str] | None = None) -> str:
    """A rule's transcript: the certified decisions, except where ``decide`` overrides
    the n-th request (0-based); the system's state follows its own decisions."""
    rule = build_rule(name, params)
    state: FilterState = rule.start()
    lines = [header_line(Header("rule", name, params, concurrent=children is not None,
                                source=source))]
    for n, text in enumerate(spends):
        spend = parse_line(text)
        ours = state.decide(spend)
        word = (decide or {}).get(n, ours.value)
        state = state.charged(spend) if word == "continue" else state.refused()
        g = state.spent()
        primary = g.rho if isinstance(g, ZCDP) else g.epsilon  # type: ignore[union-attr]
        child = children[n % len(children)] if children else None
        lines.append(entry_line(spend, decision=word, id=f"q{n + 1}", child=child,
                                spent=_float(float(primary)) if report else None,
                                remaining=_float(state.remaining()) if report else None))
    return "\n".join(lines) + "\n"


def _odometer(name: str, params: dict[str, str], spends: list[str], source: str) -> str:
    books = build_odometer(name, params)
    state = books.start()
    lines = [header_line(Header("odometer", name, params, source=source))]
    for n, text in enumerate(spends):
        spend = parse_line(text)
        state = state.spend(spend)  # type: ignore[union-attr]
        reading = state.reading()
        lines.append(entry_line(spend, reading=_float(float(reading)), id=f"q{n + 1}"))
    return "\n".join(lines) + "\n"


def main() -> None:
    pure = ['{"kind": "pure", "epsilon": "0.1"}'] * 6
    w23 = {"epsilon": "1", "delta": "1e-6"}
    files = {
        "w23-truthful.jsonl": _filter("w23", w23, pure, "scripted: reports what the "
                                      "certified W23 filter says"),
        "w23-one-unsafe.jsonl": _filter("w23", w23, pure, "scripted: admits the 4th "
                                        "request, which the W23 filter refuses",
                                        decide={3: "continue"}, report=False),
        "w23-early-refusal.jsonl": _filter("w23", w23, pure, "scripted: refuses from the "
                                           "3rd request on", decide={2: "halt", 3: "halt"}),
        "zcdp-filter.jsonl": _filter("zcdp", w23, ['{"kind": "zcdp", "rho": "0.02"}'] * 8,
                                     "scripted: reports what the certified R23 zCDP "
                                     "filter says"),
        "zcdp-sum-concurrent.jsonl": _filter(
            "zcdp-sum", {"rho": "0.5"}, ['{"kind": "zcdp", "rho": "0.1"}'] * 7,
            "scripted: two analysts' interactive mechanisms launched under one zCDP sum "
            "filter, interleaved", children=["analyst-a", "analyst-b"]),
        "w23-stitched-odometer.jsonl": _odometer(
            "w23-stitched", {"delta": "1e-6"}, ['{"kind": "pure", "epsilon": "0.05"}'] * 10,
            "scripted: reports the certified W23 stitched odometer's reading"),
    }
    for name, text in files.items():
        (HERE / name).write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
