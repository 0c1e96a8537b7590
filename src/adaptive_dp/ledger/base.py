"""The :class:`Ledger`: which spends a rule takes and what each adds to its sums."""

from __future__ import annotations

import math
from collections.abc import Iterator
from fractions import Fraction
from typing import ClassVar

from adaptive_dp.errors import UnsupportedGuaranteeError
from adaptive_dp.guarantees.lattice import Measure, implies, spend_in
from adaptive_dp.guarantees.spends import Spend
from adaptive_dp.ledger.tally import Sums, Tally
from adaptive_dp.numerics.floats import Flag, Real, add_up, both, finite_at_least

__all__ = ["Ledger"]

# The float path's delta must lie below this: [0, 1), or {0} for a measure without delta.
_DELTA_TOP = {m: 1.0 for m in Measure} | {
    m: math.ulp(0.0) for m in (Measure.PURE, Measure.ZCDP, Measure.RDP, Measure.GDP)
}


class Ledger:
    """The books of a filter, accumulator or odometer (subclasses are frozen slotted
    dataclasses).

    ``MEASURE`` is the measure the books are kept in: a spend is supported iff it implies
    a guarantee of that measure (:func:`~adaptive_dp.guarantees.lattice.implies`), and its
    parameters in that measure give the increments of the ``N_SUMS`` running sums
    (``_increments``; a rule with several kinds of rounds overrides ``_charge``). The float
    fast path takes the measure's primary parameter and delta per session and adds the
    rounded-up ``_fast_increments``; a request with a NaN, infinite or negative value, or a
    delta outside [0, 1), is invalid and never charged.
    """

    __slots__ = ()
    SPEC: ClassVar[str] = ""
    N_SUMS: ClassVar[int] = 1
    MEASURE: ClassVar[Measure]
    DELTA_TOP: ClassVar[float] = 1.0
    """The float path's deltas lie in [0, DELTA_TOP): 1, or the smallest float for a
    measure without delta (so only 0); set from ``MEASURE``."""

    def __init_subclass__(cls) -> None:
        measure = cls.__dict__.get("MEASURE")
        if isinstance(measure, Measure):
            cls.DELTA_TOP = _DELTA_TOP[measure]

    # -- exact ------------------------------------------------------------------------
    def _alpha(self) -> Fraction | None:
        """The Rényi order of an RDP ledger."""
        return None

    def _increments(self, params: Sums) -> Sums:
        """The increments of the sums from the spend's parameters in ``MEASURE``."""
        return params

    def _charge(self, spend: Spend) -> Sums | None:
        """The increments of one spend, or None if it is not supported."""
        params = implies(spend, self.MEASURE, self._alpha())
        return None if params is None else self._increments(params)

    def _combine(self, sums: Sums, increments: Sums) -> Sums:
        """The sums after one spend: elementwise addition (exact)."""
        return tuple(a + b for a, b in zip(sums, increments, strict=True))

    def supports(self, spend: Spend) -> bool:
        """Whether this ledger takes ``spend`` (a query; nothing is charged)."""
        return self._charge(spend) is not None

    def unsupported(self, spend: Spend) -> str:
        """Why ``spend`` is not supported (for error messages)."""
        alpha = self._alpha()
        books = self.MEASURE.value + ("" if alpha is None else f" at alpha={alpha}")
        given = getattr(spend, "alpha", None)
        what = (f"an RDP spend at alpha={given}" if given is not None
                else f"a {type(spend).__name__} spend")
        return (
            f"{type(self).__name__} ({self.SPEC}) keeps its books in {books}; "
            f"{what} implies no such guarantee"
        )

    def increments(self, spend: Spend) -> Sums:
        """The increments of ``spend``; UnsupportedGuaranteeError if not supported."""
        found = self._charge(spend)
        if found is None:
            raise UnsupportedGuaranteeError(self.unsupported(spend))
        return found

    def after(self, tally: Tally, spend: Spend) -> Sums:
        """The sums of ``tally`` with ``spend`` added (validated, exact)."""
        return self._combine(tally.sums, self.increments(spend))

    def after_each(self, tally: Tally, spend: Spend, count: int) -> Iterator[Tally]:
        """The tallies after each of ``count`` more spends of ``spend``: :meth:`after`
        ``count`` times, the increments validated and computed once (exact)."""
        increments = self.increments(spend)
        for _ in range(count):
            tally = tally.plus(self._combine(tally.sums, increments))
            yield tally

    def primary(self, value: float | Fraction, delta: float | Fraction = 0) -> Spend | None:
        """The spend whose primary parameter in ``MEASURE`` is ``value`` with ``delta``
        (None where the measure has no delta and ``delta`` is not 0)."""
        return spend_in(self.MEASURE, value, delta, self._alpha())

    # -- float ------------------------------------------------------------------------
    def _fast_increments(self, primary: Real, delta: Real) -> tuple[Real, ...]:
        """Rounded-up float increments of a spend of primary parameter and delta."""
        return (primary, delta)[: self.N_SUMS]

    def _fast_combine(self, sums: tuple[Real, ...], inc: tuple[Real, ...]) -> tuple[Real, ...]:
        """The float sums after one spend: elementwise addition rounded up."""
        if len(sums) == 1:  # the common one-sum ledger, without map's overhead
            return (add_up(sums[0], inc[0]),)
        return tuple(map(add_up, sums, inc))

    def fast_after(
        self, sums: tuple[Real, ...], primary: Real, delta: Real
    ) -> tuple[Flag, tuple[Real, ...]]:
        """(valid, sums after) for one request per session: ``valid`` is False where the
        request is NaN, infinite, negative or has a delta outside [0, 1) (outside {0} for
        a measure without delta)."""
        top = self.DELTA_TOP
        valid = both(finite_at_least(primary, 0.0), finite_at_least(delta, 0.0, top))
        return valid, self._fast_combine(sums, self._fast_increments(primary, delta))

    def scalar_after(
        self, sums: tuple[Real, ...], primary: float, delta: float
    ) -> tuple[Real, ...] | None:
        """:meth:`fast_after` for one session in Python floats (the scalar route): the
        sums after the request, or None where it is invalid."""
        if not (0.0 <= primary < math.inf and 0.0 <= delta < self.DELTA_TOP):
            return None  # NaN compares False
        return self._fast_combine(sums, self._fast_increments(primary, delta))
