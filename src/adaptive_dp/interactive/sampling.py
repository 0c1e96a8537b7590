"""Exact samplers for mechanisms that run on real data (EXT-DiscreteGaussian).

A mechanism that releases ``count + float noise`` leaks its input through the grid of floats
the answer lands on (Mironov 2012, "On significance of the least significant bits for
differential privacy"); a coin drawn as ``rng.random() < p`` samples the float nearest p,
not p. The samplers here use only exact integer and rational arithmetic on uniform integers
from :func:`uniform_below`, so each output has exactly the probability its guarantee is
computed from:

- :func:`bernoulli`: Bernoulli(p) for rational p;
- :func:`bernoulli_exp`: Bernoulli(exp(-gamma)) for rational gamma >= 0, by the series
  construction of Canonne, Kamath, Steinke 2020 ("The Discrete Gaussian for Differential
  Privacy", Algorithm 1): stop at the first k with A_k ~ Bernoulli(gamma / k) equal to 0;
  the stopping index is odd with probability exp(-gamma) for gamma in [0, 1]; a larger gamma
  is split into unit steps;
- :func:`discrete_laplace`: P[Y = y] proportional to ``exp(-|y| / t)`` for an integer t >= 1
  (their Algorithm 2);
- :func:`discrete_gaussian`: P[Y = y] proportional to exp(-y^2 / (2 sigma^2)) for a rational
  sigma^2 > 0, by rejection from the discrete Laplace of scale t = floor(sigma) + 1 with
  acceptance probability ``exp(-(|y| - sigma^2 / t)^2 / (2 sigma^2))`` (their Algorithm 3).

The algorithms are written from the paper's description (no code copied).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

__all__ = [
    "bernoulli",
    "bernoulli_exp",
    "discrete_gaussian",
    "discrete_laplace",
    "uniform_below",
]


def uniform_below(n: int, rng: np.random.Generator) -> int:
    """An exactly uniform integer in [0, n): rejection sampling on ``n.bit_length()``
    random bits drawn as 64-bit words (fewer than two rounds on average)."""
    bits = n.bit_length()
    words = (bits + 63) // 64
    while True:
        k = 0
        for word in rng.integers(0, 2**64, size=words, dtype=np.uint64):
            k = (k << 64) | int(word)
        k >>= 64 * words - bits
        if k < n:
            return k


def bernoulli(p: Fraction, rng: np.random.Generator) -> bool:
    """True with probability exactly ``p`` (0 <= p <= 1)."""
    return uniform_below(p.denominator, rng) < p.numerator


def _bernoulli_exp_unit(gamma: Fraction, rng: np.random.Generator) -> bool:
    """Bernoulli(exp(-gamma)) for 0 <= gamma <= 1: P[first zero of A_k ~ Bern(gamma / k)
    at an odd k] = sum_k (-gamma)^(k-1) / (k-1)! - ... = exp(-gamma)."""
    k = 1
    while bernoulli(gamma / k, rng):
        k += 1
    return k % 2 == 1


def bernoulli_exp(gamma: Fraction, rng: np.random.Generator) -> bool:
    """True with probability exactly exp(-gamma) (rational gamma >= 0)."""
    if gamma < 0:
        raise ValueError("bernoulli_exp needs gamma >= 0")
    whole = math.floor(gamma)
    for _ in range(whole):
        if not _bernoulli_exp_unit(Fraction(1), rng):
            return False
    return _bernoulli_exp_unit(gamma - whole, rng)


def discrete_laplace(t: int, rng: np.random.Generator) -> int:
    """P[Y = y] = (e^(1/t) - 1) / (e^(1/t) + 1) ``exp(-|y| / t)`` for an integer t >= 1:
    a geometric magnitude U + t V (U uniform below t, accepted with probability
    exp(-U / t); V the number of successes before the first failure of Bernoulli(1/e)),
    a fair sign, and -0 rejected."""
    while True:
        u = uniform_below(t, rng)
        if not bernoulli_exp(Fraction(u, t), rng):
            continue
        v = 0
        while bernoulli_exp(Fraction(1), rng):
            v += 1
        x = u + t * v
        negative = bernoulli(Fraction(1, 2), rng)
        if negative and x == 0:
            continue
        return -x if negative else x


def discrete_gaussian(sigma2: Fraction, rng: np.random.Generator) -> int:
    """P[Y = y] proportional to exp(-y^2 / (2 sigma2)) over the integers (sigma2 > 0
    rational), by rejection from :func:`discrete_laplace` of scale floor(sigma) + 1."""
    if sigma2 <= 0:
        raise ValueError("discrete_gaussian needs sigma2 > 0")
    t = math.isqrt(sigma2.numerator // sigma2.denominator) + 1
    while True:
        y = discrete_laplace(t, rng)
        gap = abs(y) - sigma2 / t
        if bernoulli_exp(gap * gap / (2 * sigma2), rng):
            return y

