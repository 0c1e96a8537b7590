"""Negative control of R23-LaplaceReleaseKernel, one defect.

- ``lazy-atom-not-squared``: the release kernel derived by Bayes from a lazy step
  Z = Z' + B W with B ~ Bern(1 - p) for p = eps/eps' instead of (eps/eps')^2. Its atom
  p f_{eps'}(z) / f_eps(z) = e^{-(eps' - eps)|z|} replaces (eps/eps') e^{-(eps' - eps)|z|};
  off the atom it keeps the valid kernel's shape, renormalised to the remaining mass
  (:func:`lazy_atom_step`, :func:`lazy_atom_logkernel`).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from adaptive_dp.mechanisms.laplace_process import (
    laplace_reverse_logkernel,
    laplace_reverse_step,
)

__all__ = ["lazy_atom_logkernel", "lazy_atom_step"]


def _atoms(z: NDArray[np.float64], t_from: float, t_to: float
           ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The twin's atom e^{-(eps' - eps)|z|} and the valid one (eps/eps') e^{-(eps' - eps)|z|}."""
    eps, eps2 = 1 / t_from, 1 / t_to
    twin = np.exp(-(eps2 - eps) * np.abs(z))
    return twin, (eps / eps2) * twin


def lazy_atom_step(z: NDArray[np.float64], t_from: float, t_to: float,
                   rng: np.random.Generator) -> NDArray[np.float64]:
    """Twin of R23-LaplaceReleaseKernel's sampler: keep z with the twin's atom, otherwise a
    draw of the valid kernel conditioned on moving (by rejection of kept draws)."""
    twin, _ = _atoms(z, t_from, t_to)
    out = np.array(z, dtype=np.float64)
    moving = np.flatnonzero(rng.random(z.shape) >= twin)
    while moving.size:
        draw = laplace_reverse_step(z.flat[moving], t_from, t_to, rng)
        moved = draw != z.flat[moving]
        out.flat[moving[moved]] = draw[moved]
        moving = moving[~moved]
    return out


def lazy_atom_logkernel(u: NDArray[np.float64], z: NDArray[np.float64], t_from: float,
                        t_to: float) -> NDArray[np.float64]:
    """Twin of R23-LaplaceReleaseKernel's density (atom on exact ties, as the valid one)."""
    twin, valid = _atoms(z, t_from, t_to)
    moved = laplace_reverse_logkernel(u, z, t_from, t_to) + np.log1p(-twin) - np.log1p(-valid)
    out: NDArray[np.float64] = np.where(u == z, np.log(twin), moved)
    return out


