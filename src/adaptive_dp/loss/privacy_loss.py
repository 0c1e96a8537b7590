"""R23-Def2.3: the privacy loss of an output, from the mechanism's densities only."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from adaptive_dp.mechanisms.base import Mechanism

__all__ = ["privacy_loss"]


def privacy_loss(
    mechanism: Mechanism, y: ArrayLike, center: ArrayLike, center_prime: ArrayLike
) -> NDArray[np.float64]:
    """R23-Def2.3: L(y; x, x') = log( p_x(y) / p_{x'}(y) ).

    "The privacy loss between neighbours x and x' at output y is
    log(Pr[M(x) = y] / Pr[M(x') = y])", computed as
    ``mechanism.logpdf(y, center) - mechanism.logpdf(y, center_prime)`` (vectorised),
    never from a closed form of the loss (docs/design.md, principle 8).
    """
    out: NDArray[np.float64] = mechanism.logpdf(y, center) - mechanism.logpdf(y, center_prime)
    return out
