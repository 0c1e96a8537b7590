"""The analyst-facing shell (docs/design.md, principles 2 and 3) over H23-Def2.7 / Alg3 and
H23-Def2.13 / Alg6: refuse-and-continue, private state, and the thread stress test
(16 threads launching and querying at random: zero overspend and a consistent view,
1,000 operations per thread twice by default; 10,000 operations 20 times under
``-m slow``)."""

from __future__ import annotations

import copy
import pickle
import random
import threading
from fractions import Fraction

import pytest

from adaptive_dp.errors import (
    InsufficientBudgetError,
    ParameterError,
    UnsupportedGuaranteeError,
)
from adaptive_dp.filters.basic import PureDPFilter
from adaptive_dp.guarantees.definitions import ApproxDP, PureDP
from adaptive_dp.interactive.filtered import FiltCon
from adaptive_dp.interactive.mechanism import (
    STARTED,
    DiscreteGaussianCountIM,
    Launch,
    RandomizedResponseIM,
    Refusal,
)
from adaptive_dp.interactive.odometer import OdomCon
from adaptive_dp.interactive.shell import ConcurrentFilter, ConcurrentOdometer, replay
from adaptive_dp.odometers.accumulators import BasicAccumulator

DATA = (1, 0, 1, 1, 0, 1, 0, 0)
SECRET_BITS = "1, 0, 1, 1"


def _epsilon(launch: Launch) -> Fraction:
    """The epsilon of a pure or approximate DP launch parameter."""
    assert isinstance(launch.parameter, (PureDP, ApproxDP))
    return launch.parameter.epsilon


def test_refuse_and_continue() -> None:
    f = ConcurrentFilter(DATA, PureDPFilter("1"), seed=1)
    small = RandomizedResponseIM("0.55", 1)  # ln(11/9) ~ 0.2007 <= 0.3
    a = f.launch(small, PureDP("0.7"))
    assert a.first == STARTED and a.index == 1
    with pytest.raises(InsufficientBudgetError) as info:
        f.launch(small, PureDP("0.7"))
    assert info.value.requested == PureDP("0.7")
    assert f.launched == 1  # nothing released, nothing charged
    b = f.launch(small, PureDP("0.3"))  # 0.7 + 0.3 = 1: equality admitted
    assert b.index == 2
    assert f.spent() == PureDP(1)
    assert f.remaining() == 0.0
    assert a.query(0) in (0, 1) and b.query(3) in (0, 1)
    with pytest.raises(UnsupportedGuaranteeError):
        f.launch(RandomizedResponseIM("0.9"), PureDP("0.0001"))  # not declared
    capped = ConcurrentFilter(DATA, PureDPFilter(100), seed=2, max_mechanisms=1)
    capped.launch(small)
    with pytest.raises(ParameterError):
        capped.launch(small)


def test_odometer_shell() -> None:
    o = ConcurrentOdometer(DATA, BasicAccumulator(), seed=3)
    assert o.privacy_loss() == ApproxDP(0, 0)
    g = DiscreteGaussianCountIM("0.5", rounds=2)
    rr = RandomizedResponseIM("0.75")
    c = o.launch(rr, ApproxDP("1.2", "0.001"))
    assert o.privacy_loss() == ApproxDP("1.2", "0.001")
    c.query(0)
    assert o.privacy_loss() == ApproxDP("1.2", "0.001")  # constant between launches
    with pytest.raises(UnsupportedGuaranteeError):
        o.launch(g)  # a zCDP declaration is not an (epsilon, delta) parameter here


def test_private_state_not_exposed() -> None:
    f = ConcurrentFilter(DATA, PureDPFilter("3"), seed=4)
    child = f.launch(RandomizedResponseIM("0.75", 2))
    for obj in (f, child):
        text = repr(obj) + str(obj)
        assert SECRET_BITS not in text and "data" not in text.lower()
        assert not any(not name.startswith("_") and name in ("state", "data", "rng")
                       for name in dir(obj))
        with pytest.raises(TypeError):
            pickle.dumps(obj)
    with pytest.raises(TypeError):
        copy.deepcopy(f)
    with pytest.raises(TypeError):
        copy.copy(f)
    assert not hasattr(f, "__dict__") and not hasattr(child, "__dict__")
    public = [n for n in dir(f) if not n.startswith("_")]
    assert set(public) == {"launch", "launched", "remaining", "spent", "transcript"}


def _stress(threads: int, operations: int, seed: int) -> dict[str, object]:
    budget = Fraction("400")
    rule = PureDPFilter(budget)
    session = ConcurrentFilter(DATA, rule, seed=seed)
    children: list[object] = []
    guard = threading.Lock()
    errors: list[BaseException] = []
    epsilons = ("0.55", "0.6", "0.75")
    mechanisms = {e: RandomizedResponseIM(e, 3) for e in epsilons}  # 0.6, 1.2, 3.3 each
    start = threading.Barrier(threads)

    def worker(k: int) -> None:
        rnd = random.Random(seed * 1000 + k)
        start.wait()
        try:
            for _ in range(operations):
                u = rnd.random()
                if u < 0.1:
                    mech = mechanisms[rnd.choice(epsilons)]
                    try:
                        child = session.launch(mech)
                    except InsufficientBudgetError:
                        continue
                    with guard:
                        children.append(child)
                elif u < 0.15:
                    session.spent()
                    session.remaining()
                else:
                    with guard:
                        pick = rnd.choice(children) if children else None
                    if pick is not None:
                        pick.query(rnd.randrange(len(DATA)))  # type: ignore[attr-defined]
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    pool = [threading.Thread(target=worker, args=(k,)) for k in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    assert not errors, errors
    log = session.transcript()
    # zero overspend: the admitted launches, recomputed independently from the log
    admitted = [
        _epsilon(r.request) for r in log if isinstance(r.request, Launch) and r.answer == STARTED
    ]
    total = sum(admitted, Fraction(0))
    assert total <= budget
    refused = [r for r in log if isinstance(r.request, Launch) and r.answer is not STARTED]
    assert all(r.answer is Refusal.INSUFFICIENT_BUDGET for r in refused)
    # a refused launch is refused because it did not fit at that point of the log
    running = Fraction(0)
    for r in log:
        if isinstance(r.request, Launch):
            eps = _epsilon(r.request)
            assert (r.answer == STARTED) == (running + eps <= budget)
            if r.answer == STARTED:
                running += eps
    # consistent view: single-threaded replay through a fresh machine, same seed
    assert replay(log, FiltCon(rule, terminal=False), DATA, seed=seed)
    assert session.spent() == PureDP(total)
    return {
        "operations": len(log),
        "launched": len(admitted),
        "refused": len(refused),
        "spent": str(total),
        "budget": str(budget),
    }


@pytest.mark.parametrize("seed", [11, 12])
def test_thread_stress_default(seed: int) -> None:
    result = _stress(16, 1_000, seed)
    assert int(result["launched"]) > 50 and int(result["refused"]) > 50  # type: ignore[call-overload]


@pytest.mark.slow
def test_thread_stress_slow() -> None:
    for seed in range(100, 120):
        _stress(16, 10_000, seed)


def test_replay_detects_tampering() -> None:
    f = ConcurrentFilter(DATA, PureDPFilter("6"), seed=7)
    c = f.launch(RandomizedResponseIM("0.75", 5))
    for i in range(5):
        c.query(i)
    log = f.transcript()
    machine = FiltCon(PureDPFilter("6"), terminal=False)
    assert replay(log, machine, DATA, seed=7)
    assert not replay(log, machine, DATA, seed=8) or not replay(
        log, machine, (0,) * len(DATA), seed=7
    )


def test_odometer_replay() -> None:
    o = ConcurrentOdometer(DATA, BasicAccumulator(), seed=9)
    c = o.launch(RandomizedResponseIM("0.6", 3))
    c.query(1)
    o.privacy_loss()
    assert replay(o.transcript(), OdomCon(BasicAccumulator()), DATA, seed=9)


def test_odometer_thread_stress() -> None:
    """16 threads launching, querying and reading privacy_loss on one concurrent
    odometer (H23-Def2.13): each thread sees a non-decreasing reading, and the final
    reading equals the accumulator of every launched parameter (recomputed from the
    transcript); replay is consistent."""
    acc = BasicAccumulator()
    session = ConcurrentOdometer(DATA, acc, seed=21)
    mech = RandomizedResponseIM("0.6", 3)
    children: list[object] = []
    guard = threading.Lock()
    errors: list[BaseException] = []
    start = threading.Barrier(16)

    def worker(k: int) -> None:
        rnd = random.Random(k)
        start.wait()
        last = -1.0
        try:
            for _ in range(300):
                u = rnd.random()
                if u < 0.1:
                    child = session.launch(mech)
                    with guard:
                        children.append(child)
                elif u < 0.4:
                    reading = session.privacy_loss()
                    assert isinstance(reading, ApproxDP)
                    assert float(reading.epsilon) >= last
                    last = float(reading.epsilon)
                else:
                    with guard:
                        pick = rnd.choice(children) if children else None
                    if pick is not None:
                        pick.query(rnd.randrange(len(DATA)))  # type: ignore[attr-defined]
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    pool = [threading.Thread(target=worker, args=(k,)) for k in range(16)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    assert not errors, errors
    log = session.transcript()
    state = acc.start()
    for r in log:
        if isinstance(r.request, Launch) and r.answer == STARTED:
            state = state.add(r.request.parameter)
    assert session.privacy_loss() == state.reading()
    assert replay(log, OdomCon(acc), DATA, seed=21)
