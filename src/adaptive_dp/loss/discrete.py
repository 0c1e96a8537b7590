"""Privacy-loss distributions with finitely many atoms (randomized response and its
compositions), and their exact composition by enumeration."""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np
from numpy.typing import ArrayLike, NDArray

from adaptive_dp.errors import NonFiniteError, ParameterError
from adaptive_dp.loss.base import PrivacyLossDistribution, finite_float

__all__ = ["DiscretePLD", "compose_discrete"]

_MASS_TOLERANCE = 1e-9


class DiscretePLD(PrivacyLossDistribution):
    """R23-Def2.3 for a finite output space: P[L = losses[i]] = exp(log_probs[i]).

    Atoms with equal loss are merged; atoms are kept sorted by loss. The total mass
    must be 1 within 1e-9 (it is renormalised exactly in log space). The swapped
    pair has atoms -l with probability P[L = l] e^{-l} (Q = P e^{-L}; every
    mechanism here has Q absolutely continuous with respect to P).
    """

    __slots__ = ("_cum", "_log_probs", "_losses", "_probs", "_suffix")

    def __init__(self, losses: Iterable[float], log_probs: Iterable[float]) -> None:
        ls = np.asarray([finite_float(x, "losses") for x in losses], dtype=np.float64)
        lp = np.asarray([float(x) for x in log_probs], dtype=np.float64)
        if ls.shape != lp.shape or ls.size == 0:
            raise ParameterError("log_probs", lp.size, f"{ls.size} log-probabilities, >= 1")
        if np.any(np.isnan(lp)) or np.any(lp == np.inf):
            raise NonFiniteError("log_probs", tuple(lp), "log-probabilities in [-inf, 0]")
        keep = lp > -np.inf
        ls, lp = ls[keep], lp[keep]
        order = np.argsort(ls, kind="stable")
        ls, lp = ls[order], lp[order]
        uniq, start = np.unique(ls, return_index=True)
        merged = np.logaddexp.reduceat(lp, start) if uniq.size else lp
        total = float(np.logaddexp.reduce(merged)) if merged.size else -math.inf
        if not abs(math.expm1(total)) <= _MASS_TOLERANCE:
            raise ParameterError("log_probs", total, "log-probabilities summing to 1")
        merged = merged - total
        probs = np.exp(merged)
        self._losses: tuple[float, ...] = tuple(float(x) for x in uniq)
        self._log_probs: tuple[float, ...] = tuple(float(x) for x in merged)
        self._probs = probs
        self._cum = np.concatenate(([0.0], np.cumsum(probs)))
        self._suffix = np.concatenate((np.cumsum(probs[::-1])[::-1], [0.0]))

    @property
    def losses(self) -> tuple[float, ...]:
        """The atoms of L, increasing."""
        return self._losses

    @property
    def log_probs(self) -> tuple[float, ...]:
        """log P[L = atom], one per atom."""
        return self._log_probs

    def __repr__(self) -> str:
        return f"DiscretePLD(atoms={len(self._losses)})"

    def cdf(self, loss: ArrayLike) -> NDArray[np.float64]:
        """P[L <= loss], atoms included (right-continuous)."""
        idx = np.searchsorted(np.asarray(self._losses), np.asarray(loss, dtype=np.float64), "right")
        out: NDArray[np.float64] = self._cum[idx]
        return out

    def sf(self, loss: ArrayLike) -> NDArray[np.float64]:
        """P[L > loss] (strict), summed from the top (accurate for small tails)."""
        idx = np.searchsorted(np.asarray(self._losses), np.asarray(loss, dtype=np.float64), "right")
        out: NDArray[np.float64] = self._suffix[idx]
        return out

    def rvs(self, size: int | tuple[int, ...], rng: np.random.Generator) -> NDArray[np.float64]:
        """Draws of L under P."""
        idx = rng.choice(len(self._losses), size=size, p=self._probs / self._probs.sum())
        out: NDArray[np.float64] = np.asarray(self._losses)[idx]
        return out

    def hockey_stick(self, epsilon: float) -> float:
        """delta(eps) = sum over atoms l > eps of P[L = l] (1 - e^{eps - l}) (exact sum)."""
        eps = finite_float(epsilon, "epsilon")
        terms = [
            math.exp(lp) * -math.expm1(eps - x)
            for x, lp in zip(self._losses, self._log_probs, strict=True)
            if x > eps
        ]
        return math.fsum(terms)

    def swap(self) -> DiscretePLD:
        """The other order: atoms -l with log-probability log P[L = l] - l."""
        return DiscretePLD(
            [-x for x in self._losses],
            [lp - x for x, lp in zip(self._losses, self._log_probs, strict=True)],
        )


def compose_discrete(parts: Iterable[DiscretePLD]) -> DiscretePLD:
    """The loss of independent mechanisms run together is the sum of their independent
    losses: exact enumeration of the product of atoms (equal sums are merged)."""
    losses = np.zeros(1)
    log_probs = np.zeros(1)
    for p in parts:
        losses = (losses[:, None] + np.asarray(p.losses)[None, :]).ravel()
        log_probs = (log_probs[:, None] + np.asarray(p.log_probs)[None, :]).ravel()
    return DiscretePLD(losses.tolist(), log_probs.tolist())
