"""EXT-MV16: exact optimal composition of (epsilon_i, delta_i)-DP mechanisms.

Murtagh-Vadhan 2016 (heterogeneous; Kairouz-Oh-Viswanath 2015 for equal epsilons): the
k-fold composition of (epsilon_i, delta_i)-DP mechanisms with parameters fixed in advance
is (epsilon_g, delta(epsilon_g))-DP, and no smaller delta is valid for all of them, with ::

    delta(eps_g) = 1 - prod_i (1 - delta_i) (1 - delta_pure(eps_g)),
    delta_pure(eps_g) = sum_{S subset [k]} max(0, e^{sum_{i not in S} eps_i}
                        - e^{eps_g} e^{sum_{i in S} eps_i}) / prod_i (1 + e^{eps_i}),

the hockey-stick divergence of the product of the randomized-response pairs. With
q_i = e^{-eps_i} the term of S is p(S) - e^{eps_g} p'(S), where
p(S) = prod_{i in S} q_i/(1+q_i) prod_{i not in S} 1/(1+q_i) <= 1 and p' the same with
the roles of S and its complement swapped; it is positive iff the loss
L(S) = E - 2 sum_{i in S} eps_i (E = sum_i eps_i) exceeds eps_g, decided exactly in
rationals. Equal epsilons are grouped, so subsets become count vectors with binomial
weights: ``prod_j (count_j + 1)`` terms, at most :data:`MAX_TERMS`. Only powers of q <= 1
appear, so nothing overflows. Certified in ``arb``, rounded toward more loss.
"""

from __future__ import annotations

import bisect
import math
import struct
from collections import Counter
from collections.abc import Sequence
from fractions import Fraction
from functools import reduce

from flint import arb, ctx

from adaptive_dp.errors import DeltaRangeError, NonFiniteResultError, ParameterError
from adaptive_dp.guarantees.definitions import ApproxDP, PureDP
from adaptive_dp.guarantees.lattice import Measure, require
from adaptive_dp.numerics import (
    ExactLike,
    arb_of,
    ball_upper,
    enclose,
    exact_delta,
    exact_lower,
    exact_nonnegative,
    exact_upper,
    round_up,
    working_precision,
)
from adaptive_dp.numerics.enclosure import MAX_PRECISION

__all__ = ["MAX_TERMS", "compose_optimal", "optimal_delta"]

MAX_TERMS = 100_000
"""The largest number of count vectors ``prod_j (count_j + 1)`` (count_j: how many
mechanisms share the j-th distinct epsilon) that :func:`optimal_delta` and
:func:`compose_optimal` sum; the exact problem is #P-hard in general (MV16)."""

_EXACT_PRODUCT_BITS = 200_000  # prod (1 - delta_i) is kept exact below this size


class _Composition:
    """The exact data of one composition: distinct epsilons with counts (in integer
    units 1/scale), the deltas, and the certified piece tables, one per precision."""

    def __init__(self, guarantees: Sequence[PureDP | ApproxDP]) -> None:
        pairs = [require(g, Measure.APPROX, name=f"guarantees[{i}]")
                 for i, g in enumerate(guarantees)]
        groups = sorted(Counter(e for e, _ in pairs if e > 0).items())
        terms = reduce(lambda n, group: n * (group[1] + 1), groups, 1)
        if terms > MAX_TERMS:
            raise ParameterError(
                "guarantees", f"{len(groups)} distinct epsilons with counts "
                f"{[c for _, c in groups]} ({terms} terms prod(count_j + 1))",
                f"at most MAX_TERMS = {MAX_TERMS} terms")
        self.scale = math.lcm(*(e.denominator for e, _ in groups))
        self.groups = groups
        self.units = [int(e * self.scale) for e, _ in groups]
        self.total = sum(u * c for u, (_, c) in zip(self.units, groups, strict=True))
        self.deltas = sorted(Counter(d for _, d in pairs if d > 0).items())
        size = sum(c * d.denominator.bit_length() for d, c in self.deltas)
        self.kept: Fraction | None = (  # prod (1 - delta_i), exact when small
            reduce(lambda p, dc: p * (1 - dc[0]) ** dc[1], self.deltas, Fraction(1))
            if size <= _EXACT_PRODUCT_BITS else None)
        self._tables: dict[int, tuple[list[int], list[arb], list[arb], arb]] = {}

    def epsilon_sum(self) -> Fraction:
        """E = sum_i eps_i (the largest loss; delta_pure vanishes from there on)."""
        return Fraction(self.total, self.scale)

    def table(self, bits: int) -> tuple[list[int], list[arb], list[arb], arb]:
        """At ``bits`` of precision: the negated positive losses -L (units 1/scale,
        increasing), prefix sums A_n = sum of p and B_n = sum of p' over the n largest
        losses, and prod_i (1 - delta_i). Call it holding ``working_precision(bits)``."""
        if bits not in self._tables:
            mass: dict[int, tuple[arb, arb]] = {0: (arb(1), arb(1))}
            for unit, (eps, count) in zip(self.units, self.groups, strict=True):
                q = (-arb_of(eps)).exp()
                # binomial weights C(c, j) q^j / (1 + q)^c, by the ratio (c - j) q / (j + 1)
                weights = [1 / (1 + q) ** count]
                for j in range(count):
                    weights.append(weights[-1] * (count - j) * q / (j + 1))
                step: dict[int, tuple[arb, arb]] = {}
                for s, (p, p2) in mass.items():
                    for j in range(count + 1):
                        key = s + j * unit
                        a, b = step.get(key, (arb(0), arb(0)))
                        step[key] = (a + p * weights[j], b + p2 * weights[count - j])
                mass = step
            # S carries sum_{i in S} eps_i = s / scale; its loss is E - 2 s / scale
            losses = sorted((2 * s - self.total, pq) for s, pq in mass.items()
                            if 2 * s < self.total)
            first, second, a, b = [], [], arb(0), arb(0)
            for _, (p, p2) in losses:
                a, b = a + p, b + p2
                first.append(a)
                second.append(b)
            self._tables[bits] = ([n for n, _ in losses], first, second, self.kept_ball())
        return self._tables[bits]

    def kept_ball(self) -> arb:
        """prod_i (1 - delta_i) at the current precision."""
        return reduce(lambda k, dc: k * (1 - arb_of(dc[0])) ** dc[1], self.deltas, arb(1))

    def delta_ball(self, epsilon: Fraction, bits: int) -> arb | None:
        """delta(epsilon) at ``bits``; None when no loss exceeds epsilon (delta_pure = 0:
        the total is 1 - prod (1 - delta_i))."""
        negated, first, second, kept = self.table(bits)
        n = bisect.bisect_left(negated, -epsilon * self.scale)  # losses > epsilon
        if n == 0:
            return None
        pure = first[n - 1] - arb_of(epsilon).exp() * second[n - 1]
        return 1 - kept * (1 - pure)

    def fits(self, epsilon: Fraction, target: Fraction) -> bool | None:
        """Whether delta(epsilon) <= target, certified (None: undecided at the largest
        precision, i.e. within an enclosure's width of equality)."""
        bits = 128
        while True:
            with working_precision(bits):  # endpoints too: they round at the context's
                ball = self.delta_ball(epsilon, bits)
                if ball is None:
                    if self.kept is not None:
                        return 1 - self.kept <= target
                    ball = 1 - self.table(bits)[3]
                upper, lower = exact_upper(ball), exact_lower(ball)
            if upper <= target:
                return True
            if lower > target:
                return False
            if bits >= MAX_PRECISION:
                return None
            bits *= 2


def optimal_delta(guarantees: Sequence[PureDP | ApproxDP], epsilon: ExactLike) -> float:
    """EXT-MV16 (Murtagh-Vadhan 2016; KOV15 for equal epsilons): the optimal total delta
    of composing ``guarantees`` (parameters fixed in advance) at ``epsilon``,

        "delta(eps_g) = 1 - prod_i (1 - delta_i) (1 - delta_pure(eps_g))",

    certified and rounded up. ``ParameterError`` above :data:`MAX_TERMS` count vectors.
    """
    composition = _Composition(guarantees)
    eps = exact_nonnegative(epsilon, "epsilon")

    def evaluate() -> arb:
        ball = composition.delta_ball(eps, ctx.prec)  # enclose holds the precision
        return ball if ball is not None else 1 - composition.table(ctx.prec)[3]

    return ball_upper(enclose(evaluate))


def _bits(x: float) -> int:
    """The order-preserving integer of a float >= 0."""
    return int(struct.unpack("<q", struct.pack("<d", x))[0])


def _float(n: int) -> float:
    return float(struct.unpack("<d", struct.pack("<q", n))[0])


def compose_optimal(
    guarantees: Sequence[PureDP | ApproxDP], delta_total: ExactLike
) -> ApproxDP:
    """EXT-MV16 (Murtagh-Vadhan 2016, optimal heterogeneous composition; KOV15 for equal
    epsilons): the smallest epsilon_g with delta(epsilon_g) <= ``delta_total`` for the
    composition of ``guarantees`` (parameters fixed in advance), as a float rounded up,
    with delta = ``delta_total``.

    delta(eps_g) is continuous and decreasing. A bisection over the floats (on their
    bit patterns) keeps its upper end certified (the upper end of the enclosure of
    delta there is <= ``delta_total``) and stops at adjacent floats, so the predecessor
    of the answer is not certified; it (or the float below it) is certified NOT to
    satisfy the bound at up to ``MAX_PRECISION`` bits, so the answer is within 2 ulps
    above the exact optimum (``NonFiniteResultError`` if neither can be decided).
    ``DeltaRangeError`` when even eps_g = sum eps_i needs more (delta_total below
    1 - prod (1 - delta_i)); ``ParameterError`` above :data:`MAX_TERMS`.
    """
    composition = _Composition(guarantees)
    target = exact_delta(delta_total, "delta_total")
    top = round_up(composition.epsilon_sum())
    if math.isinf(top):
        raise NonFiniteResultError("the sum of the epsilons is beyond the float range")
    if composition.fits(Fraction(top), target) is not True:
        basic = ball_upper(enclose(lambda: 1 - composition.kept_ball()))
        raise DeltaRangeError(
            "delta_total", delta_total, f">= 1 - prod_i (1 - delta_i) = {basic!r} "
            f"(the delta at epsilon = sum epsilon_i = {top!r})")

    def fits(n: int) -> bool | None:
        return composition.fits(Fraction(_float(n)), target)

    below = fits(0)
    if below is True:
        return ApproxDP(0, target)
    low, high = 0, _bits(top)  # fits(high) is True, fits(low) is not
    while high - low > 1:
        middle = (low + high) // 2
        verdict = fits(middle)
        if verdict is True:
            high = middle
        else:
            low, below = middle, verdict
    if below is None and low > 0 and fits(low - 1) is not False:
        # delta within an enclosure's width at MAX_PRECISION of delta_total at two floats
        raise NonFiniteResultError("the optimal epsilon cannot be certified within 2 ulps")
    return ApproxDP(_float(high), target)
