"""Negative controls of the CS2080 basics (claims.cs2080_basics), one defect each.

- :class:`OneDirectionCheck` (of CS2080-PointwiseCheck): the pointwise check of each
  neighbouring pair in the listed order only, never the reverse.
- :class:`DataReadingPostProcessed` (of CS2080-PostProcessing): the "post-processing" also
  reads the dataset (adds its index, a count, to f(y)).
- :class:`OverlappingBinsHistogram` (of CS2080-Histogram, add/remove): the first and last
  bins overlap (a row of the last bin is counted in the first too).
- :class:`AddRemoveScaleHistogram` (of CS2080-Histogram, substitution): Laplace scale
  1/eps (sensitivity 1) under change-one-row adjacency.
- :data:`OVERLAPPING_PARTS` (of CS2080-ParallelComp): a partition whose two eps = 1 parts
  share the label 2.
- :class:`MaxNotSumZCDP` (of CS2080-ZCDP): the rho's composed by their maximum.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from adaptive_dp.guarantees.definitions import ZCDP
from adaptive_dp.mechanisms.teaching import (
    DPHistogram,
    FiniteMechanism,
    PostProcessed,
    SlideZCDP,
)

__all__ = [
    "OVERLAPPING_PARTS",
    "AddRemoveScaleHistogram",
    "DataReadingPostProcessed",
    "MaxNotSumZCDP",
    "OneDirectionCheck",
    "OverlappingBinsHistogram",
]

OVERLAPPING_PARTS: tuple[tuple[int, ...], ...] = ((0,), (1, 2), (2, 3))
"""Twin of CS2080-ParallelComp: parts 1 and 2 overlap in the rows labelled 2."""


@dataclass(frozen=True, slots=True, eq=False)
class OneDirectionCheck(FiniteMechanism):
    """Twin of CS2080-PointwiseCheck: checks P_x(y) <= e^eps P_x'(y) for the listed order
    (x, x') of each pair only."""

    def _ordered(self) -> tuple[tuple[int, int], ...]:
        return self.neighbours


@dataclass(frozen=True, slots=True, eq=False)
class DataReadingPostProcessed(PostProcessed):
    """Twin of CS2080-PostProcessing: releases f(y) + dataset, a function of the data too."""

    def _process(self, y: NDArray[np.int64], dataset: int) -> NDArray[np.int64]:
        return self.f(y) + dataset


@dataclass(frozen=True, slots=True, init=False)
class OverlappingBinsHistogram(DPHistogram):
    """Twin of CS2080-Histogram (add/remove): bins 0 and k-1 overlap, so a row labelled
    k-1 is counted in both."""

    def counts(self, rows: ArrayLike) -> NDArray[np.int64]:
        out = DPHistogram.counts(self, rows)
        out[..., 0] += np.sum(np.asarray(rows) == self.bins - 1, axis=-1)
        return out


@dataclass(frozen=True, slots=True, init=False)
class AddRemoveScaleHistogram(DPHistogram):
    """Twin of CS2080-Histogram (substitution): the add/remove sensitivity 1 is used."""

    def _sensitivity(self) -> int:
        return 1


@dataclass(frozen=True, slots=True)
class MaxNotSumZCDP(SlideZCDP):
    """Twin of CS2080-ZCDP: the largest rho charged instead of their sum."""

    def rho(self) -> ZCDP:
        return max(self.parts(), key=lambda g: g.rho)
