"""EXT-CR21 (Cesar and Rogers 2021): the exponential mechanism by Gumbel noise, charged as
zCDP through bounded range.

Selection: add independent Gumbel(0, b) noise to every candidate's count and release the
argmax.  By the Gumbel-max identity the released index j has probability
``exp(u_j / b) / sum_k exp(u_k / b)`` (a softmax of the counts), so the privacy loss of
the release between neighbouring count vectors u, u' is
``L(j) = (u_j - u'_j)/b - log(Z/Z')``: every value of L lies in an interval of length
``(max_j d_j - min_j d_j)/b``, d = u - u'.

Which Gumbel scale gives which range, for counts of sensitivity 1 (each user changes
each count by at most 1):

* add/remove one user (``relation="add-remove"``): every count moves the same way
  (all d_j in [0, 1], or all in [-1, 0]), so the range is at most ``1/b``; the scale
  ``b = 1/epsilon`` gives an epsilon-bounded-range mechanism;
* change one user's row (``relation="change-one"``): d_j in [-1, 1] with both signs
  possible, range at most ``2/b``; the scale ``b = 2/epsilon`` is needed.

EXT-CR21: "an epsilon-bounded-range mechanism is epsilon^2/8-zCDP", so the selection is
charged ``ZCDP(epsilon^2/8)`` (exact).  proofs/EXT-CR21.md derives both facts.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from adaptive_dp.errors import ParameterError
from adaptive_dp.guarantees.definitions import ZCDP
from adaptive_dp.numerics import ExactLike, exact_positive, round_up

__all__ = ["RELATIONS", "ExponentialMechanism", "Relation", "range_sensitivity"]

Relation = Literal["add-remove", "change-one"]
RELATIONS: tuple[Relation, ...] = ("add-remove", "change-one")


def range_sensitivity(relation: str) -> Fraction:
    """EXT-CR21: the range sensitivity max_j d_j - min_j d_j of sensitivity-1 counts:
    1 under add/remove (monotone changes), 2 under change-one-row."""
    if relation == "add-remove":
        return Fraction(1)
    if relation == "change-one":
        return Fraction(2)
    raise ParameterError("relation", relation, f"one of {RELATIONS}")


@dataclass(frozen=True, slots=True, init=False)
class ExponentialMechanism:
    """EXT-CR21 (Cesar-Rogers 2021): "an epsilon-bounded-range mechanism is
    epsilon^2/8-zCDP"; the exponential mechanism on sensitivity-1 counts by Gumbel noise.

    ``epsilon`` is the bounded-range parameter; the Gumbel scale is
    ``range_sensitivity(relation) / epsilon`` rounded UP (more noise: a smaller range),
    1/epsilon under add/remove and 2/epsilon under change-one-row.  ``guarantee()`` is
    ``ZCDP(epsilon^2/8)``, exact.
    """

    epsilon: Fraction
    relation: Relation

    def __init__(self, epsilon: ExactLike, relation: str = "add-remove") -> None:
        object.__setattr__(self, "epsilon", exact_positive(epsilon, "epsilon"))
        range_sensitivity(relation)
        object.__setattr__(self, "relation", relation)

    def _range(self) -> Fraction:
        """The range of the loss the Gumbel scale is calibrated to (private hook)."""
        return self.epsilon

    @property
    def scale(self) -> float:
        """The Gumbel scale b = range sensitivity / epsilon, rounded up."""
        return round_up(range_sensitivity(self.relation) / self._range())

    def guarantee(self) -> ZCDP:
        """EXT-CR21: ZCDP(epsilon^2/8), exact."""
        return ZCDP(self.epsilon * self.epsilon / 8)

    def select(
        self, counts: ArrayLike, rng: np.random.Generator, available: ArrayLike | None = None
    ) -> NDArray[np.int64]:
        """The argmax of counts + Gumbel(0, scale) along the last axis, one index per row.

        ``available`` (a boolean mask broadcast to ``counts``) restricts the candidates;
        unavailable ones never win.  Every row needs at least one available candidate.
        """
        u = np.asarray(counts, dtype=np.float64)
        noisy = u + rng.gumbel(0.0, self.scale, size=u.shape)
        if available is not None:
            mask = np.broadcast_to(np.asarray(available, dtype=bool), u.shape)
            if not np.all(np.any(mask, axis=-1)):
                raise ParameterError("available", "a row with no candidate", "a candidate")
            noisy = np.where(mask, noisy, -np.inf)
        out: NDArray[np.int64] = np.argmax(noisy, axis=-1).astype(np.int64)
        return out
