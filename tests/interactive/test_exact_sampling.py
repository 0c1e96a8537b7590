"""Finite mechanisms draw each outcome with exactly its rational probability (issue:
reliability and security): randomized response with p = 2/3, 3/5 or 6/7 releases the true
bit with probability p itself, not the float nearest to it, so its declared epsilon
ln(p/(1-p)) (rounded up) bounds the true one."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

import numpy as np
import pytest

import adaptive_dp.interactive.mechanism as mechanism
from adaptive_dp.interactive.mechanism import LAMBDA, RandomizedResponseIM, sample_transition
from adaptive_dp.interactive.sampling import uniform_below


class _Words:
    """A stand-in generator whose 64-bit words run through every top-bit pattern."""

    def __init__(self, bits: int) -> None:
        self.patterns = iter(range(2**bits))
        self.shift = 64 - bits

    def integers(self, low: int, high: int, size: int, dtype: object) -> list[int]:
        return [next(self.patterns) << self.shift]


@pytest.mark.parametrize("n", [2, 3, 5, 6, 7, 12])
def test_uniform_below_takes_each_value_equally_often(n: int) -> None:
    bits = n.bit_length()
    words = _Words(bits)
    draws: list[int] = []
    for _ in range(n):  # every accepted pattern once: exactly the values 0 .. n-1
        draws.append(uniform_below(n, words))  # type: ignore[arg-type]  # the stand-in
    assert sorted(draws) == list(range(n))


@pytest.mark.parametrize("p", [Fraction(2, 3), Fraction(3, 5), Fraction(6, 7), Fraction(3, 4)])
def test_randomized_response_keeps_the_bit_with_probability_exactly_p(
    p: Fraction, monkeypatch: pytest.MonkeyPatch
) -> None:
    rr = RandomizedResponseIM(p, 1)
    ((_, state, _),) = rr.transitions((1, 0), LAMBDA)
    outcomes = rr.transitions(state, 0)
    denominator = p.denominator
    counts: Counter[object] = Counter()
    for k in range(denominator):  # run the sampler over every value of its exact coin
        monkeypatch.setattr(mechanism, "uniform_below", lambda n, rng, k=k: k)
        counts[sample_transition(outcomes, np.random.default_rng(0))[1]] += 1
    assert Fraction(counts[1], denominator) == p
    exact = float(np.log(float(p) / float(1 - p)))
    assert rr.epsilon >= exact
