"""OpenDP recorder: run an OpenDP 0.16 privacy filter session and write its budget
transcript (version 1, :mod:`adaptive_dp.transcript`).

The session is ``make_privacy_filter(make_fully_adaptive_composition(space, measure),
d_in, d_out)`` invoked on a scalar float (the data never matter: only the filter's
bookkeeping is recorded). Every submitted measurement becomes one transcript line:

- the spend is the measurement's ``map(d_in)``, the float OpenDP composes, written as the
  exact decimal of its binary value;
- ``decision`` is ``continue`` when the filter answered and ``halt`` when it refused
  (OpenDP's ``FailedFunction`` errors "filter is now exhausted: ..." and "filter is
  exhausted: ..."; every other error propagates);
- ``spent`` is the queryable's ``privacy_loss(d_in)`` after an admission (OpenDP answers
  no privacy-loss query once the filter is exhausted, so refused lines record none).

Header: the rule of ours with the same condition, with OpenDP's budget ``d_out`` as the
exact value of its float: ``MaxDivergence`` -> ``pure`` (sum of epsilons),
``ZeroConcentratedDivergence`` -> ``zcdp-sum`` (sum of rhos, H23-Thm4.10),
``Approximate(MaxDivergence)`` -> ``basic`` (sums of epsilons and deltas, H23-Cor3.5).
The mode is ``terminal``: an OpenDP 0.16 filter that refuses a query is exhausted and
refuses every later one (checked by ``tests/certify/test_recorders_opendp.py``).

Observed in OpenDP 0.16.0 (docs/results/recorders-opendp.md): the filter composes in
floats rounding every partial sum up, so a spend that fits the budget exactly can be
refused (0.1, 0.2, 0.1 against 0.4); a refused measurement is run on the data before the
refusal (its answer is withheld); with ``Approximate(MaxDivergence)`` a pending loss that
exceeds the budget in one coordinate only is not a refusal but an "unknown ordering"
error, which this recorder lets propagate.

:meth:`OpenDPFilterRecorder.submit` submits a stand-in measurement whose map is exactly
the given float (``make_user_measurement`` releasing a constant, which is 0-DP, so any
stated map is honest; OpenDP gates it behind the ``honest-but-curious`` feature, which it
enables); :meth:`OpenDPFilterRecorder.submit_measurement` submits any OpenDP measurement
on the same space.

OpenDP is imported inside the functions only: this module imports without it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from fractions import Fraction
from importlib import metadata
from typing import Any, Literal, TextIO, TypeAlias

from adaptive_dp.errors import ParameterError
from adaptive_dp.guarantees.definitions import ZCDP, ApproxDP, PureDP
from adaptive_dp.numerics import short_exact
from adaptive_dp.transcript import Header, Recorded, entry_line, header_line

__all__ = [
    "MEASURES",
    "PEER",
    "OpenDPFilterRecorder",
    "Parameter",
    "is_refusal",
    "peer_version",
    "record_filter_session",
]

PEER = "opendp"

Parameter: TypeAlias = float | tuple[float, float]
"""An OpenDP distance: a float (epsilon or rho) or an (epsilon, delta) pair."""

MEASURES: Mapping[str, str] = {
    "max-divergence": "pure",
    "zero-concentrated": "zcdp-sum",
    "approximate-max-divergence": "basic",
}
"""OpenDP output measures by our short name, with the rule of ours that has the same
admission condition."""

_REFUSALS = ("filter is now exhausted:", "filter is exhausted:")


def peer_version() -> str:
    """The installed OpenDP version."""
    return metadata.version("opendp")


def is_refusal(error: BaseException) -> bool:
    """Whether ``error`` is an OpenDP 0.16 privacy filter's refusal: a ``FailedFunction``
    whose message says the filter is (now) exhausted."""
    import opendp.prelude as dp

    return (isinstance(error, dp.OpenDPException)
            and getattr(error, "variant", None) == "FailedFunction"
            and str(getattr(error, "message", "")).startswith(_REFUSALS))


def _float(value: object, name: str) -> float:
    """A finite non-negative float, as OpenDP holds it (ints are converted exactly)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ParameterError(name, value, "a finite non-negative float")
    number = float(value)
    if isinstance(value, int) and number != value:
        raise ParameterError(name, value, "an integer a float holds exactly")
    if not math.isfinite(number) or number < 0:
        raise ParameterError(name, value, "a finite non-negative float")
    return number


def _parameter(value: object, pair: bool, name: str) -> Parameter:
    if not pair:
        return _float(value, name)
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        raise ParameterError(name, value, "an (epsilon, delta) pair of floats")
    return (_float(value[0], f"{name}.epsilon"), _float(value[1], f"{name}.delta"))


def _exact(value: Parameter) -> Recorded:
    """The exact value of OpenDP's float(s): a number, or epsilon and delta by name."""
    if isinstance(value, tuple):
        return {"epsilon": Fraction(value[0]), "delta": Fraction(value[1])}
    return Fraction(value)


class OpenDPFilterRecorder:
    """AUD-FilterModels: one OpenDP privacy-filter session and its transcript.

    ``measure``: a key of :data:`MEASURES`; ``budget``: OpenDP's ``d_out`` (a float, or an
    (epsilon, delta) pair of floats for ``approximate-max-divergence``); ``d_in``: the
    filter's input distance (absolute distance on a float scalar)."""

    def __init__(self, measure: str, budget: Parameter, *, d_in: float = 1.0,
                 source: str | None = None) -> None:
        if measure not in MEASURES:
            raise ParameterError("measure", measure, f"one of {', '.join(MEASURES)}")
        self.measure = measure
        self._pair = measure == "approximate-max-divergence"
        self.budget = _parameter(budget, self._pair, "budget")
        self.d_in = _float(d_in, "d_in")
        import opendp.prelude as dp

        dp.enable_features("contrib")
        self._dp: Any = dp
        self._space = (dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float))
        self._output_measure: Any = (
            dp.max_divergence() if measure == "max-divergence"
            else dp.zero_concentrated_divergence() if measure == "zero-concentrated"
            else dp.approximate(dp.max_divergence()))
        odometer = dp.c.make_fully_adaptive_composition(*self._space, self._output_measure)
        self._queryable: Any = dp.c.make_privacy_filter(odometer, d_in=self.d_in,
                                                        d_out=self.budget)(0.0)
        budget_exact = _exact(self.budget)
        parameters = ({k: short_exact(v) for k, v in budget_exact.items()}
                      if not isinstance(budget_exact, Fraction)
                      else {"rho" if measure == "zero-concentrated" else "epsilon":
                            short_exact(budget_exact)})
        call = (f"make_privacy_filter(make_fully_adaptive_composition(atom_domain(float), "
                f"absolute_distance(float), {self._output_measure}), d_in={self.d_in!r}, "
                f"d_out={self.budget!r})")
        self.header = Header("rule", MEASURES[measure], parameters, mode="terminal",
                             source=source or f"{PEER} {peer_version()}: {call}")
        self.decisions: list[Literal["continue", "halt"]] = []
        self._lines = [header_line(self.header)]

    def stand_in(self, parameter: Parameter) -> Any:
        """A measurement on the session's space whose ``map`` is ``parameter`` at every
        input distance: it releases the constant 0.0 (0-DP, so the stated map is honest)."""
        value = _parameter(parameter, self._pair, "parameter")
        dp = self._dp
        dp.enable_features("honest-but-curious")
        return dp.m.make_user_measurement(
            *self._space, self._output_measure,
            function=lambda _data: 0.0, privacy_map=lambda _d_in: value, TO=float)

    def submit(self, parameter: Parameter) -> bool:
        """Submit a stand-in measurement of privacy parameter ``parameter``; whether the
        filter answered."""
        return self.submit_measurement(self.stand_in(parameter))

    def submit_measurement(self, measurement: Any) -> bool:
        """Submit an OpenDP measurement on the session's space (its output measure the
        session's); record its ``map(d_in)``, the decision and the reported loss; whether
        the filter answered. Errors other than the filter's refusal propagate (nothing
        is recorded for them)."""
        used = _parameter(measurement.map(self.d_in), self._pair, "map(d_in)")
        spend = self._spend(used)
        try:
            self._queryable(measurement)
        except self._dp.OpenDPException as error:
            if not is_refusal(error):
                raise
            self.decisions.append("halt")
            self._lines.append(entry_line(spend, decision="halt"))
            return False
        loss = _parameter(self._queryable.privacy_loss(self.d_in), self._pair,
                          "privacy_loss(d_in)")
        self.decisions.append("continue")
        self._lines.append(entry_line(spend, decision="continue", spent=_exact(loss)))
        return True

    def _spend(self, used: Parameter) -> PureDP | ZCDP | ApproxDP:
        if isinstance(used, tuple):
            return ApproxDP(Fraction(used[0]), Fraction(used[1]))
        if self.measure == "zero-concentrated":
            return ZCDP(Fraction(used))
        return PureDP(Fraction(used))

    def transcript(self) -> str:
        """The transcript so far: the header and one line per submitted measurement."""
        return "\n".join(self._lines) + "\n"


def record_filter_session(measure: str, budget: Parameter, spends: Iterable[Parameter],
                          out: TextIO, *, d_in: float = 1.0) -> list[bool]:
    """Run an OpenDP filter of ``budget`` over stand-in measurements of ``spends`` (in
    order; every one is submitted, also after a refusal) and write its transcript to
    ``out``; the filter's decisions (True: answered)."""
    recorder = OpenDPFilterRecorder(measure, budget, d_in=d_in)
    decisions = [recorder.submit(spend) for spend in spends]
    out.write(recorder.transcript())
    return decisions
