"""R23-Def4.2 and R23-Def4.3: noise-reduction mechanisms and stopping functions.

R23-Def4.2 (seed 000): "M is a noise reduction mechanism if for all neighbours x, x'
and every k >= 1, L^{(1:k)} = L^{(k)}" on a grid of time values
"t^{(1)} > t^{(2)} > ... > t^{(k)} > 0".  R23-Def4.3: "T is a stopping function if for
every x, T(x) := T(A(x)) is a stopping time with respect to F^{(k)}(x) =
sigma(A^{(i)}(x) : i <= k)": it reads the released prefix only, never the data.

Everything is vectorised over a batch of paths (docs/design.md, adversaries act on batches):
values have shape ``(paths, k, d)``.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Protocol

import numpy as np
from numpy.typing import ArrayLike, NDArray

from adaptive_dp.errors import GridError, NonFiniteError, ParameterError

__all__ = [
    "NoiseReductionMechanism",
    "NoiseReductionRelease",
    "StoppingFunction",
    "check_time_grid",
    "never_stop",
    "run_noise_reduction",
]


class StoppingFunction(Protocol):
    """R23-Def4.3: a stopping function, a callable of the released prefix only.

    Called after the k-th release with ``times`` of shape ``(k,)`` (the time values
    released so far) and ``values`` of shape ``(paths, k, d)``: row i is path i's
    released prefix (NaN after the release at which path i already stopped); returns
    a boolean array of shape ``(paths,)``: True stops path i after its k-th release
    (ignored for paths already stopped).  Row i must be decided from row i (and public
    per-path state the caller holds, such as earlier rounds' outputs of session i)
    only: never f(x), the noise or the future of the grid.
    """

    def __call__(
        self, times: NDArray[np.float64], values: NDArray[np.float64], /
    ) -> ArrayLike: ...


def never_stop(times: NDArray[np.float64], values: NDArray[np.float64]) -> NDArray[np.bool_]:
    """R23-Def4.3: the constant stopping function T = k (run the whole grid)."""
    return np.zeros(values.shape[0], dtype=bool)


@dataclass(frozen=True, slots=True)
class NoiseReductionRelease:
    """What a batch of noise reductions released (R23-Def4.4's ((t^{(k)}, y_k))_{k<=T}).

    ``times``: the grid ``(K,)``; ``values``: ``(paths, K, d)`` with NaN after each
    path's stop; ``stop``: ``(paths,)`` the number T of releases of each path
    (1 <= T <= K), so the last released time value is ``times[stop - 1]``.
    """

    times: NDArray[np.float64]
    values: NDArray[np.float64]
    stop: NDArray[np.int64]

    @property
    def t_stop(self) -> NDArray[np.float64]:
        """The smallest released time value of each path, t^{(T)}."""
        return self.times[self.stop - 1]

    @property
    def last_value(self) -> NDArray[np.float64]:
        """The last released value y_T of each path, shape ``(paths, d)``."""
        idx = np.arange(self.values.shape[0])
        return self.values[idx, self.stop - 1, :]


class NoiseReductionMechanism(Protocol):
    """R23-Def4.2: a noise-reduction mechanism on a strictly decreasing grid.

    ``logpdf_prefix`` is the joint log density of the first ``length`` releases (the
    reference measure of the unshifted process, R23 Appendix A), so that
    ``loss/`` can compute L^{(1:T)} from the whole released prefix.
    """

    sensitivity: Fraction
    times: tuple[float, ...]

    def release(
        self,
        center: ArrayLike,
        stop: StoppingFunction,
        rng: np.random.Generator,
        paths: int = 1,
    ) -> NoiseReductionRelease: ...

    def logpdf_prefix(
        self, values: NDArray[np.float64], center: ArrayLike, length: ArrayLike
    ) -> NDArray[np.float64]: ...


def check_time_grid(times: Sequence[float] | NDArray[np.float64], name: str = "times") -> (
    tuple[float, ...]
):
    """Validate R23-Def4.2's grid "t^{(1)} > t^{(2)} > ... > t^{(k)} > 0" (finite floats)."""
    grid = tuple(float(t) for t in times)
    if not grid:
        raise GridError(name, grid, "a non-empty grid of time values")
    for t in grid:
        if not math.isfinite(t):
            raise NonFiniteError(name, grid, "finite time values")
    if grid[-1] <= 0:
        raise GridError(name, grid, "time values > 0")
    for a, b in itertools.pairwise(grid):
        if not a > b:
            raise GridError(name, grid, "a strictly decreasing grid t(1) > t(2) > ... > 0")
    return grid


def run_noise_reduction(
    times: tuple[float, ...],
    noise: NDArray[np.float64],
    center: NDArray[np.float64],
    stop: StoppingFunction,
) -> NoiseReductionRelease:
    """Release ``center + noise[:, k]`` for k = 1, 2, ... until ``stop`` fires.

    ``noise`` is the whole noise path ``(paths, K, d)``, already sampled with the
    right joint law; the stopping function is shown only the released prefix of the
    paths still running (R23-Def4.3), and nothing after a path's stop is released.
    """
    paths, k_max, _ = noise.shape
    values = center[None, None, :] + noise
    t = np.asarray(times, dtype=np.float64)
    stop_at = np.full(paths, k_max, dtype=np.int64)
    running = np.ones(paths, dtype=bool)
    for k in range(1, k_max):
        if not running.any():
            break
        fired = np.asarray(stop(t[:k], values[:, :k, :]), dtype=bool)
        if fired.shape != (paths,):
            raise ParameterError("stop", fired.shape, f"a boolean array of shape {(paths,)}")
        newly = fired & running
        if not newly.any():  # performance only: nothing stops at this step
            continue
        stop_at[newly] = k
        running &= ~newly
        values[newly, k:, :] = np.nan  # never shown: not released
    return NoiseReductionRelease(times=t, values=values, stop=stop_at)
