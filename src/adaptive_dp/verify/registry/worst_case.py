"""Exact worst cases of a claim's quantity over adaptive strategies (issue 16, item 1).

Two oracles give the number a claim's ``Setup.exact_worst`` reports (in the units of
its claimed value), so a reader sees how much of a theorem's delta an adversary can use:

- :func:`rr_lattice_worst`: pure-DP requests from a finite menu of epsilons, at most
  ``horizon`` admitted, through a continuation rule (a filter) deciding on the
  epsilons admitted so far. Every eps-DP pair of distributions is a post-processing of
  randomized response at eps (EXT-RandomizedResponse, the dominating pair of EXT-KOV15), so an
  adaptive interaction with eps_i-DP mechanisms is a post-processing of one with
  randomized responses at the same eps_i and a randomized adversary (the simulation's
  coins have the same law under x and x', hence loss 0); by the data-processing
  inequality its hockey-stick or maximal loss is at most the randomized-response one,
  and a randomized adversary does no better than the best deterministic one in a
  finite Markov decision problem. Randomized response is symmetric in the two bits,
  so both orders of the pair give the same value. The problem's state is the count of
  each menu epsilon admitted and the running loss L (an exact rational: each release
  adds +eps_j with P_x-probability e^eps_j / (1 + e^eps_j), -eps_j otherwise); its
  value is solved backwards with every probability and payoff a python-flint ``arb``
  ball (rigorous: the ball contains the exact value; reported as a float above it).
  The optimal policy (a menu index, or :data:`STOP`, per reached state) is returned
  and run by :class:`adaptive_dp.verify.judge.exact_adversaries.LatticePolicy`.
- :func:`gaussian_budget_worst` and :func:`brownian_first_passage`: Gaussian rounds
  (mu chosen adaptively, sum mu^2 <= S). Under P_x the loss is L_s = s/2 + W_s at the
  spent s (EXT-DRS19), and e^{-L} is a P_x-martingale; the hockey-stick payoff
  (1 - e^{eps - L})_+ is convex in e^{-L}, so by conditional Jensen every stopping of
  the spend at s <= S is beaten by spending all of S: the worst hockey-stick is the
  Gaussian mechanism's delta at mu = sqrt(S), attained by any strategy that spends the
  budget. The tail P[L > eps] instead is maximised by stopping at the first passage of
  eps; with steps that may be arbitrarily small its supremum is the first-passage
  probability of a Brownian motion with drift 1/2 by time S.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from fractions import Fraction

import mpmath
from flint import arb

from adaptive_dp.filters.base import FastFilterState, FilterState, Rule
from adaptive_dp.guarantees.definitions import PureDP
from adaptive_dp.loss.gaussian import gaussian_hockey_stick_mp
from adaptive_dp.numerics.enclosure import arb_of, working_precision
from adaptive_dp.numerics.rounding import ball_upper, round_up
from adaptive_dp.verify.judge.claim import Claim, Setup
from adaptive_dp.verify.judge.exact_adversaries import STOP, LatticePolicy

__all__ = [
    "STOP",
    "Admits",
    "LatticeWorst",
    "Payoff",
    "brownian_first_passage",
    "fast_rule_admits",
    "filter_largest_loss",
    "filter_worst",
    "gaussian_budget_worst",
    "hockey_stick_payoff",
    "largest_loss",
    "rr_lattice_worst",
    "rule_admits",
    "tail_payoff",
    "with_exact_worst",
]

Counts = tuple[int, ...]
Admits = Callable[[Counts, int], bool]
"""``admits(counts, j)``: does the rule, having admitted ``counts[i]`` requests of
menu[i], admit a request of menu[j] next."""
Payoff = Callable[[Fraction], arb]
"""The claim's statistic of a final loss L (an exact rational), as a ball."""

_PRECISION = 128


def hockey_stick_payoff(epsilon: Fraction) -> Payoff:
    """(1 - e^{eps - L})_+: its P_x-mean is the hockey-stick at ``epsilon``."""
    def payoff(loss: Fraction) -> arb:
        return arb(0) if loss <= epsilon else 1 - (arb_of(epsilon - loss)).exp()
    return payoff


def tail_payoff(epsilon: Fraction) -> Payoff:
    """1[L > eps]: its P_x-mean is the tail at ``epsilon``."""
    return lambda loss: arb(1 if loss > epsilon else 0)


@dataclass(frozen=True, slots=True)
class LatticeWorst:
    """The exact worst case of :func:`rr_lattice_worst`: ``value`` (a ball containing
    it) and ``policy``, the optimal adversary on the states it reaches."""

    value: arb
    policy: LatticePolicy

    def upper(self) -> float:
        """The smallest float >= every point of the ball (hence >= the worst case)."""
        return ball_upper(self.value)


def _check(menu: tuple[float, ...], horizon: int) -> tuple[Fraction, ...]:
    if not menu or any(not e > 0 for e in menu) or len(set(menu)) != len(menu):
        raise ValueError(f"menu={menu!r} is not allowed: expected distinct epsilons > 0")
    if horizon < 1:
        raise ValueError(f"horizon={horizon!r} is not allowed: expected horizon >= 1")
    return tuple(Fraction(e) for e in menu)


def _plus(counts: Counts, j: int) -> Counts:
    return (*counts[:j], counts[j] + 1, *counts[j + 1:])


def rr_lattice_worst(menu: tuple[float, ...], horizon: int, admits: Admits,
                     payoff: Payoff) -> LatticeWorst:
    """The largest E_x[payoff(L)] over adaptive strategies of at most ``horizon``
    admitted pure-DP requests whose epsilons are taken from ``menu`` (module
    docstring); stopping is always allowed, refused requests are never made."""
    eps = _check(menu, horizon)
    unit = math.lcm(*(e.denominator for e in eps))  # losses are integers in 1/unit
    steps = [int(e * unit) for e in eps]
    value: dict[tuple[Counts, int], arb] = {}
    act: dict[tuple[Counts, int], int] = {}
    with working_precision(_PRECISION):
        p_up = [1 / (1 + arb_of(-e).exp()) for e in eps]  # P_x[loss +eps_j]

        def solve(counts: Counts, loss: int) -> arb:
            key = (counts, loss)
            if key in value:
                return value[key]
            stop = payoff(Fraction(loss, unit))
            best, best_value, out = STOP, stop, stop
            if sum(counts) < horizon:
                for j, step in enumerate(steps):
                    if not admits(counts, j):
                        continue
                    after = _plus(counts, j)
                    q = (p_up[j] * solve(after, loss + step)
                         + (1 - p_up[j]) * solve(after, loss - step))
                    out = out.max(q)
                    if q.mid() > best_value.mid():
                        best, best_value = j, q
            value[key], act[key] = out, best
            return out

        root = solve((0,) * len(eps), 0)
    return LatticeWorst(root, _policy(menu, horizon, steps, act))


def _policy(menu: tuple[float, ...], horizon: int, steps: list[int],
            act: dict[tuple[Counts, int], int]) -> LatticePolicy:
    """The optimal actions on the (counts, plus counts) states the policy reaches."""
    table: dict[tuple[Counts, Counts], int] = {}
    stack: list[tuple[Counts, Counts]] = [((0,) * len(steps), (0,) * len(steps))]
    while stack:
        counts, ups = stack.pop()
        if (counts, ups) in table:
            continue
        loss = sum(e * (2 * u - c) for e, u, c in zip(steps, ups, counts, strict=True))
        j = act[(counts, loss)]
        table[(counts, ups)] = j
        if j != STOP:
            stack.append((_plus(counts, j), _plus(ups, j)))
            stack.append((_plus(counts, j), ups))
    return LatticePolicy.of(menu, horizon, table)


def largest_loss(menu: tuple[float, ...], horizon: int, admits: Admits) -> Fraction:
    """The largest loss any adaptive strategy can reach (every release at +eps): the
    exact worst case of a max-loss (delta = 0) claim."""
    eps = _check(menu, horizon)
    best = Fraction(0)
    seen: set[Counts] = set()
    stack: list[Counts] = [(0,) * len(eps)]
    while stack:
        counts = stack.pop()
        if counts in seen:
            continue
        seen.add(counts)
        best = max(best, sum((e * c for e, c in zip(eps, counts, strict=True)), Fraction(0)))
        if sum(counts) < horizon:
            stack.extend(_plus(counts, j) for j in range(len(eps)) if admits(counts, j))
    return best


def rule_admits(rule: Rule, menu: tuple[float, ...]) -> Admits:
    """The certified path of a pure-DP filter as :data:`Admits` over ``menu``: its
    state after the counted spends (replayed in menu order: the rules here decide on
    running sums, so the order does not matter), asked whether it admits
    PureDP(menu[j]) next."""
    states: dict[Counts, FilterState] = {}

    def state_of(counts: Counts) -> FilterState:
        if counts not in states:
            state = rule.start()
            for e, c in zip(menu, counts, strict=True):
                for _ in range(c):
                    _, state = state.spend(PureDP(e))
            states[counts] = state
        return states[counts]

    return lambda counts, j: bool(state_of(counts).decide(PureDP(menu[j])))


def fast_rule_admits(rule: Rule, menu: tuple[float, ...]) -> Admits:
    """:func:`rule_admits` on the rule's float fast path (what a claim's ``FastRule``
    runs, pure requests entering with their epsilon as the primary parameter): the DP's
    policy is then optimal against the rule the experiment runs, a loosened mutant's
    fast path included. The fast path admits only what the certified path admits, so
    its worst case is at most :func:`rule_admits`'s."""
    states: dict[Counts, FastFilterState] = {(0,) * len(menu): rule.fast(1)}

    def state_of(counts: Counts) -> FastFilterState:
        if counts not in states:
            j = max(i for i, c in enumerate(counts) if c)  # replayed in menu order
            _, states[counts] = state_of((*counts[:j], counts[j] - 1, *counts[j + 1:])).spend(
                menu[j])
        return states[counts]

    return lambda counts, j: bool(state_of(counts).decide(menu[j])[0])


def _up(value: mpmath.mpf) -> float:
    """The smallest float >= a value known to 50 significant digits (``value`` raised by
    a relative 1e-45 first, so that the exact value lies below)."""
    return round_up(Fraction(mpmath.nstr(value, 60, min_fixed=1, max_fixed=0))
                    * (1 + Fraction(1, 10**45)))


def gaussian_budget_worst(mu: Fraction, epsilon: Fraction) -> float:
    """The worst hockey-stick at ``epsilon`` over adaptive Gaussian strategies spending
    sum mu_i^2 <= mu^2: the Gaussian mechanism's delta at ``mu`` (module docstring),
    from the 50-digit value of EXT-DRS19 (:func:`_up`)."""
    return _up(gaussian_hockey_stick_mp(mu, epsilon))


def brownian_first_passage(spend: Fraction, epsilon: Fraction) -> float:
    """P[sup_{s <= S} (s/2 + W_s) > eps] for S = ``spend`` (sum of mu^2): the supremum of
    the tail at ``epsilon`` over adaptive Gaussian strategies spending at most S with
    arbitrarily small steps, each stopping at the first passage of eps. The classical
    first-passage law of a Brownian motion with drift nu = 1/2:
    Phi((S/2 - eps)/sqrt(S)) + e^{2 nu eps} Phi((-eps - S/2)/sqrt(S)), 50 digits
    (:func:`_up`)."""
    with mpmath.workdps(50):
        s = mpmath.mpf(spend.numerator) / spend.denominator
        e = mpmath.mpf(epsilon.numerator) / epsilon.denominator
        root = mpmath.sqrt(s)
        value = (mpmath.ncdf((s / 2 - e) / root)
                 + mpmath.exp(e) * mpmath.ncdf((-e - s / 2) / root))
    return _up(value)


def _admits(rule: Rule | None, menu: tuple[float, ...], fast: bool = False) -> Admits:
    if rule is None:
        return lambda counts, j: True
    return fast_rule_admits(rule, menu) if fast else rule_admits(rule, menu)


@functools.cache
def filter_worst(rule: Rule | None, menu: tuple[float, ...], horizon: int,
                 epsilon: Fraction, fast: bool = False) -> LatticeWorst:
    """The worst hockey-stick at ``epsilon`` of randomized responses from ``menu``
    through ``rule`` (None: every request admitted, a composition theorem; ``fast``:
    through its fast path, :func:`fast_rule_admits`), cached."""
    return rr_lattice_worst(menu, horizon, _admits(rule, menu, fast),
                            hockey_stick_payoff(epsilon))


def filter_largest_loss(rule: Rule | None, menu: tuple[float, ...], horizon: int) -> float:
    """:func:`largest_loss` through ``rule``, rounded up to a float."""
    return round_up(largest_loss(menu, horizon, _admits(rule, menu)))


def with_exact_worst(claims: tuple[Claim, ...],
                     worst: Mapping[str, Callable[[str], float]]) -> tuple[Claim, ...]:
    """``claims`` with ``Setup.exact_worst`` set from ``worst`` (claim id -> profile ->
    value) on the claims it names; a name matching no claim is an error."""
    unknown = set(worst) - {c.id for c in claims}
    if unknown:
        raise ValueError(f"exact worst cases of unregistered claims: {sorted(unknown)}")

    def build(claim: Claim) -> Callable[[str], Setup]:
        of = worst[claim.id]
        return lambda profile: replace(claim.build(profile), exact_worst=of(profile))

    return tuple(replace(c, build=build(c)) if c.id in worst else c for c in claims)
