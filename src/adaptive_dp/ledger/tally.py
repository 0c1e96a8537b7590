"""Running sums, held once: exact (:class:`Tally`) and float rounded up (:class:`FastTally`)."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from adaptive_dp.numerics.floats import BoolArray, Real, select

__all__ = ["FastTally", "Sums", "Tally", "TallyView"]

Sums = tuple[Fraction, ...]


@dataclass(frozen=True, slots=True)
class Tally:
    """Exact running sums of one session and the number of spends charged (O(1) updates)."""

    sums: Sums
    count: int = 0

    @staticmethod
    def zero(n: int) -> Tally:
        """``n`` sums at zero."""
        return Tally((Fraction(0),) * n)

    def plus(self, sums: Sums) -> Tally:
        """The tally after one more spend, whose sums are ``sums``."""
        return Tally(sums, self.count + 1)


class TallyView:
    """The read side shared by every exact ledger state (a filter's, an accumulator's,
    an odometer's): its ``tally``'s running sums and count."""

    __slots__ = ()
    tally: Tally

    @property
    def sums(self) -> Sums:
        """The exact running sums."""
        return self.tally.sums

    @property
    def count(self) -> int:
        """The number of spends charged."""
        return self.tally.count


@dataclass(frozen=True, slots=True)
class FastTally:
    """Float running sums of ``paths`` sessions, one array entry per path, every update
    rounded up (the scalar route of one session keeps a plain tuple of floats)."""

    sums: tuple[Real, ...]

    @staticmethod
    def zero(n: int, paths: int) -> FastTally:
        """``n`` sums at zero for ``paths`` sessions."""
        return FastTally(tuple(np.zeros(paths) for _ in range(n)))

    def keep(self, admitted: bool | BoolArray, after: tuple[Real, ...]) -> FastTally:
        """``after`` where ``admitted``, the current sums elsewhere (performance only:
        ``after`` itself where every path is admitted and it has an entry per path)."""
        if (not isinstance(admitted, bool) and admitted.all()
                and all(isinstance(a, np.ndarray) and a.shape == admitted.shape
                        for a in after)):
            return FastTally(after)
        return FastTally(
            tuple(select(admitted, a, s) for a, s in zip(after, self.sums, strict=True))
        )
