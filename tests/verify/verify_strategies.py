"""Hypothesis strategies generating adversaries of every family with their parameters.

Used by the adversary tests; generated adversaries worth keeping are committed to the
registry as plain data (``adaptive_dp.verify.registry.claims.ext.GENERATED``) and replayed.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from adaptive_dp.verify.judge.adversaries import (
    BudgetHugging,
    Constant,
    Doubling,
    OutputThreshold,
    RandomStrategy,
    StopAtWorst,
)

KIND = st.sampled_from([0, 1, 2])
KINDS = st.one_of(st.tuples(KIND), st.tuples(KIND, KIND))
PARAM = st.floats(0.05, 2.0)
STEPS = st.integers(1, 12)
LEVEL = st.floats(-2.0, 2.0)


def constant() -> st.SearchStrategy[Any]:
    return st.builds(Constant, KINDS, PARAM, STEPS, LEVEL)


def budget_hugging() -> st.SearchStrategy[Any]:
    fraction = st.floats(0.05, 0.9)
    return st.builds(BudgetHugging, KINDS, st.floats(0.1, 4.0), STEPS,
                     st.sampled_from(["epsilon", "mu2"]), fraction, fraction, LEVEL)


def output_threshold() -> st.SearchStrategy[Any]:
    return st.builds(OutputThreshold, KINDS, PARAM, KIND, PARAM, LEVEL, STEPS, LEVEL)


def doubling() -> st.SearchStrategy[Any]:
    return st.builds(Doubling, KINDS, st.floats(0.01, 0.5), STEPS, st.floats(1.0, 3.0),
                     st.floats(0.5, 2.0), LEVEL)


def stop_at_worst() -> st.SearchStrategy[Any]:
    return st.builds(StopAtWorst, KINDS, PARAM, STEPS, st.floats(0.0, 3.0), LEVEL)


def random_strategy() -> st.SearchStrategy[Any]:
    return st.builds(RandomStrategy, st.lists(KIND, min_size=1, max_size=3).map(tuple),
                     st.lists(PARAM, min_size=1, max_size=3).map(tuple), STEPS,
                     st.floats(0.0, 0.5))


def any_adversary() -> st.SearchStrategy[Any]:
    return st.one_of(constant(), budget_hugging(), output_threshold(), doubling(),
                     stop_at_worst(), random_strategy())


def capped(kinds: tuple[int, ...], cap: float, steps: int) -> st.SearchStrategy[Any]:
    """Adversaries whose every parameter is <= ``cap`` and that release <= ``steps``
    times, with mechanism kinds drawn from ``kinds`` (valid inputs of a composition
    theorem for ``steps`` mechanisms of parameter ``cap``)."""
    kind = st.sampled_from(kinds)
    chosen = st.one_of(st.tuples(kind), st.tuples(kind, kind))
    param = st.floats(cap / 20, cap)
    n = st.integers(1, steps)
    return st.one_of(
        st.builds(Constant, chosen, param, n, LEVEL),
        st.builds(OutputThreshold, chosen, param, kind, param, LEVEL, n, LEVEL),
        st.builds(Doubling, chosen, param, n, st.floats(1.0, 3.0), st.just(cap), LEVEL),
        st.builds(StopAtWorst, chosen, param, n, st.floats(0.0, 3.0), LEVEL),
        st.builds(RandomStrategy, st.lists(kind, min_size=1, max_size=2).map(tuple),
                  st.lists(param, min_size=1, max_size=3).map(tuple), n, st.floats(0, 0.5)),
    )
