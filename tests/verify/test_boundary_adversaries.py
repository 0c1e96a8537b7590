"""Boundary-probing adversaries (issue 16): R23-Lem6.2 and R23-Thm6 boundary-probe claims.

The helpers of :mod:`adaptive_dp.verify.judge.boundary_adversaries` against hand-worked
cases, and the probing BM rounds of the R23-Lem6.2 / R23-Thm6 ``boundary-probe`` claims
against the rule's certified path: a valid filter never runs a grid below the admissible
time value, a loosened one does.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

from adaptive_dp.filters.basic import BasicFilter, PureDPFilter
from adaptive_dp.filters.brownian import BrownianFilter, fast_bm_spend, smallest_time_value
from adaptive_dp.filters.zcdp import ZCDPFilter
from adaptive_dp.interactive.adversary import GAUSSIAN, LAPLACE, RANDOMIZED_RESPONSE
from adaptive_dp.numerics.floats import Flag, Real, add_up, inflate_up
from adaptive_dp.verify.judge.boundary_adversaries import (
    BoundaryProbe,
    first_passage_grid,
    smallest_admitted,
)
from adaptive_dp.verify.judge.simulate import FastRule, simulate
from adaptive_dp.verify.registry.worst_case import brownian_first_passage


def test_smallest_admitted_bisects_each_path() -> None:
    limit = np.array([0.3, 0.5, 2.0, 0.1])  # each path admits values >= its limit
    low, high = np.full(4, 0.2), np.full(4, 1.0)
    found = smallest_admitted(lambda t: t >= limit, low, high)
    assert found[0] == pytest.approx(0.3, rel=1e-12) and found[0] >= 0.3
    assert found[1] == pytest.approx(0.5, rel=1e-12) and found[1] >= 0.5
    assert math.isnan(found[2])  # not even high is admitted
    assert found[3] == 0.2  # low is admitted already


def test_first_passage_grid_is_fine_at_the_end() -> None:
    grid = first_passage_grid(0.01, points=300)
    assert len(grid) == 309 and grid[-1] == 0.01 and grid[0] == pytest.approx(0.2)
    assert all(a > b for a, b in itertools.pairwise(grid))
    precisions = 1 / np.asarray(grid[-301:])  # 3/4 of 1/t_min, then 300 steps of 1/1200
    assert np.diff(precisions) == pytest.approx(np.full(300, 100 / 1200), rel=1e-9)


def test_first_passage_grid_keeps_most_of_the_first_passage() -> None:
    """A drifted walk V/2 + W(V) observed at the grid's precisions, stopped at its first
    value above eps, against the continuous first passage (the worst case) and
    Siegmund's corrected barrier eps + 0.5826 sqrt(dV): the BM filter at eps = 64 loosened
    so that the precision reaches V = 100 (first passage about 0.094)."""
    eps, v_max = 64.0, 100.0
    precisions = 1 / np.asarray(first_passage_grid(1 / v_max))
    steps = np.diff(precisions, prepend=0.0)
    rng = np.random.default_rng(11)
    crossed = 0
    for _ in range(4):
        walk = np.cumsum(steps / 2 + np.sqrt(steps) * rng.standard_normal((5000, steps.size)),
                         axis=1)
        crossed += int((walk > eps).any(axis=1).sum())
    simulated = crossed / 20000
    exact = brownian_first_passage(Fraction(v_max), Fraction(eps))
    corrected = brownian_first_passage(
        Fraction(v_max), Fraction(eps + 0.5826 * math.sqrt(v_max / 4 / 300)))
    # 20000 paths: sd about 0.003
    assert abs(simulated - corrected) < 0.012
    assert 0.9 * exact < simulated <= exact + 0.012


def _probe_run(rule: PureDPFilter) -> tuple[np.ndarray, np.ndarray]:
    adversary = BoundaryProbe((LAPLACE,), 1.0, 8)
    out = simulate(adversary, 3, np.random.default_rng(0), rule=FastRule(rule, lambda k, p: p),
                   record=True)
    assert out.kinds is not None and out.params is not None
    return out.kinds, out.params


def test_boundary_probe_on_a_valid_filter_spends_at_the_boundary() -> None:
    """Requests 2, 1.5, 1.25, 1.1, 1.05, 1.01 (all refused by PureDPFilter(1)), then
    1 - 1e-9 (the boundary, less the rounding allowance)."""
    kinds, params = _probe_run(PureDPFilter(1))
    assert (kinds[:, :6] == -1).all()
    assert (kinds[:, 6] == LAPLACE).all() and (params[:, 6] == 1 - 1e-9).all()
    assert (kinds[:, 7:] == -1).all()  # nothing remains: the adversary stops


class _Loosened(PureDPFilter):
    """PureDPFilter whose admission sees 0.8 x the epsilon spent: admits up to 1.25."""

    __slots__ = ()

    def _fast_admits(self, sums: tuple[Real, ...]) -> Flag:
        return super()._fast_admits((sums[0] * 0.8, *sums[1:]))


def test_boundary_probe_finds_a_loosened_admission() -> None:
    kinds, params = _probe_run(_Loosened(1))
    assert (kinds[:, :2] == -1).all()
    # admitted past the budget: loss up to 1.25 > 1
    assert (params[:, 2] == 1.25 * (1 - 1e-9)).all()


def test_probing_round_never_below_admissible_on_the_valid_filter() -> None:
    """The claim's bisection on BrownianFilter(64, 0.05) stays at or above the certified
    smallest admissible time value, within 1e-9 of it."""
    rule = BrownianFilter(64, delta=Fraction(1, 20))
    t_smallest = smallest_time_value(rule.start(), 1)
    assert t_smallest is not None
    rho_star = rule.start().max_next() or 0.0
    t_adm = np.array([1 / (2 * rho_star) * 1.05])
    state = rule.fast(1)
    found = smallest_admitted(lambda t: fast_bm_spend(state, 1.0, t, t)[0], t_adm / 4, t_adm)
    assert t_smallest <= float(found[0]) <= t_smallest * (1 + 1e-9)


def test_probing_round_finds_the_loosened_precheck() -> None:
    class Loosened(BrownianFilter):
        __slots__ = ()

        def _fast_lookahead(self, spent, t_min, t_stop, d2):  # type: ignore[no-untyped-def]
            return np.asarray(add_up(spent, inflate_up(0.75 * d2 / (2 * t_min))))

    rule = Loosened(64, delta=Fraction(1, 20))
    rho_star = rule.start().max_next() or 0.0
    t_adm = 1 / (2 * rho_star)
    state = rule.fast(1)
    found = smallest_admitted(lambda t: fast_bm_spend(state, 1.0, t, t)[0],
                              np.array([t_adm / 4]), np.array([t_adm * 1.05]))
    # the loosened pre-check admits t_min >= 0.75 t_adm
    assert float(found[0]) == pytest.approx(0.75 * t_adm, rel=1e-9)


def test_boundary_probe_is_admitted_at_the_boundary_through_a_rounded_map() -> None:
    """R23-Thm2 boundary-probe: through rho = mu^2/2 rounded up, the request at the
    remaining mu^2 (less 1e-9) is admitted by ZCDPFilter(2, 0.05), every overshoot is not."""
    rule = ZCDPFilter(2, delta=Fraction(1, 20))
    budget = 2 * (rule.start().max_next() or 0.0)
    out = simulate(BoundaryProbe((GAUSSIAN,), budget, 8, measure="mu2"), 2,
                   np.random.default_rng(0),
                   rule=FastRule(rule, lambda k, p: np.asarray(inflate_up(p * p / 2))),
                   record=True)
    assert out.kinds is not None and out.params is not None
    assert (out.kinds[:, :6] == -1).all() and (out.kinds[:, 6] == GAUSSIAN).all()
    assert out.params[:, 6] ** 2 == pytest.approx(budget, rel=1e-8)


class _IdentityCharge:
    """A delta charge for the probe's own test: a request's delta is its parameter."""

    def delta(self, kind: np.ndarray, param: np.ndarray) -> np.ndarray:
        out: np.ndarray = np.where(kind == -1, 0.0, param)
        return out

    def param_for(self, delta: np.ndarray) -> np.ndarray:
        return delta


def test_boundary_probe_delta_measure_meets_the_remaining_delta() -> None:
    """measure="delta" on a rule looser than the probe's budget (BasicFilter(10,
    delta=0.1), epsilon 1 and delta = the parameter per request; probe budget 0.06):
    the 2x overshoot (0.12) is refused, the 1.5x one (0.09, less 1e-9) admitted, and the
    spend read back through the charge leaves nothing to ask for."""
    rule = FastRule(BasicFilter(10, delta=Fraction(1, 10)), lambda k, p: np.ones_like(p),
                    lambda k, p: p)
    probe = BoundaryProbe((RANDOMIZED_RESPONSE,), 0.06, 4, overshoots=(2.0, 1.5),
                          measure="delta", charge=_IdentityCharge())
    out = simulate(probe, 2, np.random.default_rng(0), rule=rule, record=True)
    assert out.kinds is not None and out.params is not None
    assert (out.kinds[:, 0] == -1).all() and (out.kinds[:, 1] == RANDOMIZED_RESPONSE).all()
    assert out.params[0, 1] == pytest.approx(0.09 * (1 - 1e-9), rel=1e-12)
    assert (out.kinds[:, 2:] == -1).all()


def test_boundary_probe_delta_measure_needs_a_charge() -> None:
    with pytest.raises(ValueError, match="needs a charge"):
        BoundaryProbe((GAUSSIAN,), 0.1, 4, measure="delta")
    with pytest.raises(ValueError, match="only with measure='delta'"):
        BoundaryProbe((GAUSSIAN,), 0.1, 4, measure="mu2", charge=_IdentityCharge())
