"""Exact worst-case adversaries (issue 16, item 1; docs/design.md, verification:
adversaries).

:class:`LatticePolicy` runs the optimal policy found by the dynamic programme over the
randomized-response lattice (:func:`adaptive_dp.verify.registry.worst_case.rr_lattice_worst`)
as a registered adversary of its claim: randomized responses at epsilons from a finite
menu, each next epsilon (or a stop) read from a table indexed by the state the policy
has reached, the count of each menu epsilon released and how many of those reported
bit 0 (loss +eps on the pair's x order). The state is read off the released outputs and
parameters of every path at once (one numpy expression per step), and looked up in the
sorted table with ``searchsorted``; a state outside the table (a request the claim's
rule refused although the certified path admits it) stops the path.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from adaptive_dp.interactive.adversary import RANDOMIZED_RESPONSE, AdversaryView
from adaptive_dp.verify.judge.simulate import Request

__all__ = ["STOP", "LatticePolicy"]

STOP = -1
"""The policy's action "stop releasing"."""

_State = tuple[tuple[int, ...], tuple[int, ...]]


@dataclass(frozen=True, slots=True)
class LatticePolicy:
    """The optimal policy of a randomized-response lattice: ``codes`` (sorted) encode
    the states (counts and bit-0 counts per menu epsilon, radix ``steps + 1``) and
    ``actions`` the menu index to request there, or :data:`STOP`."""

    FAMILY: ClassVar[str] = "lattice-policy"
    menu: tuple[float, ...]
    steps: int
    codes: tuple[int, ...]
    actions: tuple[int, ...]

    def __post_init__(self) -> None:
        if (self.steps + 1) ** (2 * len(self.menu)) >= 2**62:
            raise ValueError(f"steps={self.steps!r} and {len(self.menu)} epsilons: the state "
                             "codes would overflow int64")
        if list(self.codes) != sorted(set(self.codes)) or len(self.codes) != len(self.actions):
            raise ValueError("codes must be sorted, distinct and as many as actions")

    @staticmethod
    def of(menu: tuple[float, ...], steps: int, table: dict[_State, int]) -> LatticePolicy:
        """The policy of ``table``: (counts, bit-0 counts) -> action."""
        radix = steps + 1
        rows = sorted((_code(counts, ups, radix), a) for (counts, ups), a in table.items())
        return LatticePolicy(menu, steps, tuple(c for c, _ in rows), tuple(a for _, a in rows))

    @property
    def horizon(self) -> int:
        return self.steps

    def choose(self, view: AdversaryView, rng: np.random.Generator) -> Request:
        n, radix = view.paths, self.steps + 1
        code = np.zeros(n, dtype=np.int64)
        for j, e in enumerate(self.menu):
            released = view.params == e
            code += np.count_nonzero(released, axis=1) * radix ** (2 * j)
            code += np.count_nonzero(released & (view.outputs == 0), axis=1) * radix ** (2 * j + 1)
        codes = np.asarray(self.codes, dtype=np.int64)
        where = np.minimum(np.searchsorted(codes, code), codes.size - 1)
        action = np.where(codes[where] == code, np.asarray(self.actions)[where], STOP)
        go = (action != STOP) & (view.step < self.steps)
        param = np.asarray(self.menu, dtype=np.float64)[np.maximum(action, 0)]
        return Request(np.full(n, RANDOMIZED_RESPONSE, dtype=np.int8), param, go)


def _code(counts: tuple[int, ...], ups: tuple[int, ...], radix: int) -> int:
    return sum(c * radix ** (2 * j) + u * radix ** (2 * j + 1)
               for j, (c, u) in enumerate(zip(counts, ups, strict=True)))
