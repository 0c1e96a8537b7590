"""The simulator's performance paths give the same bits as the plain loop.

``_plain_simulate`` is the simulator as it was before its fast paths (full history
arrays filled up front, ``np.unique`` of the admitted kinds, the mechanisms' samplers and
two log densities per release): for the same seed every field of the transcript must
be equal to the bit, through the reused buffers and history arrays of earlier batches.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

from adaptive_dp.interactive.adversary import (
    GAUSSIAN,
    LAPLACE,
    RANDOMIZED_RESPONSE,
    Adversary,
    AdversaryView,
)
from adaptive_dp.mechanisms import (
    gaussian_logpdf,
    gaussian_sample,
    laplace_logpdf,
    laplace_sample,
    rr_logpmf,
    rr_sample,
)
from adaptive_dp.verify.judge.adversaries import (
    BudgetHugging,
    Constant,
    Doubling,
    OutputThreshold,
    RandomStrategy,
    StopAtWorst,
)
from adaptive_dp.verify.judge.simulate import GroupedRule, Request, Transcript, simulate


def _plain_release(kind: int, center: float, p: NDArray[np.float64], distance: float,
                   rng: np.random.Generator) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    if kind == LAPLACE:
        y = laplace_sample(center, 1.0 / p, rng)
        return y, laplace_logpdf(y, 0.0, 1.0 / p) - laplace_logpdf(y, distance, 1.0 / p)
    if kind == GAUSSIAN:
        y = gaussian_sample(center, 1.0 / p, rng)
        return y, gaussian_logpdf(y, 0.0, 1.0 / p) - gaussian_logpdf(y, distance, 1.0 / p)
    y = rr_sample(center, p, rng)
    return y, rr_logpmf(y, 0.0, p) - rr_logpmf(y, 1.0, p)


def _plain_simulate(adversary: Adversary, paths: int, rng: np.random.Generator, under: str,
                    rule: Any, distance: float) -> dict[str, NDArray[Any]]:
    from adaptive_dp.verify.judge.simulate import BatchView

    steps = adversary.horizon
    center = 0.0 if under == "x" else distance
    outputs = np.full((paths, steps), np.nan, order="F")
    kinds = np.full((paths, steps), -1, dtype=np.int8, order="F")
    params = np.zeros((paths, steps), order="F")
    loss, param_sum, param_sq_sum = np.zeros(paths), np.zeros(paths), np.zeros(paths)
    loss_path = np.zeros((paths, steps))
    active = np.ones(paths, dtype=bool)
    releases = np.zeros(paths, dtype=np.int64)
    ledger = rule.start(paths) if rule is not None else None
    last = 0
    for t in range(steps):
        view = BatchView(t, paths, outputs[:, :t], kinds[:, :t], params[:, :t], loss, active,
                         param_sum, param_sq_sum)
        request = adversary.choose(view, rng)
        active &= np.asarray(request.go, dtype=bool)
        if not active.any():
            break
        kind = np.asarray(request.kind, dtype=np.int8)
        param = np.asarray(request.param, dtype=np.float64)
        admitted = active.copy() if ledger is None else ledger.admit(kind, param, active.copy())
        for k in np.unique(kind[admitted]):
            rows = np.nonzero(admitted & (kind == k))[0]
            p = param[rows]
            y, step = _plain_release(int(k), center, p, distance, rng)
            outputs[rows, t], kinds[rows, t], params[rows, t] = y, k, p
            param_sum[rows] += p
            param_sq_sum[rows] += p * p
            loss[rows] += step
        releases += admitted
        last = t + 1
        loss_path[:, t] = loss
    loss_path[:, last:] = loss[:, None]
    sign = 1.0 if under == "x" else -1.0
    return {"loss": sign * loss, "releases": releases, "loss_path": sign * loss_path,
            "outputs": outputs, "kinds": kinds, "params": params}


def _refuse_odd_steps() -> GroupedRule:
    def step(state: Any, kind: int, param: float) -> tuple[bool, Any]:
        n = int(state)
        return (n % 2 == 0 and param < 0.9), n + 1
    return GroupedRule(0, step)


ADVERSARIES: dict[str, Any] = {
    "gaussian-hugging": BudgetHugging((GAUSSIAN,), 2.25, 12, "mu2", 0.1, 0.4, 0.0),
    "rr-laplace-hugging": BudgetHugging((RANDOMIZED_RESPONSE, LAPLACE), 3.0, 10, "epsilon",
                                        0.1, 0.3, 0.0, 1.0),
    "even-split": BudgetHugging((LAPLACE,), 2.0, 6),
    "rr-constant": Constant((RANDOMIZED_RESPONSE,), 0.1, 9),
    "two-kinds": Constant((LAPLACE, GAUSSIAN), 0.3, 9),
    "threshold": OutputThreshold((GAUSSIAN,), 0.5, RANDOMIZED_RESPONSE, 0.7, 1.0, 8),
    "doubling": Doubling((LAPLACE, RANDOMIZED_RESPONSE), 0.01, 9, 2.0, 1.0),
    "stop-rr": StopAtWorst((RANDOMIZED_RESPONSE,), 0.3, 12, 1.0),
    "stop-mixed": StopAtWorst((GAUSSIAN, LAPLACE), 0.3, 12, 1.0),
    "random": RandomStrategy((0, 1, 2), (0.1, 0.5, 1.0), 10, 0.1),
}


def _check(adversary: Any, under: str, rule: Any, distance: float, paths: int) -> None:
    for record in (False, True):  # the second run takes the first one's history arrays
        got = simulate(adversary, paths, np.random.default_rng(4), under=under, rule=rule,
                       record=record, distance=distance)
    want = _plain_simulate(adversary, paths, np.random.default_rng(4), under, rule, distance)
    for name, value in want.items():
        field = getattr(got, name)
        assert field.dtype == value.dtype, name
        assert np.array_equal(np.ascontiguousarray(field).view(np.uint8),
                              np.ascontiguousarray(value).view(np.uint8)), name


@pytest.mark.parametrize("name", sorted(ADVERSARIES))
@pytest.mark.parametrize("under", ["x", "x'"])
def test_simulate_equals_the_plain_loop_to_the_bit(name: str, under: str) -> None:
    adversary = ADVERSARIES[name]
    rr = RANDOMIZED_RESPONSE in getattr(adversary, "kinds", ()) or name in ("threshold",
                                                                          "random")
    for distance in (1.0,) if rr else (1.0, 2.5):
        _check(adversary, under, None, distance, 257)
    _check(adversary, under, _refuse_odd_steps(), 1.0, 129)


@dataclass(frozen=True, slots=True)
class _Watcher:
    """Gaussian releases on half the paths; checks at every step that the history it
    sees holds only this batch's values (NaN / -1 / 0 where nothing was released)."""

    steps: int

    @property
    def horizon(self) -> int:
        return self.steps

    def choose(self, view: AdversaryView, rng: np.random.Generator) -> Request:
        n = view.paths
        released = view.kinds >= 0
        assert np.array_equal(released, ~np.isnan(view.outputs))
        assert np.all(view.params[~released] == 0) and np.all(view.kinds[~released] == -1)
        assert not released[1::2].any()  # odd paths never release
        go = np.zeros(n, dtype=bool)
        go[::2] = True
        return Request(np.full(n, GAUSSIAN, dtype=np.int8), np.full(n, 0.5), go)


def test_reused_history_shows_nothing_of_an_earlier_batch() -> None:
    shape_paths, steps = 64, 7
    simulate(Constant((GAUSSIAN,), 0.5, steps), shape_paths, np.random.default_rng(1))
    out: Transcript = simulate(_Watcher(steps), shape_paths, np.random.default_rng(2),
                               record=True)
    assert out.outputs is not None and out.kinds is not None and out.params is not None
    assert np.isnan(out.outputs[1::2]).all() and (out.kinds[1::2] == -1).all()
    assert np.array_equal(out.releases, np.where(np.arange(shape_paths) % 2 == 0, steps, 0))


def test_a_recorded_transcript_is_not_overwritten_by_later_batches() -> None:
    adversary = Constant((GAUSSIAN,), 0.5, 5)
    first = simulate(adversary, 32, np.random.default_rng(1), record=True)
    assert first.outputs is not None
    kept = first.outputs.copy()
    for seed in range(3):
        simulate(adversary, 32, np.random.default_rng(seed + 10))
    assert np.array_equal(first.outputs, kept)


def test_release_counts_past_255_steps() -> None:
    out = simulate(Constant((RANDOMIZED_RESPONSE,), 0.1, 300), 5, np.random.default_rng(0))
    assert out.releases.dtype == np.int64 and (out.releases == 300).all()
