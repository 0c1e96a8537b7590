"""Composition theorems for pure and approximate DP.

Spec ids: CS2080-BasicComp (and the (epsilon, delta) version on the CS2080-ApproxDP
slide), CS2080-ParallelComp (disjoint parts of the dataset), CS2080-AdvComp (with the
exact DRV10 constants), EXT-KOV15 (optimal homogeneous composition, Kairouz-Oh-Viswanath).
Certified with ``arb``, rounded toward more loss.

Method labels: ``"basic"``, ``"advanced"``, ``"kov15"``.
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction

from flint import arb

from adaptive_dp.errors import (
    DeltaRangeError,
    NegativeParameterError,
    ParameterTypeError,
)
from adaptive_dp.guarantees.definitions import ApproxDP, PureDP
from adaptive_dp.guarantees.lattice import Measure, require
from adaptive_dp.numerics import (
    ExactLike,
    arb_of,
    ball_upper,
    enclose,
    exact_delta,
    exact_upper,
    format_exact,
)
from adaptive_dp.numerics.search import last_true

__all__ = [
    "compose_advanced",
    "compose_basic",
    "compose_kov",
    "compose_parallel",
    "kov_delta_ball",
    "positive_count",
]


def positive_count(value: object, name: str = "k") -> int:
    """A count k >= 1 (bools, floats and strings are rejected)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ParameterTypeError(name, value, "an int >= 1")
    if value < 1:
        raise NegativeParameterError(name, value, "an int >= 1")
    return value


def compose_basic(guarantees: Iterable[PureDP | ApproxDP]) -> PureDP | ApproxDP:
    """CS2080-BasicComp: "If M_i is epsilon_i-DP for i = 1..k, then (M_1, ..., M_k) is
    (epsilon_1 + ... + epsilon_k)-DP" (independent randomness, adaptive queries allowed);
    for (epsilon_i, delta_i)-DP (CS2080-ApproxDP slide) "add the delta_i's".

    Exact sums. All ``PureDP`` (or an empty sequence) gives ``PureDP``; a total delta
    >= 1 raises ``DeltaRangeError``.
    """
    items = list(guarantees)
    pairs = [require(g, Measure.APPROX, name=f"guarantees[{i}]") for i, g in enumerate(items)]
    epsilon = sum((e for e, _ in pairs), Fraction(0))
    if all(isinstance(g, PureDP) for g in items):
        return PureDP(epsilon)
    delta = sum((d for _, d in pairs), Fraction(0))
    return ApproxDP(epsilon, exact_delta(delta, "sum of deltas"))


def compose_parallel(guarantees: Iterable[PureDP | ApproxDP]) -> PureDP | ApproxDP:
    """CS2080-ParallelComp: mechanisms applied to disjoint subsets of the dataset give
    "(max_j epsilon_j)-DP" (slide DP histograms, proof 1); (epsilon_j, delta_j)-DP parts
    give (max_j epsilon_j, max_j delta_j)-DP.

    Neighbours differ in one record (add/remove), which lies in at most one part, so only
    that part's release changes law. Exact maxima; all ``PureDP`` (or an empty sequence,
    which releases nothing: 0-DP) gives ``PureDP``.
    """
    items = list(guarantees)
    pairs = [require(g, Measure.APPROX, name=f"guarantees[{i}]") for i, g in enumerate(items)]
    epsilon = max((e for e, _ in pairs), default=Fraction(0))
    if all(isinstance(g, PureDP) for g in items):
        return PureDP(epsilon)
    return ApproxDP(epsilon, max(d for _, d in pairs))


def compose_advanced(
    guarantee: PureDP | ApproxDP, k: int, delta_slack: ExactLike
) -> ApproxDP:
    """CS2080-AdvComp (Dwork-Rothblum-Vadhan 2010, exact constants): the k-fold
    composition of (epsilon, delta)-DP mechanisms is (epsilon', k delta + delta')-DP for
    every delta' > 0 with

        "epsilon' = epsilon sqrt(2 k ln(1/delta')) + k epsilon (e^epsilon - 1)".

    The slide states only the O-form and the regime k < 1/epsilon^2; the explicit DRV10
    bound holds for every k (it may exceed basic composition's k epsilon: use
    :func:`compose_basic` then). epsilon' is certified and rounded up; the delta is the
    exact k delta + delta' (``DeltaRangeError`` if it reaches 1).
    """
    eps, delta = require(guarantee, Measure.APPROX, name="guarantee")
    count = positive_count(k)
    slack = exact_delta(delta_slack, "delta_slack", allow_zero=False)
    total = exact_delta(count * delta + slack, "k delta + delta_slack")

    def evaluate() -> arb:
        e = arb_of(eps)
        return e * (2 * count * (-arb_of(slack).log())).sqrt() + count * e * e.expm1()

    return ApproxDP(ball_upper(enclose(evaluate)), total)


def kov_delta_ball(epsilon: Fraction, delta: Fraction, k: int, i: int) -> arb:
    """EXT-KOV15 (Kairouz-Oh-Viswanath 2015, Thm. 3.3), one term: the total delta
    "1 - (1 - delta)^k (1 - delta_i)" with
    "delta_i = sum_{l=0}^{i-1} C(k, l) (e^{(k-l) eps} - e^{(k-2i+l) eps}) / (1 + e^eps)^k",
    as a certified ball."""

    def evaluate() -> arb:
        q = (-arb_of(epsilon)).exp()
        # Divide numerator and denominator by e^{k eps}: the l-th term becomes
        # C(k, l) (q^l - q^{2i-l}) / (1 + q)^k with q = e^{-eps}; the binomial weight
        # C(k, l) / (1 + q)^k is updated by the ratio (k - l)/(l + 1), so nothing overflows.
        weight = 1 / (1 + q) ** k
        low = arb(1)  # q^l
        high = q ** (2 * i)  # q^{2i-l}
        total = arb(0)
        for j in range(i):
            total += weight * (low - high)
            weight = weight * (k - j) / (j + 1)
            low = low * q
            high = high / q
        return 1 - (1 - arb_of(delta)) ** k * (1 - total)

    return enclose(evaluate)


def compose_kov(guarantee: PureDP | ApproxDP, k: int, delta_total: ExactLike) -> ApproxDP:
    """EXT-KOV15 (Kairouz-Oh-Viswanath 2015, Thm. 3.3, optimal homogeneous composition):
    for i = 0, ..., floor(k/2), the k-fold composition of (epsilon, delta)-DP mechanisms is

        "((k - 2i) epsilon, 1 - (1 - delta)^k (1 - delta_i))-DP,
         delta_i = sum_{l=0}^{i-1} C(k, l) (e^{(k-l) eps} - e^{(k-2i+l) eps}) / (1 + e^eps)^k".

    Returns the smallest (k - 2i) epsilon (exact) whose certified total delta is
    <= ``delta_total``, with delta = ``delta_total`` (valid, since the true total is
    smaller). The totals increase with i, so i is found by bisection, O(k log k) terms.
    ``DeltaRangeError`` if even i = 0 (basic composition) needs more than delta_total.
    These are the theorem's grid points only; the exact optimum between them (and for
    differing epsilons) is :func:`adaptive_dp.guarantees.optimal.compose_optimal`
    (EXT-MV16).
    """
    eps, delta = require(guarantee, Measure.APPROX, name="guarantee")
    count = positive_count(k)
    target = exact_delta(delta_total, "delta_total")

    def fits(i: int) -> bool:
        if i == 0 and (delta == 0 or delta.denominator.bit_length() * count <= 200_000):
            return 1 - (1 - delta) ** count <= target  # i = 0 is rational: decide exactly
        return exact_upper(kov_delta_ball(eps, delta, count, i)) <= target

    if not fits(0):
        raise DeltaRangeError(
            "delta_total",
            delta_total,
            f">= 1 - (1 - delta)^k = {ball_upper(kov_delta_ball(eps, delta, count, 0))!r} "
            f"(delta = {format_exact(delta)}, k = {count})",
        )
    # fits(0) holds; every index > count // 2 is out of range
    best = last_true(fits, 0, count // 2 + 1)
    return ApproxDP((count - 2 * best) * eps, target)
