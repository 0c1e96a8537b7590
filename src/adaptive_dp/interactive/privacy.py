"""H23-Def1.7, H23-Def2.1, H23-Def2.2: privacy of interactive mechanisms, through
generalized probability distances on the exact (finite) distributions of views.

H23-Def2.1 (Vadhan-Zhang): "A generalized probability distance measure is a tuple
(D, <=, D) such that (D, <=) is a partially ordered set; D maps any two random variables
X, X' over the same measurable space to an element D(X, X') in D; (Postprocessing)
D(g(X), g(X')) <= D(X, X'); (Joint convexity) if D(X_i, X'_i) <= d for all i then
D(X_I, X'_I) <= d."  H23-Def2.2: M is d-D DP if "D(View(A <-> M(x)), View(A <-> M(x')))
<= d" for every adversary and neighbours.

Here distributions are finite mappings ``outcome -> Fraction`` (exact view distributions
from :func:`adaptive_dp.interactive.interaction.view_distribution`). Measures:
:class:`ApproxDPMeasure` (H23-Def1.7: (epsilon, delta) ordered componentwise; D(P, Q) <=
(epsilon, delta) iff sup_S P(S) - e^epsilon Q(S) <= delta in both orders, computed as
sum_w (P(w) - e^epsilon Q(w))_+ and certified), :class:`RDPMeasure` (H23-Def1.3 at a
fixed order, certified), :class:`ZCDPMeasure` (H23-Def4.4 on a finite grid of
orders: a necessary check, never a certificate of zCDP) and :class:`FDPMeasure`
(H23-Def3.2, exact trade-off curves of finite distributions, H23-Def3.1). The filters' test "M' is
d'-D DP" on declared guarantees is :func:`adaptive_dp.guarantees.lattice.within`.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Hashable, Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Protocol, cast

from flint import arb

from adaptive_dp.errors import OrderError
from adaptive_dp.guarantees.definitions import (
    RDP,
    ZCDP,
    ApproxDP,
    ProbabilisticDP,
    PureDP,
)
from adaptive_dp.numerics import (
    ExactLike,
    arb_of,
    ball_lower,
    ball_upper,
    enclose,
    exact,
    exact_upper,
)

if TYPE_CHECKING:
    from adaptive_dp.interactive.interaction import InteractiveAdversary
    from adaptive_dp.interactive.mechanism import FiniteInteractiveMechanism

__all__ = [
    "ApproxDPMeasure",
    "Distribution",
    "FDPMeasure",
    "ProbabilityDistance",
    "RDPMeasure",
    "ZCDPMeasure",
    "hockey_stick",
    "is_d_dp",
    "renyi_divergence",
    "tradeoff_at",
    "tradeoff_points",
]

Distribution = Mapping[Any, Fraction]


def _support(p: Distribution, q: Distribution) -> list[Hashable]:
    keys = set(p) | set(q)
    return sorted(keys, key=repr)


def _hockey_ball(p: Distribution, q: Distribution, epsilon: Fraction) -> arb:
    items = [(p.get(w, Fraction(0)), q.get(w, Fraction(0))) for w in _support(p, q)]

    def fn() -> arb:
        e = arb_of(epsilon).exp()
        total = arb(0)
        for a, b in items:
            term = arb_of(a) - e * arb_of(b)
            lo = term.lower()
            if lo >= 0:
                total += term
            elif term.upper() > 0:  # straddles 0: max(0, term) lies in [0, upper]
                total += arb(0).union(term.upper())
        return total

    return enclose(fn)


def hockey_stick(p: Distribution, q: Distribution, epsilon: ExactLike) -> float:
    """sup_S P(S) - e^epsilon Q(S) = sum_w (P(w) - e^epsilon Q(w))_+, rounded UP."""
    return max(0.0, ball_upper(_hockey_ball(p, q, exact(epsilon, "epsilon"))))


def renyi_divergence(p: Distribution, q: Distribution, alpha: ExactLike) -> float:
    """H23-Def1.2: D_alpha(P || Q) = 1/(alpha-1) log sum_w P(w)^alpha Q(w)^(1-alpha)
    (natural log, reading A1), rounded UP; +inf when P is not absolutely continuous
    with respect to Q."""
    a = exact(alpha, "alpha")
    if a <= 1:
        raise OrderError("alpha", alpha, "a Rényi order alpha > 1")
    items = [(p.get(w, Fraction(0)), q.get(w, Fraction(0))) for w in _support(p, q)]
    if any(pw > 0 and qw == 0 for pw, qw in items):
        return float("inf")

    def fn() -> arb:
        aa = arb_of(a)
        s = arb(0)
        for pw, qw in items:
            if pw > 0:
                s += (aa * arb_of(pw).log() + (1 - aa) * arb_of(qw).log()).exp()
        return s.log() / (aa - 1)

    return ball_upper(enclose(fn))


class ProbabilityDistance(Protocol):
    """H23-Def2.1: the poset order ``leq`` and the test D(P, Q) <= d (``holds``)."""

    def leq(self, d1: object, d2: object) -> bool: ...

    def holds(self, p: Distribution, q: Distribution, d: object) -> bool: ...


def _approx_pair(d: object) -> tuple[Fraction, Fraction]:
    if isinstance(d, PureDP):
        return d.epsilon, Fraction(0)
    if isinstance(d, (ApproxDP, ProbabilisticDP)):
        return d.epsilon, d.delta
    if isinstance(d, tuple) and len(d) == 2:
        return exact(d[0], "epsilon"), exact(d[1], "delta")
    raise TypeError(f"not an (epsilon, delta) parameter: {d!r}")


@dataclass(frozen=True, slots=True)
class ApproxDPMeasure:
    """H23-Def1.7 / H23-Def1.14: (epsilon1, delta1) <= (epsilon2, delta2) iff
    epsilon1 <= epsilon2 and delta1 <= delta2; D(P, Q) <= (epsilon, delta) iff
    P(S) <= e^epsilon Q(S) + delta for every S, in both orders of the pair (certified:
    an enclosure straddling delta fails)."""

    def leq(self, d1: object, d2: object) -> bool:
        e1, t1 = _approx_pair(d1)
        e2, t2 = _approx_pair(d2)
        return e1 <= e2 and t1 <= t2

    def holds(self, p: Distribution, q: Distribution, d: object) -> bool:
        eps, delta = _approx_pair(d)
        return all(
            exact_upper(_hockey_ball(a, b, eps)) <= delta for a, b in ((p, q), (q, p))
        )

    def slack(self, p: Distribution, q: Distribution, d: object) -> float:
        """delta minus the larger hockey-stick of the two orders, rounded DOWN."""
        eps, delta = _approx_pair(d)
        worst = max(
            ball_upper(_hockey_ball(a, b, eps)) for a, b in ((p, q), (q, p))
        )
        return ball_lower(enclose(lambda: arb_of(delta) - arb_of(worst)))


@dataclass(frozen=True, slots=True, init=False)
class RDPMeasure:
    """H23-RDPPoset / H23-Def1.3 at a fixed order alpha > 1 ("RDP as D DP"): ([0, inf], <=),
    D = D_alpha, checked in both orders of the pair (neighbouring is symmetric)."""

    alpha: Fraction

    def __init__(self, alpha: ExactLike) -> None:
        a = exact(alpha, "alpha")
        if a <= 1:
            raise OrderError("alpha", alpha, "a Rényi order alpha > 1")
        object.__setattr__(self, "alpha", a)

    def _eps(self, d: object) -> Fraction:
        if isinstance(d, RDP):
            if d.alpha != self.alpha:
                raise TypeError(f"RDP parameter at order {d.alpha}, measure at {self.alpha}")
            return d.epsilon
        return exact(d, "epsilon")

    def leq(self, d1: object, d2: object) -> bool:
        return self._eps(d1) <= self._eps(d2)

    def holds(self, p: Distribution, q: Distribution, d: object) -> bool:
        eps = float(self._eps(d))
        return all(
            renyi_divergence(a, b, self.alpha) <= eps for a, b in ((p, q), (q, p))
        )


@dataclass(frozen=True, slots=True)
class ZCDPMeasure:
    """H23-Def4.4 on a finite grid of orders: D(P, Q) <= rho checked as
    D_alpha(P || Q) <= rho alpha for every alpha in ``orders`` (both orders of the
    pair). A necessary condition only (zCDP quantifies over all alpha > 1)."""

    orders: tuple[Fraction, ...] = tuple(
        Fraction(a) for a in ("1.5", "2", "3", "5", "10", "20")
    )

    def _rho(self, d: object) -> Fraction:
        if isinstance(d, ZCDP):
            return d.rho
        return exact(d, "rho")

    def leq(self, d1: object, d2: object) -> bool:
        return self._rho(d1) <= self._rho(d2)

    def holds(self, p: Distribution, q: Distribution, d: object) -> bool:
        rho = self._rho(d)
        return all(
            renyi_divergence(a, b, alpha) <= float(rho * alpha)
            for alpha in self.orders
            for a, b in ((p, q), (q, p))
        )


def is_d_dp(
    measure: ProbabilityDistance,
    mechanism: FiniteInteractiveMechanism,
    adversaries: Iterable[InteractiveAdversary],
    pairs: Iterable[tuple[object, object]],
    d: object,
    *,
    max_rounds: int = 64,
) -> bool:
    """H23-Def2.2 / CS2080-InteractiveDP (with H23-Lem2.3): M is d-D DP iff "D(View(A <-> M(x)),
    View(A <-> M(x'))) <= d" for every adversary and neighbours; by Lem 2.3 deterministic
    adversaries suffice. Checked exactly (enumeration of a finite mechanism's views) for
    the given deterministic ``adversaries`` and neighbouring ``pairs``: a necessary
    condition, a certificate only when the adversaries exhaust the strategies."""
    from adaptive_dp.interactive.interaction import view_distribution

    for adversary in adversaries:
        for x, x_prime in pairs:
            p = view_distribution(adversary, mechanism, x, max_rounds=max_rounds)
            q = view_distribution(adversary, mechanism, x_prime, max_rounds=max_rounds)
            if not measure.holds(p, q, d):
                return False
    return True


def tradeoff_points(p: Distribution, q: Distribution) -> tuple[tuple[Fraction, Fraction], ...]:
    """H23-Def3.1 for finite distributions: the breakpoints (alpha, beta) of the
    trade-off function T(P, Q) (type I error under P, type II error under Q), exact.
    Neyman-Pearson: reject the outcomes in decreasing order of Q(w)/P(w) (randomizing on
    the boundary), so T is the convex, piecewise-linear curve through these points; the
    infimum is over alpha_phi <= alpha (reading A26)."""
    keys = _support(p, q)

    def order(w: Hashable) -> tuple[int, Fraction]:
        pw, qw = p.get(w, Fraction(0)), q.get(w, Fraction(0))
        if pw == 0:
            return (0, -qw)  # infinite ratio first
        return (1, -(qw / pw))

    points = [(Fraction(0), Fraction(1))]
    a, power = Fraction(0), Fraction(0)
    for w in sorted(keys, key=order):
        a += p.get(w, Fraction(0))
        power += q.get(w, Fraction(0))
        points.append((a, 1 - power))
    return tuple(points)


def tradeoff_at(points: tuple[tuple[Fraction, Fraction], ...], alpha: Fraction) -> Fraction:
    """T(P, Q)(alpha) by linear interpolation between the breakpoints (randomized tests)."""
    best = Fraction(1)
    for (a0, b0), (a1, b1) in itertools.pairwise(points):
        if a0 <= alpha <= a1:
            val = b0 if a1 == a0 else b0 + (b1 - b0) * (alpha - a0) / (a1 - a0)
            best = min(best, val)
        elif a1 < alpha:
            best = min(best, b1)
    return best


@dataclass(frozen=True, slots=True)
class FDPMeasure:
    """H23-Def3.2 / H23-FDPPoset as a generalized distance (H23 "f-DP as D DP"): trade-off functions
    ordered by f1 <= f2 iff f1(alpha) >= f2(alpha) for all alpha ("a larger trade-off
    function means less privacy loss"), checked on ``grid``; D(P, Q) <= f iff
    T(P, Q) >= f, in both orders of the pair. For a convex f it suffices to compare at
    the breakpoints of T (T - f is concave between them), so ``holds`` is exact up to
    the float evaluation of f (slack 1e-12)."""

    grid: tuple[float, ...] = tuple(i / 200 for i in range(201))

    def leq(self, d1: object, d2: object) -> bool:
        f1 = cast(Callable[[float], float], d1)
        f2 = cast(Callable[[float], float], d2)
        return all(f1(a) >= f2(a) for a in self.grid)

    def holds(self, p: Distribution, q: Distribution, d: object) -> bool:
        f = cast(Callable[[float], float], d)
        for a, b in ((p, q), (q, p)):
            for alpha, beta in tradeoff_points(a, b):
                if float(beta) < f(float(alpha)) - 1e-12:
                    return False
        return True
