"""Boundary-probing adversaries (issue 16): R23-Lem6.2 and R23-Thm6 boundary-probe claims.

The helpers of :mod:`adaptive_dp.verify.judge.boundary_adversaries` against hand-worked
cases, and the probing BM rounds of the R23-Lem6.2 / R23-Thm6 ``boundary-probe`` claims
against the rule's certified path: a valid filter never runs a grid below the admissible
time value, a loosened one does.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from adaptive_dp.filters.basic import PureDPFilter
from adaptive_dp.filters.brownian import BrownianFilter, fast_bm_spend, smallest_time_value
from adaptive_dp.filters.zcdp import ZCDPFilter
from adaptive_dp.interactive.adversary import GAUSSIAN, LAPLACE
from adaptive_dp.numerics.floats import Flag, Real, add_up, inflate_up
from adaptive_dp.verify.judge.boundary_adversaries import (
    LATTICE,
    BoundaryProbe,
    first_admitted,
    lattice_overshoots,
)
from adaptive_dp.verify.judge.simulate import FastRule, simulate


def test_first_admitted_takes_the_first_accepted_candidate() -> None:
    limit = np.array([0.5, 1.2, 3.0, 10.0])  # each path admits requests <= its limit
    candidates = [np.full(4, 4.0), np.full(4, 2.0), np.full(4, 1.0)]
    chosen = first_admitted(lambda c: c <= limit, candidates, np.full(4, -1.0))
    assert chosen.tolist() == [-1.0, 1.0, 2.0, 4.0]


def test_lattice_overshoots_smallest_first() -> None:
    out = lattice_overshoots(np.array([1.0]), (1, 3, 2))
    assert [float(v[0]) for v in out] == pytest.approx([LATTICE**-3, LATTICE**-2, LATTICE**-1])


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
    """The claim's probes on BrownianFilter(64, 0.05): none of the 14 overshoots is
    admitted (certified: each is below the smallest admissible time value)."""
    rule = BrownianFilter(64, delta=Fraction(1, 20))
    t_smallest = smallest_time_value(rule.start(), 1)
    assert t_smallest is not None
    rho_star = rule.start().max_next() or 0.0
    t_adm = np.array([1 / (2 * rho_star) * (1 + 1e-9)])
    probes = lattice_overshoots(t_adm, range(1, 15))
    assert all(float(p[0]) < t_smallest for p in probes)
    state = rule.fast(1)
    chosen = first_admitted(lambda t: fast_bm_spend(state, 1.0, t, t)[0], probes, t_adm)
    assert chosen.tolist() == t_adm.tolist()


def test_probing_round_finds_the_loosened_precheck() -> None:
    class Loosened(BrownianFilter):
        __slots__ = ()

        def _fast_lookahead(self, spent, t_min, t_stop, d2):  # type: ignore[no-untyped-def]
            return np.asarray(add_up(spent, inflate_up(0.75 * d2 / (2 * t_min))))

    rule = Loosened(64, delta=Fraction(1, 20))
    rho_star = rule.start().max_next() or 0.0
    t_adm = np.array([1 / (2 * rho_star)])
    state = rule.fast(1)
    probes = lattice_overshoots(t_adm, range(1, 15))
    chosen = first_admitted(lambda t: fast_bm_spend(state, 1.0, t, t)[0], probes, t_adm)
    # 1.05^-5 = 0.784 >= 0.75 > 1.05^-6 = 0.746: the fifth overshoot is the first admitted
    assert float(chosen[0]) == pytest.approx(float(t_adm[0]) * LATTICE**-5)


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
