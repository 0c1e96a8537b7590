"""The analyst-facing shell (docs/design.md, principles 2 and 3) around H23-Def2.7 / Alg3
(F-FiltCon(IM)) and H23-Def2.13 / Alg6 (G-OdomCon(IM)).

A :class:`ConcurrentFilter` or :class:`ConcurrentOdometer` holds the dataset, the
immutable state of the pure state machine and the coins, behind one lock: every launch
and query is one transition of the state machine under the lock, so concurrent callers
can never overspend, and the recorded transcript (the public log of requests and
answers, in lock order) replays single-threaded through a fresh machine with the same
seed to the same decisions, answers and loss (:func:`replay`).

Refuse-and-continue (the "equivalent alternative" of H23 section 1.3, ambiguity A6): a
launch the rule refuses raises :class:`~adaptive_dp.errors.InsufficientBudgetError`,
releases nothing (the child is never initialized) and leaves the filter usable for
requests that still fit; queries to launched children are answered as before.

Vetted mechanisms only: the rule trusts each launched mechanism's declared guarantee, so a
class declaring ``PureDP(0)`` that returns its state would release the data with nothing
spent. A shell launches only the classes of :data:`VETTED` (whose answers are sampled
exactly from the law their guarantee is proved for) unless the curator passes
``allow_unvetted=True`` (then every declared guarantee is trusted as is).

Private means: no public attribute, method, repr or pickle exposes the data, the coins
or a child's state (``__slots__`` with underscore names, ``__repr__`` without state,
``__reduce__`` raising). Python introspection is out of scope.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import NoReturn

import numpy as np

from adaptive_dp.errors import (
    InsufficientBudgetError,
    ParameterError,
    ParameterTypeError,
    UnsupportedGuaranteeError,
    UnvettedMechanismError,
)
from adaptive_dp.filters.base import FilterState, Rule
from adaptive_dp.guarantees.definitions import Guarantee
from adaptive_dp.guarantees.spends import Spend
from adaptive_dp.interactive.concurrent import Composite, Query
from adaptive_dp.interactive.filtered import FiltCon, _FiltState
from adaptive_dp.interactive.mechanism import (
    LAMBDA,
    PRIVACY_LOSS,
    DiscreteGaussianCountIM,
    Launch,
    RandomizedResponseIM,
    Refusal,
)
from adaptive_dp.interactive.odometer import LossReport, OdomCon
from adaptive_dp.odometers.accumulators import Accumulator, Exhausted

__all__ = ["VETTED", "Child", "ConcurrentFilter", "ConcurrentOdometer", "Record", "replay"]

VETTED: tuple[type, ...] = (RandomizedResponseIM, DiscreteGaussianCountIM)
"""The mechanism classes a shell launches by default: each samples its answers exactly
(rational coins, exact discrete Gaussian), so its declared guarantee holds for what it
releases. ``GaussianCountIM`` (float noise, simulation only) is not among them."""


@dataclass(frozen=True, slots=True)
class Record:
    """One entry of the public transcript: the request and what was released."""

    request: object
    answer: object


class _Session:
    __slots__ = ("_count", "_lock", "_log", "_machine", "_rng", "_state", "_unvetted")

    def __init__(
        self, machine: Composite, data: object, seed: int, allow_unvetted: bool
    ) -> None:
        self._unvetted = allow_unvetted
        self._lock = threading.Lock()
        self._machine = machine
        self._rng = np.random.default_rng(seed)
        state, _ = machine.step(data, LAMBDA, self._rng)
        self._state: object = state
        self._log: list[Record] = []
        self._count = 0

    def __repr__(self) -> str:
        return f"<{type(self).__name__}>"

    def __reduce__(self) -> NoReturn:
        raise TypeError(f"{type(self).__name__} cannot be pickled (private state)")

    def __copy__(self) -> NoReturn:
        raise TypeError(f"{type(self).__name__} cannot be copied (private state)")

    def __deepcopy__(self, memo: object) -> NoReturn:
        raise TypeError(f"{type(self).__name__} cannot be copied (private state)")

    def _transition(self, request: object) -> object:
        """One step of the state machine under the lock (callers hold it)."""
        state, answer = self._machine.step(self._state, request, self._rng)
        self._state = state
        self._log.append(Record(request, answer))
        return answer

    def launch(self, mechanism: object, parameter: Spend | None = None) -> Child:
        """Launch ``mechanism`` with privacy parameter ``parameter`` (default: its
        declared guarantee). Returns a :class:`Child` whose first message is
        ``child.first``; raises (releasing nothing) if the request is refused."""
        self._vet(mechanism)
        d = getattr(mechanism, "guarantee", None) if parameter is None else parameter
        if d is None:
            raise ParameterTypeError("parameter", d, "a spend (the mechanism declares none)")
        request = Launch(mechanism, d)
        with self._lock:
            answer = self._transition(request)
            if isinstance(answer, Refusal):
                self._raise(d, answer)
            self._count += 1
            return Child(self, self._count, answer)

    def _vet(self, mechanism: object) -> None:
        """Refuse (before anything runs) a mechanism outside :data:`VETTED`, unless the
        curator opted out."""
        if not (self._unvetted or type(mechanism) in VETTED):
            raise UnvettedMechanismError(mechanism, VETTED)

    def _raise(self, requested: object, why: Refusal) -> NoReturn:
        if why is Refusal.DIVERGENCE_CANNOT_BE_PARSED:
            raise UnsupportedGuaranteeError(
                f"the mechanism is not declared {requested!r}-DP (Divergence cannot be parsed)"
            )
        if why is Refusal.AT_MECHANISM_COUNT_LIMIT:
            raise ParameterError("launch", requested, "at most max_mechanisms launches")
        raise InsufficientBudgetError(requested, self._remaining())

    def _remaining(self) -> object:
        return None

    def _query(self, index: int, q: object) -> object:
        with self._lock:
            return self._transition(Query(index, q))

    def transcript(self) -> tuple[Record, ...]:
        """The public log, in the order the lock serialized the requests."""
        with self._lock:
            return tuple(self._log)

    @property
    def launched(self) -> int:
        """The number of launched children."""
        with self._lock:
            return self._count


class Child:
    """A handle on one launched interactive mechanism; queries go through the lock."""

    __slots__ = ("_first", "_index", "_session")

    def __init__(self, session: _Session, index: int, first: object) -> None:
        self._session = session
        self._index = index
        self._first = first

    @property
    def index(self) -> int:
        """Its position j (1-based) among the launched mechanisms."""
        return self._index

    @property
    def first(self) -> object:
        """The first message of the mechanism (its answer to the launch)."""
        return self._first

    def query(self, q: object) -> object:
        """Ask query ``q``: the child's answer (never budget-checked: the budget was
        paid at the launch, H23 section 1.4)."""
        return self._session._query(self._index, q)

    def __repr__(self) -> str:
        return f"<Child {self._index}>"

    def __reduce__(self) -> NoReturn:
        raise TypeError("Child cannot be pickled (private state)")


class ConcurrentFilter(_Session):
    """H23-Def2.7 / Alg 3, analyst-facing: a concurrent filter session running
    F(.; d)-FiltCon(IM) with the continuation rule ``rule`` in refuse-and-continue mode
    (reading A6), behind one lock."""

    __slots__ = ()

    def __init__(
        self, data: object, rule: Rule, *, seed: int, max_mechanisms: int | None = None,
        allow_unvetted: bool = False,
    ) -> None:
        super().__init__(FiltCon(rule, max_mechanisms, terminal=False), data, seed,
                         allow_unvetted)

    def spent(self) -> Guarantee:
        """The rule's certified bound of what was admitted (rounded up)."""
        with self._lock:
            return self._filter_state().spent()

    def remaining(self) -> float:
        """The remaining primary budget (rounded down)."""
        with self._lock:
            return self._filter_state().remaining()

    def _remaining(self) -> object:
        return self._filter_state().remaining()

    def _filter_state(self) -> FilterState:
        state = self._state
        assert isinstance(state, _FiltState)
        return state.filter


class ConcurrentOdometer(_Session):
    """H23-Def2.13 / Alg 6, analyst-facing: a concurrent odometer session running
    G-OdomCon(IM) behind one lock; launches are never refused for budget;
    ``privacy_loss()`` (H23-Def1.12) is G over the launched parameters."""

    __slots__ = ()

    def __init__(
        self, data: object, accumulator: Accumulator, *, seed: int, allow_unvetted: bool = False
    ) -> None:
        super().__init__(OdomCon(accumulator), data, seed, allow_unvetted)

    def privacy_loss(self) -> Guarantee | Exhausted:
        """H23-Def1.12: the deterministic, state-preserving privacy_loss query."""
        with self._lock:
            state, report = self._machine.step(self._state, PRIVACY_LOSS, self._rng)
            assert state is self._state and isinstance(report, LossReport)
            return report.reading()


def replay(
    transcript: tuple[Record, ...], machine: Composite, data: object, *, seed: int
) -> bool:
    """docs/design.md, principle 3: a recorded view is consistent iff replaying its requests
    single-threaded through a fresh ``machine`` with the same seed gives the same
    answers (hence the same decisions and loss)."""
    rng = np.random.default_rng(seed)
    state, _ = machine.step(data, LAMBDA, rng)
    for record in transcript:
        state, answer = machine.step(state, record.request, rng)
        if not _same(answer, record.answer):
            return False
    return True


def _same(a: object, b: object) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (a != a and b != b)
    return a == b
