"""Replay a transcript through the certified rule, odometer or accumulator it names and
judge every recorded outcome (docs/design.md, certify).

The certified state follows what the system did: a recorded admission is charged even
when the certified rule refuses it (the system ran that mechanism: the line is
``unsafe``), a recorded refusal is not charged (in terminal mode the rule halts); a line
with no recorded decision is decided by the certified rule (an undecided check refuses).

Reported numbers are compared with certified enclosures widened by a relative
``tolerance`` (default 2^-40, about 4,000 roundings of a float running sum), so a float
system that reports the exact value to within its rounding agrees:

* ``spent`` (rules) and ``reading`` (odometers and accumulators) are losses: below the
  enclosure is ``unsafe``, above it ``conservative``;
* ``remaining`` is a permission: where the rule's remaining budget is an explicit
  quantity (the R23 zCDP and RRUV16 rules: budget minus the bound) it is compared with its
  enclosure; elsewhere it is the largest admissible next spend, and a reported remaining
  budget r is ``unsafe`` when the certified rule refuses a next spend of r (shrunk by the
  tolerance), ``undecided`` when that check straddles, ``conservative`` when the
  certified ``max_next`` (itself checked admitted) exceeds r by more than the tolerance.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Iterable
from fractions import Fraction

from flint import arb

from adaptive_dp import __version__
from adaptive_dp.certify.certificate import Certificate, Finding, LineVerdict, worst
from adaptive_dp.errors import AdaptiveDPError, MissingParameterError, ParameterError
from adaptive_dp.filters.base import Decision, FilterState, Rule
from adaptive_dp.filters.named import CONCURRENT, Books, build_odometer, build_rule
from adaptive_dp.guarantees.definitions import GDP, ZCDP, Guarantee
from adaptive_dp.guarantees.spends import kind_of
from adaptive_dp.interchange import InterchangeError
from adaptive_dp.ledger import Ledger
from adaptive_dp.numerics import exact_lower, exact_upper, round_down, round_up, short_exact
from adaptive_dp.odometers.accumulators import AccumulatorState, Exhausted
from adaptive_dp.odometers.w23 import OdometerState
from adaptive_dp.transcript import Entry, Header, Recorded, Transcript, read_transcript

__all__ = ["TOLERANCE", "certify_text", "certify_transcript", "check_certificate"]

TOLERANCE = Fraction(1, 2**40)
"""The default relative tolerance for reported numbers (float rounding)."""

Interval = tuple[Fraction, Fraction]


def _primary(g: Guarantee) -> str:
    """The primary field of a guarantee: rho, mu, else epsilon."""
    return "rho" if isinstance(g, ZCDP) else "mu" if isinstance(g, GDP) else "epsilon"


def _fields(g: Guarantee, ball: arb | None) -> dict[str, Interval]:
    """Enclosures of a guarantee's fields: the primary one from ``ball`` when given,
    the others exact."""
    out: dict[str, Interval] = {}
    for f in dataclasses.fields(g):
        value = getattr(g, f.name)
        if isinstance(value, Fraction):
            out[f.name] = (value, value)
    if ball is not None:
        out[_primary(g)] = (exact_lower(ball), exact_upper(ball))
    return out


def _text(interval: Interval) -> str:
    lo, hi = interval
    return f"[{round_down(lo)!r}, {round_up(hi)!r}]"


def _slack(tolerance: Fraction, *values: Fraction) -> Fraction:
    return tolerance * max(abs(v) for v in values)


def _loss(name: str, recorded: Fraction, interval: Interval, tol: Fraction) -> Finding:
    """A reported loss against its enclosure: below is unsafe, above conservative."""
    lo, hi = interval
    slack = _slack(tol, recorded, lo, hi)
    if recorded < lo - slack:
        verdict, unused = "unsafe", None
    elif recorded > hi + slack:
        verdict, unused = "conservative", float(recorded - hi)
    else:
        verdict, unused = "agrees", None
    return Finding(name, verdict, short_exact(recorded), _text(interval), unused)


def _losses(prefix: str, recorded: Recorded, g: Guarantee, ball: arb | None,
            tol: Fraction, line: int) -> list[Finding]:
    fields = _fields(g, ball)
    values = {_primary(g): recorded} if isinstance(recorded, Fraction) else dict(recorded)
    out = []
    for key, value in values.items():
        if key not in fields:
            raise InterchangeError(line, f"{prefix}.{key}", f"not a field of the certified "
                                   f"{type(g).__name__}: {', '.join(fields)}")
        out.append(_loss(f"{prefix}.{key}", value, fields[key], tol))
    return out


def _remaining(state: FilterState, recorded: Fraction, tol: Fraction) -> Finding:
    """A reported remaining budget (a permission: above the certified one is unsafe)."""
    ball = state.remaining_ball()
    if ball is not None:
        lo, hi = exact_lower(ball), exact_upper(ball)
        slack = _slack(tol, recorded, lo, hi)
        if recorded > hi + slack:
            return Finding("remaining", "unsafe", short_exact(recorded), _text((lo, hi)))
        if recorded < lo - slack:
            return Finding("remaining", "conservative", short_exact(recorded),
                           _text((lo, hi)), float(lo - recorded))
        return Finding("remaining", "agrees", short_exact(recorded), _text((lo, hi)))
    open_state = FilterState(state.rule, state.tally, False, False)
    best = open_state.max_next()
    certified = f"max_next={best!r}"
    shrunk = recorded - _slack(tol, recorded)
    probe = state.rule.primary(shrunk) if shrunk > 0 else None
    if probe is not None:
        judged = open_state.check(probe)
        if judged is None:
            return Finding("remaining", "undecided", short_exact(recorded), certified)
        if judged is Decision.HALT:
            return Finding("remaining", "unsafe", short_exact(recorded), certified)
    if best is not None and best > recorded + _slack(tol, recorded, Fraction(best)):
        # max_next is certified admitted: the rule truly admits more than was reported
        return Finding("remaining", "conservative", short_exact(recorded), certified,
                       best - float(recorded))
    return Finding("remaining", "agrees", short_exact(recorded), certified)


def _decision(recorded: str | None, certified: Decision | None,
              before: FilterState) -> Finding | None:
    word = "undecided" if certified is None else certified.value
    if recorded is None:
        return None
    if recorded == "continue":
        verdict = {"continue": "agrees", "halt": "unsafe", "undecided": "undecided"}[word]
        return Finding("decision", verdict, recorded, word)
    if word == "continue":
        return Finding("decision", "conservative", recorded, word, before.remaining())
    return Finding("decision", "agrees", recorded, word)


def _unsupported(books: Ledger, entry: Entry) -> None:
    if not books.supports(entry.spend):
        reason = books.unsupported(entry.spend)
        raise InterchangeError(entry.line, "kind",
                               f"kind {kind_of(entry.spend)!r} is not supported ({reason})")


def _primary_float(g: Guarantee | Exhausted | float) -> float | None:
    if isinstance(g, float):
        return g
    if isinstance(g, Exhausted):
        return None
    return float(getattr(g, _primary(g)))


def _recorded_float(recorded: Recorded | None, name: str) -> float | None:
    if recorded is None:
        return None
    if isinstance(recorded, Fraction):
        return float(recorded)
    return float(recorded[name]) if name in recorded else None


def _rule_lines(rule: Rule, header: Header, entries: Iterable[Entry],
                tol: Fraction) -> list[LineVerdict]:
    state = rule.start(terminal=header.terminal)
    out = []
    for entry in entries:
        _unsupported(rule, entry)
        certified = state.check(entry.spend)
        findings = []
        decision = _decision(entry.decision, certified, state)
        if decision is not None:
            findings.append(decision)
        taken = entry.decision or ("continue" if certified is Decision.CONTINUE else "halt")
        state = state.charged(entry.spend) if taken == "continue" else state.refused()
        spent = state.spent()
        if entry.spent is not None:
            findings += _losses("spent", entry.spent, spent, state.spent_ball(), tol,
                                entry.line)
        if entry.remaining is not None:
            findings.append(_remaining(state, entry.remaining, tol))
        verdict = worst([f.verdict for f in findings]) if entry.recorded else "replayed"
        out.append(LineVerdict(entry.line, verdict, tuple(findings), taken,
                               _primary_float(spent),
                               _recorded_float(entry.spent, _primary(spent)),
                               entry.child, entry.id))
    return out


def _books_lines(books: Books, entries: Iterable[Entry], tol: Fraction) -> list[LineVerdict]:
    state: AccumulatorState | OdometerState = books.start()
    out = []
    for entry in entries:
        _unsupported(books, entry)
        findings: list[Finding] = []
        if isinstance(state, AccumulatorState):
            state = state.add(entry.spend)
            reading: Guarantee | Exhausted | float = state.reading()
        else:
            assert isinstance(state, OdometerState)
            state = state.spend(entry.spend)
            reading = state.reading()
        if entry.reading is not None:
            findings += _reading(entry, reading, state, tol)
        verdict = worst([f.verdict for f in findings]) if entry.recorded else "replayed"
        name = "epsilon" if isinstance(reading, (float, Exhausted)) else _primary(reading)
        out.append(LineVerdict(entry.line, verdict, tuple(findings), None,
                               _primary_float(reading), _recorded_float(entry.reading, name),
                               entry.child, entry.id))
    return out


def _reading(entry: Entry, reading: Guarantee | Exhausted | float,
             state: AccumulatorState | OdometerState, tol: Fraction) -> list[Finding]:
    recorded = entry.reading
    assert recorded is not None
    if isinstance(reading, (float, Exhausted)) and state.reading_ball() is None:
        # no finite certified reading (+inf, or an exhausted accumulator): any finite
        # reported loss is below it
        return [Finding("reading", "unsafe", short_exact(r), "inf")
                for r in ([recorded] if isinstance(recorded, Fraction)
                          else list(recorded.values()))]
    if isinstance(reading, float):
        ball = state.reading_ball()
        assert ball is not None  # a finite float reading has an enclosure
        if not isinstance(recorded, Fraction):
            raise InterchangeError(entry.line, "reading", "an odometer's reading is a number")
        return [_loss("reading", recorded, (exact_lower(ball), exact_upper(ball)), tol)]
    assert not isinstance(reading, Exhausted)
    return _losses("reading", recorded, reading, state.reading_ball(), tol, entry.line)


def certify_transcript(transcript: Transcript, sha256: str,
                       tolerance: Fraction = TOLERANCE) -> Certificate:
    """The certificate of a parsed transcript (``sha256`` of its bytes)."""
    h = transcript.header
    try:
        books = (build_rule(h.name, h.parameters) if h.books == "rule"
                 else build_odometer(h.name, h.parameters))
    except MissingParameterError as error:
        raise InterchangeError(1, f"parameters.{error.name}", str(error)) from None
    except ParameterError as error:
        raise InterchangeError(1, f"parameters.{error.name}"
                               if error.name in h.parameters else h.books, str(error)) from None
    spec = [books.SPEC]
    if h.concurrent:
        if h.name not in CONCURRENT:
            raise InterchangeError(1, "concurrent", f"rule {h.name!r} is not proved valid for "
                                   "the concurrent composition of interactive mechanisms; "
                                   f"rules that are: {', '.join(sorted(CONCURRENT))}")
        spec += [CONCURRENT[h.name]] if CONCURRENT[h.name] not in spec else []
    try:
        lines = (_rule_lines(books, h, transcript.entries, tolerance)
                 if isinstance(books, Rule) else
                 _books_lines(books, transcript.entries, tolerance))
    except InterchangeError:
        raise
    except AdaptiveDPError as error:  # pragma: no cover - every spend is validated on read
        raise InterchangeError(0, "<replay>", str(error)) from None
    return Certificate(sha256, h.books, h.name, tuple(sorted(h.parameters.items())), h.mode,
                       h.neighbours, h.concurrent, tuple(spec), __version__, tolerance,
                       tuple(lines))


def certify_text(text: str, tolerance: Fraction = TOLERANCE) -> Certificate:
    """The certificate of a transcript given as text (its SHA-256 is that of the text's
    UTF-8 bytes: read files in binary, or without newline translation)."""
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    return certify_transcript(read_transcript(text.splitlines()), digest, tolerance)


def check_certificate(certificate: str, text: str) -> list[str]:
    """Re-verify a certificate against its transcript: the differences (empty when the
    certificate is exactly what certifying the transcript gives)."""
    try:
        claimed = json.loads(certificate)
    except json.JSONDecodeError as error:
        raise InterchangeError(0, "<certificate>", f"not valid JSON ({error.msg})") from None
    if not isinstance(claimed, dict):
        raise InterchangeError(0, "<certificate>", "expected a JSON object")
    tolerance = Fraction(str(claimed.get("tolerance", short_exact(TOLERANCE))))
    fresh = json.loads(certify_text(text, tolerance).to_json())
    differences = []
    for key in sorted(set(claimed) | set(fresh)):
        if claimed.get(key) != fresh.get(key):
            differences.append(f"{key}: certificate has {_short(claimed.get(key))}, "
                               f"recomputed {_short(fresh.get(key))}")
    return differences


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."
