"""H23-Def1.5 (interaction) and H23-Def1.6 (view), with exact view distributions.

H23-Def1.5: "Initialize s^M_1 <- x, m_0 <- lambda, s^A_1 <- lambda. Repeat for
i = 1, 2, ...: if i is odd, (s^M_{i+1}, m_i) <- M(s^M_i, m_{i-1}); if i is even,
(s^A_{i+1}, m_i) <- A(s^A_i, m_{i-1}); if m_i = halt, exit the loop."
H23-Def1.6: the view is "(r_0, m_1, r_2, m_3, r_4, ...)": the adversary's coins and
every message it receives.

An adversary (H23-Def1.5: "a randomized state machine that takes in an empty string")
is an object with ``step(state, message, coins) -> (state, query)``, started on the
state :data:`LAMBDA`; ``coins`` is the r_i of that call (an integer drawn by
:func:`interact`), or ``None`` for a deterministic adversary (``deterministic = True``;
H23-Lem2.3 lets the paper consider only those). Either party ends the interaction with
the message :attr:`Refusal.HALT`; :func:`interact` also stops after ``max_rounds``
adversary moves (finite communication).

:func:`view_distribution` enumerates every coin outcome of a finite mechanism against a
deterministic adversary and returns the exact distribution of the view.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Protocol

import numpy as np

from adaptive_dp.interactive.mechanism import (
    LAMBDA,
    FiniteInteractiveMechanism,
    InteractiveMechanism,
    Refusal,
    checked_step,
)

__all__ = [
    "FunctionAdversary",
    "InteractiveAdversary",
    "ScriptedAdversary",
    "View",
    "interact",
    "view_distribution",
]


class InteractiveAdversary(Protocol):
    """H23-Def1.5: a randomized state machine started on the empty string."""

    @property
    def deterministic(self) -> bool: ...

    def step(self, state: object, message: object, coins: int | None) -> tuple[object, object]: ...


@dataclass(frozen=True, slots=True)
class View:
    """H23-Def1.6: ``coins`` = (r_0, r_2, ...) and ``messages`` = (m_1, m_3, ...).

    ``items()`` interleaves them as the paper writes the view."""

    coins: tuple[int | None, ...]
    messages: tuple[object, ...]

    def items(self) -> tuple[object, ...]:
        out: list[object] = []
        for i, m in enumerate(self.messages):
            if i < len(self.coins):
                out.append(self.coins[i])
            out.append(m)
        out.extend(self.coins[len(self.messages):])
        return tuple(out)


@dataclass(frozen=True, slots=True)
class ScriptedAdversary:
    """A deterministic, non-adaptive adversary: sends ``script`` in order, then halt."""

    script: tuple[object, ...]
    deterministic = True

    def step(self, state: object, message: object, coins: int | None) -> tuple[object, object]:
        i = 0 if state is LAMBDA else int(state)  # type: ignore[call-overload]  # state is the counter we returned
        if i >= len(self.script):
            return i + 1, Refusal.HALT
        return i + 1, self.script[i]


@dataclass(frozen=True, slots=True)
class FunctionAdversary:
    """A deterministic adaptive adversary given as a function of the messages received
    so far: ``policy(history) -> next query`` (return :attr:`Refusal.HALT` to stop).
    Its state is the tuple of received messages."""

    policy: Callable[[tuple[object, ...]], object]
    deterministic = True

    def step(self, state: object, message: object, coins: int | None) -> tuple[object, object]:
        history = (() if state is LAMBDA else state) + (message,)  # type: ignore[operator]  # state is the tuple we returned
        return history, self.policy(history)


def interact(
    adversary: InteractiveAdversary,
    mechanism: InteractiveMechanism,
    x: object,
    rng: np.random.Generator,
    *,
    max_rounds: int = 10_000,
    adversary_rng: np.random.Generator | None = None,
) -> View:
    """H23-Def1.5: run the interaction; return the adversary's view (H23-Def1.6).

    The mechanism's coins come from ``rng``; the adversary's coins r_i from
    ``adversary_rng`` (default: ``rng``), recorded in the view (None if deterministic).
    """
    arng = rng if adversary_rng is None else adversary_rng
    s_m: object = x
    s_a: object = LAMBDA
    message: object = LAMBDA
    coins: list[int | None] = []
    received: list[object] = []
    for i in range(max_rounds + 1):
        s_m, message = checked_step(mechanism, s_m, message, rng)  # odd i
        received.append(message)
        if message is Refusal.HALT or i == max_rounds:
            break
        r = None if adversary.deterministic else int(arng.integers(0, 2**63 - 1))
        coins.append(r)
        s_a, message = adversary.step(s_a, message, r)  # even i
        if message is Refusal.HALT:
            break
    return View(tuple(coins), tuple(received))


def view_distribution(
    adversary: InteractiveAdversary,
    mechanism: FiniteInteractiveMechanism,
    x: object,
    *,
    max_rounds: int = 64,
) -> Mapping[tuple[object, ...], Fraction]:
    """The exact distribution of ``View(A <-> M(x))`` (as ``View.messages`` tuples) for a
    deterministic adversary and a finite mechanism, by enumerating every coin outcome.
    """
    if not adversary.deterministic:
        raise ValueError("view_distribution needs a deterministic adversary (H23-Lem2.3)")
    out: dict[tuple[object, ...], Fraction] = {}

    def walk(
        s_m: object, s_a: object, message: object, prob: Fraction,
        received: tuple[object, ...], rounds: int,
    ) -> None:
        for p, s_next, answer in mechanism.transitions(s_m, message):
            if p == 0:
                continue
            seen = (*received, answer)
            q = prob * p
            if answer is Refusal.HALT or rounds >= max_rounds:
                out[seen] = out.get(seen, Fraction(0)) + q
                continue
            a_next, query = adversary.step(s_a, answer, None)
            if query is Refusal.HALT:
                out[seen] = out.get(seen, Fraction(0)) + q
                continue
            walk(s_next, a_next, query, q, seen, rounds + 1)

    walk(x, LAMBDA, LAMBDA, Fraction(1), (), 0)
    return out
