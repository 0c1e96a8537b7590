"""Data for the relative-error application (R23 section 7.2).

* Synthetic Zipf data: ``n`` users, each drawing one element of the domain
  {1, ..., 300} with probability proportional to k^(-a); the histogram of their elements.
  The privacy analysis assumes only what R23 7.2 states: "a user can modify each count by
  at most 1" (each count has sensitivity 1), with the add/remove neighbouring relation.
* A word-count histogram from a local text file: one user per line, each distinct token
  of a line counted once for that user (so each count has sensitivity 1 and a user may
  change arbitrarily many counts), as R23 does with Reddit comments.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from adaptive_dp.errors import ParameterError

__all__ = [
    "DOMAIN",
    "WordHistogram",
    "word_count_histogram",
    "zipf_histograms",
    "zipf_probabilities",
]

DOMAIN = 300
"""R23 7.2: "all 300 elements' counts, even if they are zero in the data"."""

_TOKEN = re.compile(r"[^\W_]+(?:'[^\W_]+)*")


def zipf_probabilities(domain: int = DOMAIN, exponent: float = 1.0) -> NDArray[np.float64]:
    """p(k) = k^(-a) / sum_{j <= domain} j^(-a), k = 1..domain (a truncated Zipf law)."""
    if domain < 1:
        raise ParameterError("domain", domain, "an integer >= 1")
    if not exponent > 0 or not np.isfinite(exponent):
        raise ParameterError("exponent", exponent, "a finite exponent > 0")
    k = np.arange(1, domain + 1, dtype=np.float64)
    w = k ** (-float(exponent))
    out: NDArray[np.float64] = w / w.sum()
    return out


def zipf_histograms(
    n: int, trials: int, rng: np.random.Generator, domain: int = DOMAIN, exponent: float = 1.0
) -> NDArray[np.int64]:
    """``trials`` independent histograms of ``n`` Zipf users, shape ``(trials, domain)``."""
    if n < 0:
        raise ParameterError("n", n, "a sample size >= 0")
    if trials < 1:
        raise ParameterError("trials", trials, "an integer >= 1")
    p = zipf_probabilities(domain, exponent)
    out: NDArray[np.int64] = rng.multinomial(n, p, size=trials).astype(np.int64)
    return out


@dataclass(frozen=True, slots=True)
class WordHistogram:
    """Distinct-user counts of tokens, sorted by decreasing count (ties: token order)."""

    tokens: tuple[str, ...]
    counts: tuple[int, ...]
    users: int

    def as_array(self) -> NDArray[np.int64]:
        return np.asarray(self.counts, dtype=np.int64)


def word_count_histogram(
    path: str | Path, top: int | None = None, lowercase: bool = True
) -> WordHistogram:
    """The word-count histogram of a local text file: one user per line (blank lines are
    users with no words), each distinct token counted once per user; tokens are runs of
    letters and digits (apostrophes inside a word kept), lowercased by default.

    ``top`` keeps the ``top`` most frequent tokens (R23 keeps the top 1000 words,
    chosen non-privately, as its domain).
    """
    if top is not None and top < 1:
        raise ParameterError("top", top, "an integer >= 1 or None")
    counter: Counter[str] = Counter()
    users = 0
    with Path(path).open(encoding="utf-8") as handle:
        for line in handle:
            users += 1
            text = line.lower() if lowercase else line
            counter.update(set(_TOKEN.findall(text)))
    ranked = sorted(counter.items(), key=lambda item: (-item[1], item[0]))
    if top is not None:
        ranked = ranked[:top]
    return WordHistogram(
        tokens=tuple(t for t, _ in ranked), counts=tuple(c for _, c in ranked), users=users
    )
