"""R23-Def4.1: ex-post privacy as an immutable value.

Seed 000, Definition 4.1: "A(.; y) is (E(.; y), delta(y))-ex-post private if for all
neighbours x ~ x' and all y, Pr[L(A(x; y)) > E(A(x; y); y)] <= delta(y)."  The inequality
is strict and E is a function of the released outcome.  The value kept here is the
realised E(y) (``epsilon``), the delta, and ``max_epsilon``: the supremum of E over every
outcome the mechanism can produce, known before it runs (docs/design.md, interchange format, line
``{"kind": "expost", "max_epsilon": ..., "epsilon": ..., "delta": ...}``).  Filters
pre-check ``max_epsilon`` and charge ``epsilon`` (R23-Lem5.2).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from adaptive_dp.errors import ParameterError
from adaptive_dp.numerics.exact import ExactLike, exact_delta, exact_nonnegative

__all__ = ["ExPost"]


@dataclass(frozen=True, slots=True, init=False)
class ExPost:
    """R23-Def4.1 (Rogers et al. 2023): (E(y), delta) ex-post privacy of one outcome y.

    "Pr[L(A(x; y)) > E(A(x; y); y)] <= delta(y)".  ``epsilon`` is the realised E(y),
    ``max_epsilon >= epsilon`` the worst case over outcomes (defaults to ``epsilon``),
    ``delta`` in [0, 1).  All exact, of type ``Fraction``.
    """

    epsilon: Fraction
    delta: Fraction
    max_epsilon: Fraction

    def __init__(
        self,
        epsilon: ExactLike,
        delta: ExactLike = 0,
        max_epsilon: ExactLike | None = None,
    ) -> None:
        eps = exact_nonnegative(epsilon, "epsilon")
        top = eps if max_epsilon is None else exact_nonnegative(max_epsilon, "max_epsilon")
        if top < eps:
            raise ParameterError(
                "max_epsilon", max_epsilon, f"a number >= the realised epsilon {eps}"
            )
        object.__setattr__(self, "epsilon", eps)
        object.__setattr__(self, "delta", exact_delta(delta, "delta"))
        object.__setattr__(self, "max_epsilon", top)
