"""Mechanism protocol conformance and validation of the array forms (R23-Def2.2,
R23-Def2.5, EXT-RandomizedResponse)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from adaptive_dp.errors import NegativeParameterError, NonFiniteError, ParameterError
from adaptive_dp.mechanisms import (
    GaussianMechanism,
    LaplaceMechanism,
    Mechanism,
    RandomizedResponse,
    gaussian_logpdf,
    gaussian_sample,
    laplace_logpdf,
    laplace_sample,
    rr_logpmf,
    rr_sample,
)

MECHANISMS: list[Mechanism] = [
    GaussianMechanism(1, "0.5"),
    LaplaceMechanism(2, 3),
    RandomizedResponse("0.7"),
]


@pytest.mark.parametrize("mech", MECHANISMS, ids=lambda m: type(m).__name__)
def test_protocol_shapes(mech: Mechanism) -> None:
    assert isinstance(mech, Mechanism)
    assert isinstance(mech.sensitivity, Fraction)
    rng = np.random.default_rng(0)
    centers = np.array([[0.0, 1.0, 0.0], [1.0, 1.0, 0.0]])
    out = mech.sample(centers, rng)
    assert out.shape == centers.shape and out.dtype == np.float64
    lp = mech.logpdf(out, centers)
    assert lp.shape == centers.shape and np.all(np.isfinite(lp))
    # broadcasting: a row of outputs against a column of centers
    lp2 = mech.logpdf(np.array([0.0, 1.0]), np.array([[0.0], [1.0]]))
    assert lp2.shape == (2, 2)


@pytest.mark.parametrize("mech", MECHANISMS, ids=lambda m: type(m).__name__)
def test_sampler_is_reproducible(mech: Mechanism) -> None:
    a = mech.sample(np.zeros(50), np.random.default_rng(7))
    b = mech.sample(np.zeros(50), np.random.default_rng(7))
    assert np.array_equal(a, b)


def test_array_forms_broadcast_parameters() -> None:
    rng = np.random.default_rng(1)
    scales = np.array([0.5, 1.0, 2.0])
    assert laplace_sample(0.0, scales, rng).shape == (3,)
    assert gaussian_sample(np.zeros((2, 1)), scales, rng).shape == (2, 3)
    assert rr_sample(np.array([0.0, 1.0]), np.array([[0.1], [2.0]]), rng).shape == (2, 2)
    assert laplace_logpdf(0.0, 0.0, scales).shape == (3,)
    assert gaussian_logpdf(0.0, 0.0, scales).shape == (3,)
    assert rr_logpmf(0.0, 1.0, np.array([0.0, 1.0])).shape == (2,)


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (lambda: laplace_logpdf(0.0, 0.0, 0.0), NegativeParameterError),
        (lambda: laplace_logpdf(0.0, 0.0, [1.0, -1.0]), NegativeParameterError),
        (lambda: laplace_sample(0.0, np.nan, np.random.default_rng()), NonFiniteError),
        (lambda: gaussian_logpdf(0.0, 0.0, np.inf), NonFiniteError),
        (lambda: gaussian_sample(0.0, -2.0, np.random.default_rng()), NegativeParameterError),
        (lambda: rr_logpmf(0.0, 0.5, 1.0), ParameterError),
        (lambda: rr_logpmf(0.0, 1.0, -1.0), NegativeParameterError),
        (lambda: rr_sample(2.0, 1.0, np.random.default_rng()), ParameterError),
        (lambda: rr_sample(1.0, np.inf, np.random.default_rng()), NonFiniteError),
    ],
)
def test_array_forms_validate(call: object, error: type[Exception]) -> None:
    with pytest.raises(error):
        call()  # type: ignore[operator]  # the parametrised lambdas are callables


def test_r23_sensitivity_of_a_histogram_exact() -> None:
    """R23-Sensitivity: the histogram of 3 records over 3 bins, neighbours replacing one
    record: one replacement moves one count down and another up, so Delta_1 = 2,
    Delta_inf = 1 and Delta_2 = sqrt 2 (rounded up: the float is the smallest >= sqrt 2)."""
    import itertools
    import math

    from adaptive_dp.mechanisms.base import sensitivity

    def hist(x: tuple[int, ...]) -> list[int]:
        return [x.count(b) for b in range(3)]

    data = list(itertools.product(range(3), repeat=3))
    pairs = [(x, y) for x in data for y in data
             if sum(a != b for a, b in zip(x, y, strict=True)) == 1]
    assert sensitivity(hist, pairs, 1) == 2
    assert sensitivity(hist, pairs, "inf") == 1
    root = sensitivity(hist, pairs, 2)
    assert Fraction(root) ** 2 >= 2 > Fraction(math.nextafter(root, 0)) ** 2
    mean = sensitivity(lambda x: [Fraction(sum(x), 3)], pairs, 1)  # exact 2/3, rounded up
    assert Fraction(mean) >= Fraction(2, 3) > Fraction(math.nextafter(mean, 0))
