"""Performance paths of the mechanisms give the same bits as the plain formulas.

The plain formulas are written out here (as the mechanisms computed them before the
fast paths): randomized response with exp/log1p over the whole epsilon array, the log
ratios as differences of two log densities, the samplers as center + scale * noise, the
Brownian step with 0-d arrays. Equality is of the float64 bit patterns.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

from adaptive_dp.errors import NegativeParameterError, NonFiniteError, ParameterError
from adaptive_dp.mechanisms import (
    gaussian_logpdf,
    gaussian_sample,
    laplace_logpdf,
    laplace_sample,
    rr_logpmf,
    rr_sample,
)
from adaptive_dp.mechanisms.brownian import brownian_backward_step, brownian_sample
from adaptive_dp.mechanisms.gaussian import gaussian_log_ratio
from adaptive_dp.mechanisms.laplace import laplace_log_ratio
from adaptive_dp.mechanisms.randomized_response import rr_log_ratio

Array = NDArray[np.float64]


def _bits(a: object) -> NDArray[np.uint64]:
    return np.ascontiguousarray(np.asarray(a, dtype=np.float64)).view(np.uint64)


def _same(a: object, b: object) -> bool:
    x, y = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return x.shape == y.shape and bool(np.array_equal(_bits(x), _bits(y)))


def _plain_logpmf(y: Array, bit: float, eps: Array) -> Array:
    log_true = -np.log1p(np.exp(-eps))
    log_false = log_true - eps
    out: Array = np.where(y == bit, log_true, np.where(y == 1.0 - bit, log_false, -np.inf))
    return out


def _plain_rr_sample(bit: float, eps: Array, rng: np.random.Generator) -> Array:
    shape = np.broadcast_shapes(np.shape(bit), eps.shape)
    keep = rng.random(shape) < np.exp(-np.log1p(np.exp(-eps)))
    out: Array = np.where(keep, bit, 1.0 - bit)
    return out


_RNG = np.random.default_rng(7)
EPSILONS: dict[str, Array] = {
    "constant": np.full((40, 30), 0.1),
    "constant-zero": np.zeros(17),
    "two-values": np.where(_RNG.random(500) < 0.5, 0.05, 0.2),
    "many": _RNG.random(700) * 4,
    "one": np.array([0.37]),
    "scalar": np.array(1.3),
}


@pytest.mark.parametrize("name", sorted(EPSILONS))
@pytest.mark.parametrize("bit", [0.0, 1.0])
def test_rr_equals_the_plain_formulas(name: str, bit: float) -> None:
    eps = EPSILONS[name]
    y = rr_sample(bit, eps, np.random.default_rng(3))
    assert _same(y, _plain_rr_sample(bit, eps, np.random.default_rng(3)))
    odd = np.where(np.arange(y.size).reshape(y.shape) % 7 == 0, 0.5, y)  # non-bits: -inf
    for yy in (y, odd):
        assert _same(rr_logpmf(yy, bit, eps), _plain_logpmf(yy, bit, eps))
        with np.errstate(invalid="ignore"):
            plain = _plain_logpmf(yy, bit, eps) - _plain_logpmf(yy, 1.0 - bit, eps)
        assert _same(rr_log_ratio(yy, bit, eps), plain)


def test_rr_broadcasts_a_constant_epsilon_to_the_full_shape() -> None:
    out = rr_logpmf(np.array([0.0, 1.0]), 0.0, np.full((3, 2), 0.4))
    assert out.shape == (3, 2)
    assert _same(out, _plain_logpmf(np.array([0.0, 1.0]), 0.0, np.full((3, 2), 0.4)))


@pytest.mark.parametrize(
    ("eps", "error"),
    [(np.full(5, -1.0), NegativeParameterError), (np.full(5, np.inf), NonFiniteError),
     (np.full(5, np.nan), NonFiniteError), (np.array([0.1, np.nan]), NonFiniteError),
     ([0.2, -0.2], NegativeParameterError)],
)
def test_rr_refuses_bad_epsilons_naming_the_input(eps: Any, error: type[Exception]) -> None:
    with pytest.raises(error, match="epsilon="):
        rr_logpmf(0.0, 0.0, eps)
    with pytest.raises(error, match="epsilon="):
        rr_sample(0.0, eps, _RNG)
    with pytest.raises(error, match="epsilon="):
        rr_log_ratio(0.0, 0.0, eps)


@pytest.mark.parametrize("center", [0.0, -0.0, 1.0, 2.5])
@pytest.mark.parametrize("other", [0.0, 1.0, -3.0])
def test_log_ratios_equal_differences_of_log_densities(center: float, other: float) -> None:
    rng = np.random.default_rng(11)
    y = np.concatenate([rng.standard_normal(300) * 3, [0.0, -0.0, 1e-300, -7.5]])
    scale = rng.random(y.size) * 5 + 1e-3
    assert _same(gaussian_log_ratio(y, center, other, scale),
                 gaussian_logpdf(y, center, scale) - gaussian_logpdf(y, other, scale))
    assert _same(laplace_log_ratio(y, center, other, scale),
                 laplace_logpdf(y, center, scale) - laplace_logpdf(y, other, scale))
    out, scratch = np.empty(y.size), (np.empty(y.size), np.empty(y.size))
    assert gaussian_log_ratio(y, center, other, scale, out=out, scratch=scratch) is out
    assert _same(out, gaussian_logpdf(y, center, scale) - gaussian_logpdf(y, other, scale))
    assert laplace_log_ratio(y, center, other, scale, out=out, scratch=scratch[0]) is out
    assert _same(out, laplace_logpdf(y, center, scale) - laplace_logpdf(y, other, scale))


def test_log_ratios_broadcast_a_scalar_scale_and_refuse_aliasing() -> None:
    y = np.linspace(-2, 2, 9)
    assert _same(gaussian_log_ratio(y, 0.0, 1.0, 0.7),
                 gaussian_logpdf(y, 0.0, 0.7) - gaussian_logpdf(y, 1.0, 0.7))
    with pytest.raises(ValueError, match="share memory"):
        gaussian_log_ratio(y, 0.0, 1.0, 0.7, out=y)
    with pytest.raises(ValueError, match="share memory"):
        laplace_log_ratio(y, 0.0, 1.0, 0.7, out=y)
    with pytest.raises(NonFiniteError):
        gaussian_log_ratio(y, 0.0, 1.0, np.inf)
    with pytest.raises(NegativeParameterError):
        laplace_log_ratio(y, 0.0, 1.0, np.full(9, -1.0))


@pytest.mark.parametrize("center", [0.0, 1.0, np.array([0.0, 1.0, 2.0])])
def test_samplers_equal_center_plus_scale_times_noise(center: Any) -> None:
    scale = np.array([0.5, 1.0, 3.0])
    g = np.random.default_rng(5).standard_normal(3)
    lap = np.random.default_rng(5).laplace(0.0, 1.0, 3)
    c = np.asarray(center, dtype=np.float64)
    assert _same(gaussian_sample(center, scale, np.random.default_rng(5)), c + scale * g)
    assert _same(laplace_sample(center, scale, np.random.default_rng(5)), c + scale * lap)
    out = np.empty(3)
    assert gaussian_sample(center, scale, np.random.default_rng(5), out=out) is out
    assert _same(out, c + scale * g)
    assert laplace_sample(center, scale, np.random.default_rng(5), out=out) is out
    assert _same(out, c + scale * lap)


def _plain_backward(b: Array, t1: float, t2: float, rng: np.random.Generator) -> Array:
    a1, a2 = np.asarray(t1, dtype=np.float64), np.asarray(t2, dtype=np.float64)
    mean = (a2 / a1) * b
    sd = np.sqrt(a2 * (a1 - a2) / a1)
    out: Array = mean + sd * rng.standard_normal(mean.shape)
    return out


@pytest.mark.parametrize(("t1", "t2"), [(2.0, 1.0), (100.0, 1e-3), (1.0, 0.999999), (3, 1)])
def test_brownian_step_with_scalar_times_equals_the_array_formula(t1: float, t2: float) -> None:
    b = np.random.default_rng(1).standard_normal((20, 3)) * 4
    got = brownian_backward_step(b, t1, t2, np.random.default_rng(9))
    assert _same(got, _plain_backward(b, t1, t2, np.random.default_rng(9)))
    as_arrays = brownian_backward_step(b, np.float64(t1), np.array(float(t2)),
                                       np.random.default_rng(9))
    assert _same(got, as_arrays)


@pytest.mark.parametrize(("t1", "t2"), [(1.0, 1.0), (1.0, 2.0), (1.0, 0.0), (1.0, math.nan)])
def test_brownian_step_refuses_bad_scalar_times(t1: float, t2: float) -> None:
    with pytest.raises(ParameterError, match="t_to"):
        brownian_backward_step(np.zeros(2), t1, t2, np.random.default_rng(0))


@pytest.mark.parametrize(
    ("y", "bit", "eps"),
    [(0.0, 0.0, 0.3), (np.array(1.0), 1.0, np.full(3, 0.2)), ([0.0, 1.0, 0.5], 1.0, 0.2),
     (0.0, [0.0, 1.0], 0.3), (np.array([[0.0], [1.0]]), [0.0, 1.0, 1.0], np.full(3, 0.7))],
)
def test_rr_shapes_and_types_are_those_of_the_plain_formulas(y: Any, bit: Any, eps: Any) -> None:
    yy, b, e = (np.asarray(v, dtype=np.float64) for v in (y, bit, eps))
    got, want = rr_logpmf(y, bit, eps), _plain_logpmf(yy, b, e)  # type: ignore[arg-type]
    assert type(got) is type(want) and _same(got, want)
    rng_a, rng_b = np.random.default_rng(2), np.random.default_rng(2)
    got_s, want_s = rr_sample(bit, eps, rng_a), _plain_rr_sample(b, e, rng_b)  # type: ignore[arg-type]
    assert type(got_s) is type(want_s) and _same(got_s, want_s)


@pytest.mark.parametrize(("paths", "dim"), [(50, 1), (7, 3), (1, 1)])
def test_brownian_sample_equals_one_backward_step_at_a_time(paths: int, dim: int) -> None:
    grid = (40.0, 9.0, 4.0, 1.5, 1.0, 0.25)
    rng_a, rng_b = np.random.default_rng(6), np.random.default_rng(6)
    got = brownian_sample(grid, paths, dim, rng_a)
    want = np.empty((paths, len(grid), dim))
    want[:, 0, :] = np.sqrt(grid[0]) * rng_b.standard_normal((paths, dim))
    for k in range(1, len(grid)):
        want[:, k, :] = _plain_backward(want[:, k - 1, :], grid[k - 1], grid[k], rng_b)
    assert _same(got, want)
    assert rng_a.random() == rng_b.random()  # the generator is left where it would be
