"""EXT-RandomizedResponse: the two-point privacy-loss distribution of randomized
response, exact k-fold composition by the binomial law, and DiscretePLD."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from adaptive_dp.errors import ParameterError, ParameterTypeError
from adaptive_dp.loss import DiscretePLD, compose_discrete, pld, rr_composed_pld, rr_pld
from adaptive_dp.mechanisms import RandomizedResponse


def test_ln3_two_point_law() -> None:
    """epsilon = ln 3: p = 3/4; L = ln 3 w.p. 3/4, -ln 3 w.p. 1/4; delta(0) = TV = 1/2."""
    p = pld(RandomizedResponse(math.log(3)))
    assert isinstance(p, DiscretePLD)
    assert p.losses == pytest.approx((-math.log(3), math.log(3)), rel=1e-15)
    assert np.exp(p.log_probs) == pytest.approx([0.25, 0.75], rel=1e-14)
    assert p.hockey_stick(0.0) == pytest.approx(0.5, rel=1e-14)
    assert p.hockey_stick(math.log(3)) == 0.0
    assert p.tail(math.log(3)) == 0.0
    assert p.tail(math.log(3) - 0.01) == pytest.approx(0.75)


def test_same_bits_is_zero_loss() -> None:
    p = pld(RandomizedResponse(2), 1, 1)
    assert p.hockey_stick(0.0) == 0.0 and p.tail(-1e-12) == 1.0


def test_rejects_non_bits() -> None:
    with pytest.raises(ParameterError):
        pld(RandomizedResponse(1), 0, 2)


def _brute_force(eps: float, k: int, t: float) -> float:
    """sum over all 2^k report vectors of (P(y) - e^t Q(y))_+ from the mechanism's pmf."""
    m = RandomizedResponse(eps)
    total = 0.0
    for ys in itertools.product((0.0, 1.0), repeat=k):
        y = np.asarray(ys)
        lp = float(np.sum(m.logpdf(y, 0.0)))
        lq = float(np.sum(m.logpdf(y, 1.0)))
        total += max(0.0, math.exp(lp) - math.exp(t + lq))
    return total


@pytest.mark.parametrize(("eps", "k", "t"), [(0.5, 8, 1.0), (1.0, 6, 0.0), (0.2, 9, 0.7)])
def test_composed_equals_enumeration(eps: float, k: int, t: float) -> None:
    want = _brute_force(eps, k, t)
    assert rr_composed_pld(eps, k).hockey_stick(t) == pytest.approx(want, rel=1e-12, abs=1e-15)
    assert compose_discrete([rr_pld(eps)] * k).hockey_stick(t) == pytest.approx(want, rel=1e-12)


def test_composed_large_k_is_finite_and_normalised() -> None:
    p = rr_composed_pld(0.01, 5000)
    assert float(p.cdf(1e9)) == pytest.approx(1.0, abs=1e-12)
    assert 0.0 <= p.hockey_stick(0.5) < 1.0


def test_swap_of_composition_is_itself() -> None:
    p = rr_composed_pld(0.4, 7)
    s = p.swap()
    assert s.losses == pytest.approx(p.losses, abs=1e-12)
    assert s.log_probs == pytest.approx(p.log_probs, abs=1e-12)


def test_discrete_validation() -> None:
    with pytest.raises(ParameterError):
        DiscretePLD([0.0, 1.0], [math.log(0.5), math.log(0.4)])
    with pytest.raises(ParameterError):
        DiscretePLD([0.0], [0.0, 0.0])
    with pytest.raises(ParameterError):
        rr_composed_pld(1.0, 0)
    with pytest.raises(ParameterTypeError):
        rr_composed_pld(1.0, True)


def test_merges_equal_atoms() -> None:
    p = DiscretePLD([1.0, 1.0, -1.0], [math.log(0.25), math.log(0.25), math.log(0.5)])
    assert p.losses == (-1.0, 1.0)
    assert float(p.cdf(0.0)) == pytest.approx(0.5) and float(p.sf(1.0)) == 0.0
