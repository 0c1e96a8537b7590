"""H23-Def1.4 (Haney et al. 2023): interactive algorithms as randomized state machines.

"An interactive algorithm (randomized state machine) is a randomized algorithm
M: {0,1}* x {0,1}* -> {0,1}* x {0,1}*. It takes the current state s and a query q, and
returns a new state s' and an answer a, written (s', a) = M(s, q; r)", with the
requirement "s' != lambda and a != lambda".

Here a state machine is an object with ``step(state, message, rng) -> (state, answer)``;
states and messages are immutable Python values, the empty string lambda is
:data:`LAMBDA`, and the coins r are drawn from ``rng``. The first call of a mechanism
receives its dataset as the state and :data:`LAMBDA` as the message (its
initialization, H23-Def1.5). Reading of Def1.4 against Algs 1-6 (which return
``(s', lambda)`` on initialization): ``a != lambda`` is enforced for every call except
the initialization; ``s' != lambda`` always (:func:`checked_step`).

A *finite* mechanism also gives the exact distribution of one step,
``transitions(state, message) -> ((p, state', answer), ...)`` with rational p summing to
1; compositions of finite mechanisms are finite, so the exact distribution of a view is
computable by enumeration (:func:`adaptive_dp.interactive.interaction.view_distribution`).

Concrete interactive mechanisms: :class:`RandomizedResponseIM` (finite; datasets are
tuples of bits, a query is an index), :class:`DiscreteGaussianCountIM` (a query is a tuple
of indices; the answer is the count plus exact discrete Gaussian noise) and
:class:`GaussianCountIM` (the same with float Gaussian noise: the real-number model of the
proofs, for simulation only; its float answers leak the count, so the shells refuse it by
default, :mod:`adaptive_dp.interactive.shell`). Each declares its guarantee
(``guarantee``): the verified parameter the filters check (H23-Def1.10: "having verified
privacy-loss parameters attached to every mechanism").
"""

from __future__ import annotations

import enum
import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Protocol, runtime_checkable

import numpy as np

from adaptive_dp.errors import DatasetError, ParameterError
from adaptive_dp.guarantees.definitions import ZCDP, Guarantee, PureDP
from adaptive_dp.guarantees.spends import Spend
from adaptive_dp.interactive.sampling import discrete_gaussian, uniform_below
from adaptive_dp.numerics import (
    ExactLike,
    arb_of,
    ball_upper,
    enclose,
    exact,
    exact_positive,
)

__all__ = [
    "LAMBDA",
    "PRIVACY_LOSS",
    "STARTED",
    "DiscreteGaussianCountIM",
    "FiniteInteractiveMechanism",
    "GaussianCountIM",
    "InteractiveMechanism",
    "Lambda",
    "Launch",
    "PrivacyLossQuery",
    "RandomizedResponseIM",
    "Refusal",
    "Transition",
    "checked_step",
    "sample_transition",
]


class Lambda(enum.Enum):
    """The empty string lambda (H23-Def1.4): the initialization message."""

    LAMBDA = "lambda"

    def __repr__(self) -> str:
        return "LAMBDA"


LAMBDA = Lambda.LAMBDA


class PrivacyLossQuery(enum.Enum):
    """H23-Def1.12: the special, deterministic, state-preserving ``privacy_loss`` query."""

    PRIVACY_LOSS = "privacy_loss"

    def __repr__(self) -> str:
        return "PRIVACY_LOSS"


PRIVACY_LOSS = PrivacyLossQuery.PRIVACY_LOSS


class Refusal(enum.Enum):
    """The messages of Algs 1-15 that are not answers of a child mechanism.

    ``HALT`` is the paper's ``halt`` message (H23-Def1.5 ends the interaction on it); a
    terminal filter returns it on every call after it entered the state Halt (A6).
    """

    INVALID_QUERY = "invalid query"
    INSUFFICIENT_BUDGET = "insufficient budget"
    AT_MECHANISM_COUNT_LIMIT = "at mechanism count limit"
    DIVERGENCE_CANNOT_BE_PARSED = "Divergence cannot be parsed"
    EXHAUSTED = "exhausted"
    HALT = "halt"

    def __repr__(self) -> str:
        return f"Refusal.{self.name}"


STARTED = "started"
"""The first (initialization) answer of the concrete mechanisms of this module."""

Transition = tuple[Fraction, object, object]
"""One outcome of a finite step: (probability, new state, answer)."""


@runtime_checkable
class InteractiveMechanism(Protocol):
    """H23-Def1.4 / R23-Def2.6: ``(s', a) = M(s, q; r)`` with coins drawn from ``rng``."""

    def step(
        self, state: object, message: object, rng: np.random.Generator
    ) -> tuple[object, object]: ...


@runtime_checkable
class FiniteInteractiveMechanism(InteractiveMechanism, Protocol):
    """An interactive mechanism whose every step has a finite, exact distribution."""

    def transitions(self, state: object, message: object) -> tuple[Transition, ...]: ...


@dataclass(frozen=True, slots=True)
class Launch:
    """A launch request (M', d') of Algs 2-4 and 6: a mechanism and its claimed
    privacy parameter d' (a guarantee value)."""

    mechanism: object
    parameter: Spend


def checked_step(
    mechanism: InteractiveMechanism,
    state: object,
    message: object,
    rng: np.random.Generator,
) -> tuple[object, object]:
    """H23-Def1.4: one step, enforcing "s' != lambda", and "a != lambda" except on the
    initialization call (message lambda; reading of Algs 1-6)."""
    new_state, answer = mechanism.step(state, message, rng)
    if new_state is LAMBDA:
        raise ValueError("H23-Def1.4: an interactive mechanism returned the empty state")
    if answer is LAMBDA and message is not LAMBDA:
        raise ValueError("H23-Def1.4: an interactive mechanism returned the empty answer")
    return new_state, answer


def sample_transition(
    outcomes: Sequence[Transition], rng: np.random.Generator
) -> tuple[object, object]:
    """Draw one outcome of a finite step with exactly its rational probability: a uniform
    integer below the common denominator, compared with the exact cumulative sums (a float
    coin would draw each outcome with a probability rounded to 2^-53, and the released
    answers would no longer have the declared guarantee)."""
    if len(outcomes) == 1:
        return outcomes[0][1], outcomes[0][2]
    denominator = math.lcm(*(p.denominator for p, _, _ in outcomes))
    k = uniform_below(denominator, rng)
    acc = 0
    for p, s, a in outcomes:
        acc += p.numerator * (denominator // p.denominator)
        if k < acc:
            return s, a
    return outcomes[-1][1], outcomes[-1][2]


def _bits(x: object, name: str = "x") -> tuple[int, ...]:
    """The dataset as a tuple of bits; the error never shows the data, only its shape."""
    if not isinstance(x, tuple) or not all(b in (0, 1) and not isinstance(b, bool) for b in x):
        raise DatasetError(name, x, "a tuple of bits 0/1")
    return x


@dataclass(frozen=True, slots=True)
class _CountState:
    data: tuple[int, ...]
    used: int


@dataclass(frozen=True, slots=True, init=False)
class RandomizedResponseIM:
    """EXT-RandomizedResponse as an interactive mechanism (H23-Def1.4): datasets are
    tuples of bits; each query is an index i, answered by x_i kept with probability
    ``p`` (exact rational, 1/2 < p < 1) and flipped otherwise, at most ``rounds`` times
    (then :attr:`Refusal.EXHAUSTED`). Neighbours differ in one bit, so each answer is
    ln(p/(1-p))-DP and the mechanism is ``rounds * ln(p/(1-p))``-DP (basic composition;
    ``guarantee`` rounded up). Finite: ``transitions`` is exact.
    """

    p: Fraction
    rounds: int

    def __init__(self, p: ExactLike, rounds: int = 1) -> None:
        pf = exact(p, "p")
        if not Fraction(1, 2) < pf < 1:
            raise ParameterError("p", p, "1/2 < p < 1")
        rounds = _rounds(rounds)
        object.__setattr__(self, "p", pf)
        object.__setattr__(self, "rounds", rounds)

    @property
    def epsilon(self) -> float:
        """ln(p/(1-p)) per answer, rounded up."""
        p = self.p
        return ball_upper(enclose(lambda: (arb_of(p) / (1 - arb_of(p))).log()))

    @property
    def guarantee(self) -> Guarantee:
        p, k = self.p, self.rounds
        return PureDP(ball_upper(enclose(lambda: k * (arb_of(p) / (1 - arb_of(p))).log())))

    def transitions(self, state: object, message: object) -> tuple[Transition, ...]:
        if message is LAMBDA:
            return ((Fraction(1), _CountState(_bits(state), 0), STARTED),)
        if not isinstance(state, _CountState):
            raise TypeError("RandomizedResponseIM: bad state")
        if state.used >= self.rounds:
            return ((Fraction(1), state, Refusal.EXHAUSTED),)
        if (
            not isinstance(message, int)
            or isinstance(message, bool)
            or not 0 <= message < len(state.data)
        ):
            return ((Fraction(1), state, Refusal.INVALID_QUERY),)
        bit = state.data[message]
        nxt = _CountState(state.data, state.used + 1)
        return ((self.p, nxt, bit), (1 - self.p, nxt, 1 - bit))

    def step(
        self, state: object, message: object, rng: np.random.Generator
    ) -> tuple[object, object]:
        return sample_transition(self.transitions(state, message), rng)


def _rounds(rounds: object) -> int:
    """A number of rounds: an integer >= 1 (bools excluded)."""
    if not isinstance(rounds, int) or isinstance(rounds, bool) or rounds < 1:
        raise ParameterError("rounds", rounds, "an integer >= 1")
    return rounds


class _CountingIM:
    """The counting mechanisms' step: each query is a tuple of distinct indices, answered
    by the exact count plus the subclass's ``_noise``, at most ``rounds`` times."""

    __slots__ = ()
    rounds: int

    def _noise(self, rng: np.random.Generator) -> float | int:
        raise NotImplementedError

    def step(
        self, state: object, message: object, rng: np.random.Generator
    ) -> tuple[object, object]:
        if message is LAMBDA:
            return _CountState(_bits(state), 0), STARTED
        counted = _count_query(state, message, self.rounds)
        if isinstance(counted, Refusal):
            return state, counted
        nxt, count = counted
        return nxt, count + self._noise(rng)


def _count_query(state: object, message: object, rounds: int) -> tuple[_CountState, int] | Refusal:
    """The query step before the noise: a refusal, or the next state and the exact count of
    the queried indices (a tuple of distinct in-range integers)."""
    if not isinstance(state, _CountState):
        raise TypeError("counting mechanism: bad state")
    if state.used >= rounds:
        return Refusal.EXHAUSTED
    n = len(state.data)
    if (
        not isinstance(message, tuple)
        or len(set(message)) != len(message)
        or not all(isinstance(i, int) and not isinstance(i, bool) and 0 <= i < n
                   for i in message)
    ):
        return Refusal.INVALID_QUERY
    return _CountState(state.data, state.used + 1), sum(state.data[i] for i in message)


@dataclass(frozen=True, slots=True, init=False)
class GaussianCountIM(_CountingIM):
    """R23-Def2.5 / R23-Lem2.2 as an interactive mechanism (H23-Def1.4): each query is a
    tuple of distinct indices (a counting query, l2 sensitivity 1 between neighbours
    that differ in one bit), answered by the count plus N(0, sigma^2) with
    sigma = sqrt(rounds / (2 rho)) rounded UP, at most ``rounds`` times (then
    :attr:`Refusal.EXHAUSTED`). By R23-Lem2.2 and R23-Lem2.4 (adaptive composition) the
    real-number mechanism is rho-zCDP: ``guarantee`` is ZCDP(rounds / (2 sigma^2)) rounded
    up (<= rho up to rounding of sigma, never below the true value).

    Simulation only: the answer ``count + float noise`` lands on a coarser float grid for
    some counts than for others, so the released float identifies the count with positive
    probability and no zCDP guarantee holds for what is released (Mironov 2012). On real
    data use :class:`DiscreteGaussianCountIM`; the shells refuse this class unless the
    curator opts out of the allow-list.
    """

    rho: Fraction
    rounds: int
    sigma: float

    def __init__(self, rho: ExactLike, rounds: int = 1) -> None:
        r = exact_positive(rho, "rho")
        rounds = _rounds(rounds)
        sigma = ball_upper(enclose(lambda: (arb_of(rounds) / (2 * arb_of(r))).sqrt()))
        object.__setattr__(self, "rho", r)
        object.__setattr__(self, "rounds", rounds)
        object.__setattr__(self, "sigma", sigma)

    @property
    def guarantee(self) -> Guarantee:
        k, s = self.rounds, self.sigma
        return ZCDP(ball_upper(enclose(lambda: arb_of(k) / (2 * arb_of(s) * arb_of(s)))))

    def _noise(self, rng: np.random.Generator) -> float:
        return float(rng.normal(0.0, self.sigma))


@dataclass(frozen=True, slots=True, init=False)
class DiscreteGaussianCountIM(_CountingIM):
    """EXT-DiscreteGaussian as an interactive mechanism (H23-Def1.4): each query is a tuple
    of distinct indices (a counting query, sensitivity 1 between neighbours that differ in
    one bit), answered by the count plus an exact sample of the discrete Gaussian
    N_Z(0, sigma2) with sigma2 = rounds / (2 rho) (exact rational), at most ``rounds``
    times (then :attr:`Refusal.EXHAUSTED`). Each answer is 1 / (2 sigma2)-zCDP (Canonne,
    Kamath, Steinke 2020, Theorem 4) and adaptive composition (R23-Lem2.4) makes the
    mechanism rho-zCDP exactly: ``guarantee`` is ZCDP(rho). Answers are integers, sampled
    with exact arithmetic (:func:`adaptive_dp.interactive.sampling.discrete_gaussian`), so
    their law is exactly the one the guarantee is proved for.
    """

    rho: Fraction
    rounds: int
    sigma2: Fraction

    def __init__(self, rho: ExactLike, rounds: int = 1) -> None:
        r = exact_positive(rho, "rho")
        rounds = _rounds(rounds)
        object.__setattr__(self, "rho", r)
        object.__setattr__(self, "rounds", rounds)
        object.__setattr__(self, "sigma2", rounds / (2 * r))

    @property
    def guarantee(self) -> Guarantee:
        return ZCDP(self.rho)

    def _noise(self, rng: np.random.Generator) -> int:
        return discrete_gaussian(self.sigma2, rng)
