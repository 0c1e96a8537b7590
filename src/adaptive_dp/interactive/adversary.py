"""The ``Adversary`` protocol (docs/design.md, principle 9 and verification: adversaries).

An adversary interacts with a sequence of mechanisms and picks each next mechanism
and its privacy parameter from the outputs released so far. It acts on a *batch* of
independent paths at once (numpy arrays, one row per path), never one Python call per
path per step.

Mechanism kinds are small integers (:data:`LAPLACE`, :data:`GAUSSIAN`,
:data:`RANDOMIZED_RESPONSE`); a request's ``param`` is the mechanism's privacy
parameter at sensitivity 1: epsilon for Laplace (scale ``1 / epsilon``) and randomized
response, ``mu = 1 / sigma`` for the Gaussian mechanism (rho = mu^2 / 2).

Strategy families live in :mod:`adaptive_dp.verify.judge.adversaries`; the batch view and
request values in :mod:`adaptive_dp.verify.judge.simulate`.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "GAUSSIAN",
    "KINDS",
    "LAPLACE",
    "RANDOMIZED_RESPONSE",
    "Adversary",
    "AdversaryView",
    "BatchRequest",
]

LAPLACE = 0
GAUSSIAN = 1
RANDOMIZED_RESPONSE = 2
KINDS = {LAPLACE: "laplace", GAUSSIAN: "gaussian", RANDOMIZED_RESPONSE: "rr"}


class AdversaryView(Protocol):
    """What an adversary sees of a batch after ``step`` releases.

    ``outputs``, ``kinds`` and ``params`` have shape ``(paths, step)``; entries of a
    path that had stopped (or whose request was refused) are NaN / -1 / 0. ``loss`` is
    ``log p_x(view) / p_x'(view)`` of each path's released transcript on the worst-case
    neighbours: a function of the outputs and the public parameters only, handed over
    as a convenience. ``active`` is False for paths that have stopped.
    ``param_sum`` and ``param_sq_sum`` are each path's running sums of the released
    parameters and of their squares (epsilon spent; mu^2 = 2 rho spent), kept by the
    simulator so that an adversary need not re-add its whole history at every step.
    """

    @property
    def step(self) -> int: ...

    @property
    def paths(self) -> int: ...

    @property
    def outputs(self) -> NDArray[np.float64]: ...

    @property
    def kinds(self) -> NDArray[np.int8]: ...

    @property
    def params(self) -> NDArray[np.float64]: ...

    @property
    def loss(self) -> NDArray[np.float64]: ...

    @property
    def active(self) -> NDArray[np.bool_]: ...

    @property
    def param_sum(self) -> NDArray[np.float64]: ...

    @property
    def param_sq_sum(self) -> NDArray[np.float64]: ...


class BatchRequest(Protocol):
    """One next-release choice per path: kind, parameter, and whether to go on."""

    @property
    def kind(self) -> NDArray[np.int8]: ...

    @property
    def param(self) -> NDArray[np.float64]: ...

    @property
    def go(self) -> NDArray[np.bool_]: ...


class Adversary(Protocol):
    """An adaptive adversary acting on a batch of paths.

    ``choose`` returns, for every path, the next mechanism's kind and parameter and
    whether to continue (``go`` False stops that path for good). It may depend only on
    ``view`` (the released outputs and public parameters) and on ``rng`` (the
    adversary's own randomness).
    """

    @property
    def horizon(self) -> int:
        """The largest number of releases it ever requests."""
        ...

    def choose(self, view: AdversaryView, rng: np.random.Generator) -> BatchRequest: ...
