"""Reading spends (guarantee values or plain numbers) into exact parameters.

Shared by the accumulators, the odometers and the filters (which sit one row above in
the import order). Every function raises UnsupportedGuaranteeError for a kind the rule
does not support; numbers are read as the rule's primary parameter.
"""

from __future__ import annotations

from fractions import Fraction

from adaptive_dp.errors import UnsupportedGuaranteeError
from adaptive_dp.guarantees.definitions import (
    GDP,
    RDP,
    ZCDP,
    ApproxDP,
    ApproxZCDP,
    ProbabilisticDP,
    PureDP,
    RDPCurve,
)
from adaptive_dp.numerics import exact_delta, exact_nonnegative

__all__ = [
    "as_approx",
    "as_gdp",
    "as_pdp",
    "as_pure",
    "as_rdp",
    "as_zcdp",
    "unsupported",
]

_NUMBER = (int, float, str, Fraction)


def _is_number(x: object) -> bool:
    from decimal import Decimal

    return isinstance(x, (*_NUMBER, Decimal)) and not isinstance(x, bool)


def unsupported(owner: str, spend: object) -> UnsupportedGuaranteeError:
    """The error for a spend kind ``owner`` does not accept."""
    return UnsupportedGuaranteeError(f"{owner} does not accept {type(spend).__name__} spends")


def as_pure(spend: object, owner: str) -> Fraction:
    """epsilon of a pure-DP spend (PureDP, ApproxDP with delta 0, or a number)."""
    if isinstance(spend, PureDP):
        return spend.epsilon
    if isinstance(spend, ApproxDP) and spend.delta == 0:
        return spend.epsilon
    if _is_number(spend):
        return exact_nonnegative(spend, "epsilon")
    raise unsupported(owner, spend)


def _pair(spend: tuple[object, ...]) -> tuple[Fraction, Fraction]:
    if len(spend) != 2:
        raise UnsupportedGuaranteeError(f"a spend tuple must be (epsilon, delta), got {spend!r}")
    return exact_nonnegative(spend[0], "epsilon"), exact_delta(spend[1], "delta")


def as_approx(spend: object, owner: str) -> tuple[Fraction, Fraction]:
    """(epsilon, delta) of an approximate-DP spend: PureDP, ApproxDP, ProbabilisticDP
    (pDP implies DP with the same parameters), a number (delta 0) or a pair."""
    if isinstance(spend, PureDP):
        return spend.epsilon, Fraction(0)
    if isinstance(spend, (ApproxDP, ProbabilisticDP)):
        return spend.epsilon, spend.delta
    if isinstance(spend, tuple):
        return _pair(spend)
    if _is_number(spend):
        return exact_nonnegative(spend, "epsilon"), Fraction(0)
    raise unsupported(owner, spend)


def as_pdp(spend: object, owner: str) -> tuple[Fraction, Fraction]:
    """(epsilon, delta) of a conditionally pDP spend: PureDP (delta 0), ProbabilisticDP,
    a number or a pair. ApproxDP is refused: (epsilon, delta)-DP does not bound the
    realised loss at level epsilon (docs/derivations.md, section 2.8)."""
    if isinstance(spend, PureDP):
        return spend.epsilon, Fraction(0)
    if isinstance(spend, ProbabilisticDP):
        return spend.epsilon, spend.delta
    if isinstance(spend, ApproxDP) and spend.delta == 0:
        return spend.epsilon, Fraction(0)
    if isinstance(spend, tuple):
        return _pair(spend)
    if _is_number(spend):
        return exact_nonnegative(spend, "epsilon"), Fraction(0)
    raise unsupported(owner, spend)


def as_zcdp(spend: object, owner: str, *, approximate: bool) -> tuple[Fraction, Fraction]:
    """(rho, delta) of a zCDP spend. ZCDP, a number (rho), PureDP (epsilon^2/2,
    R23-Lem2.3 / Bun-Steinke); with ``approximate``: ApproxZCDP and ApproxDP
    (delta-approximate epsilon^2/2-zCDP, R23-Lem2.3 (i))."""
    if isinstance(spend, ZCDP):
        return spend.rho, Fraction(0)
    if isinstance(spend, PureDP):
        return spend.epsilon**2 / 2, Fraction(0)
    if approximate and isinstance(spend, ApproxZCDP):
        return spend.rho, spend.delta
    if approximate and isinstance(spend, ApproxDP):
        return spend.epsilon**2 / 2, spend.delta
    if not approximate and isinstance(spend, (ApproxZCDP, ApproxDP)) and spend.delta == 0:
        rho = spend.rho if isinstance(spend, ApproxZCDP) else spend.epsilon**2 / 2
        return rho, Fraction(0)
    if _is_number(spend):
        return exact_nonnegative(spend, "rho"), Fraction(0)
    raise unsupported(owner, spend)


def as_rdp(spend: object, alpha: Fraction, owner: str) -> Fraction:
    """epsilon at order ``alpha`` of an RDP spend: RDP at that order, an RDPCurve that
    contains it, ZCDP (rho alpha, H23-Def4.4), or a number."""
    if isinstance(spend, RDP):
        if spend.alpha != alpha:
            raise UnsupportedGuaranteeError(
                f"{owner} tracks order alpha={alpha}, got an RDP spend at alpha={spend.alpha}"
            )
        return spend.epsilon
    if isinstance(spend, RDPCurve):
        for point in spend.points:
            if point.alpha == alpha:
                return point.epsilon
        raise UnsupportedGuaranteeError(f"{owner}: the RDP curve has no order alpha={alpha}")
    if isinstance(spend, ZCDP):
        return spend.rho * alpha
    if _is_number(spend):
        return exact_nonnegative(spend, "epsilon")
    raise unsupported(owner, spend)


def as_gdp(spend: object, owner: str) -> Fraction:
    """mu of a GDP spend (GDP or a number)."""
    if isinstance(spend, GDP):
        return spend.mu
    if _is_number(spend):
        return exact_nonnegative(spend, "mu")
    raise unsupported(owner, spend)
