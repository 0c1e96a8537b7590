"""EXT-CR21: the Gumbel exponential mechanism (ExponentialMechanism) and its zCDP charge."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adaptive_dp.errors import ParameterError
from adaptive_dp.guarantees.definitions import ZCDP
from adaptive_dp.guarantees.zcdp import zcdp_delta_optimal
from adaptive_dp.mechanisms.exponential import ExponentialMechanism, range_sensitivity
from adaptive_dp.verify.registry.twins.application import HalvedScaleExponential


def _softmax_mp(counts: tuple[int, ...], scale: float) -> list[float]:
    """Oracle: exact Gumbel-max selection probabilities, mpmath at 40 digits."""
    with mpmath.workdps(40):
        w = [mpmath.exp(mpmath.mpf(c) / mpmath.mpf(scale)) for c in counts]
        z = mpmath.fsum(w)
        return [float(x / z) for x in w]


def test_docstring_opens_with_spec_id() -> None:
    assert (ExponentialMechanism.__doc__ or "").startswith("EXT-CR21")


@pytest.mark.parametrize(("relation", "factor"), [("add-remove", 1), ("change-one", 2)])
def test_scale_per_relation(relation: str, factor: int) -> None:
    m = ExponentialMechanism("0.05", relation)
    assert m.scale >= factor / 0.05
    assert m.scale == pytest.approx(factor * 20, rel=1e-15)
    assert range_sensitivity(relation) == factor


def test_charge_is_eps_squared_over_eight_exact() -> None:
    assert ExponentialMechanism("0.05").guarantee() == ZCDP(Fraction(1, 3200))
    assert ExponentialMechanism(2).guarantee() == ZCDP(Fraction(1, 2))


@pytest.mark.parametrize("bad", [0, -1, float("nan"), float("inf")])
def test_rejects_bad_epsilon(bad: float) -> None:
    with pytest.raises(ParameterError):
        ExponentialMechanism(bad)


def test_rejects_unknown_relation() -> None:
    with pytest.raises(ParameterError):
        ExponentialMechanism(1, "swap")


def test_selection_frequencies_match_softmax() -> None:
    m = ExponentialMechanism(1)  # scale 1
    counts = (0, 1, 2, 2)
    n = 40_000
    rng = np.random.default_rng(11)
    picks = m.select(np.broadcast_to(np.asarray(counts, float), (n, 4)), rng)
    freq = np.bincount(picks, minlength=4) / n
    expected = np.array(_softmax_mp(counts, m.scale))
    # 5 standard errors
    assert np.all(np.abs(freq - expected) <= 5 * np.sqrt(expected * (1 - expected) / n))


def test_unavailable_candidates_never_win() -> None:
    m = ExponentialMechanism(1)
    counts = np.array([[100.0, 0.0, 0.0]] * 500)
    mask = np.array([False, True, True])
    picks = m.select(counts, np.random.default_rng(3), mask)
    assert not np.any(picks == 0)
    with pytest.raises(ParameterError):
        m.select(counts, np.random.default_rng(3), np.zeros(3, dtype=bool))


def _exact_hockey_stick(x: tuple[int, ...], xp: tuple[int, ...], scale: float,
                        eps: float) -> float:
    p = np.array(_softmax_mp(x, scale))
    q = np.array(_softmax_mp(xp, scale))
    return float(max(np.sum(np.maximum(p - np.exp(eps) * q, 0)),
                     np.sum(np.maximum(q - np.exp(eps) * p, 0))))


@pytest.mark.parametrize(("relation", "x", "xp"), [
    ("add-remove", (0, 0), (1, 0)),
    ("add-remove", (0, 0, 0), (1, 1, 0)),
    ("add-remove", (5, 3, 0, 0), (6, 3, 1, 0)),
    ("change-one", (0, 1), (1, 0)),
    ("change-one", (0, 1, 0), (1, 0, 0)),
])
@pytest.mark.parametrize("eps", [0.5, 1.0, 1.3, 2.0])
def test_exact_delta_below_converted_charge(relation: str, x: tuple[int, ...],
                                            xp: tuple[int, ...], eps: float) -> None:
    """EXT-CR21 on exact selection probabilities: the true delta(eps) of the release is at
    most the EXT-CKS20 delta of the charged ZCDP(eps_EM^2/8), for neighbouring counts."""
    m = ExponentialMechanism(2, relation)
    assert _exact_hockey_stick(x, xp, m.scale, eps) <= zcdp_delta_optimal(m.guarantee(), eps)


@pytest.mark.parametrize(("relation", "x", "xp"), [
    ("add-remove", (0, 0), (1, 0)), ("change-one", (0, 1), (1, 0))])
def test_twin_scenario_has_power(relation: str, x: tuple[int, ...], xp: tuple[int, ...]) -> None:
    """The halved-scale twin's true delta at eps = 13/10 is at least twice its claim."""
    twin = HalvedScaleExponential(2, relation)
    assert twin.scale == pytest.approx(ExponentialMechanism(2, relation).scale / 2)
    claimed = zcdp_delta_optimal(twin.guarantee(), Fraction(13, 10))
    assert _exact_hockey_stick(x, xp, twin.scale, 1.3) >= 2 * claimed


@settings(max_examples=40)
@given(base=st.lists(st.integers(0, 6), min_size=2, max_size=5),
       data=st.data(), eps=st.sampled_from([0.5, 1.0, 2.0]),
       at=st.sampled_from([0.3, 0.8, 1.3]))
def test_add_remove_neighbours_never_exceed_the_charge(
        base: list[int], data: st.DataObject, eps: float, at: float) -> None:
    """EXT-CR21 law on exact selection probabilities: for any count vector and any
    add/remove neighbour (each count +0 or +1), delta(at) <= the EXT-CKS20 delta of
    ZCDP(eps^2/8)."""
    bumps = data.draw(st.lists(st.integers(0, 1), min_size=len(base), max_size=len(base)))
    x = tuple(base)
    xp = tuple(b + d for b, d in zip(base, bumps, strict=True))
    m = ExponentialMechanism(eps)
    assert _exact_hockey_stick(x, xp, m.scale, at) <= zcdp_delta_optimal(m.guarantee(), at)
