"""Group privacy: CS2080-GroupPrivacy."""

from __future__ import annotations

from fractions import Fraction

from flint import arb

from adaptive_dp.errors import DeltaRangeError, UnsupportedGuaranteeError
from adaptive_dp.guarantees.composition import positive_count
from adaptive_dp.guarantees.definitions import ApproxDP, PureDP
from adaptive_dp.numerics import arb_of, enclose, exact_upper, round_up

__all__ = ["group_privacy"]


def group_privacy(guarantee: PureDP | ApproxDP, k: int) -> PureDP | ApproxDP:
    """CS2080-GroupPrivacy (Prop. 9 of the slides): "If M is epsilon-DP for individuals
    then it is k epsilon-DP for groups of k individuals"; for (epsilon, delta)-DP the
    standard extension (Vadhan, Lemma 2.2) gives "(k epsilon, k e^{(k-1) epsilon} delta)".

    epsilon is the exact k epsilon; the delta is certified and rounded up. A group delta
    >= 1 (a vacuous guarantee) raises ``DeltaRangeError`` rather than being clamped.
    """
    count = positive_count(k)
    if isinstance(guarantee, PureDP):
        return PureDP(count * guarantee.epsilon)
    if not isinstance(guarantee, ApproxDP):
        raise UnsupportedGuaranteeError(
            f"guarantee={guarantee!r} is a {type(guarantee).__name__}: "
            "expected PureDP or ApproxDP"
        )
    eps, delta = guarantee.epsilon, guarantee.delta
    if delta == 0:
        return ApproxDP(count * eps, 0)

    def evaluate() -> arb:
        return count * ((count - 1) * arb_of(eps)).exp() * arb_of(delta)

    upper = exact_upper(enclose(evaluate))
    group_delta = Fraction(round_up(upper))
    if group_delta >= 1:
        raise DeltaRangeError(
            "k e^{(k-1) epsilon} delta", float(upper), "< 1 (group privacy is vacuous here)"
        )
    return ApproxDP(count * eps, group_delta)
