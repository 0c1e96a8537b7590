"""H23-Lem2.3 on small finite games: deterministic adversaries suffice.

A finite game is a batch of finite interactive mechanisms with ``queries`` possible
queries, ``answers`` possible answers and ``rounds`` rounds, given exactly as
probability tables under x and x': ``tables[r][b, h, q, a]`` is the probability of
answer ``a`` to query ``q`` in round ``r`` of game ``b`` after the transcript prefix
``h`` (the prefix (q_1, a_1, ..., q_r, a_r) read as a number in base ``queries *
answers``). The adversary's view is the transcript (q_1, a_1, ..., q_R, a_R).

A deterministic adversary is a strategy tree: one query for every answer prefix
(a_1, ..., a_{r-1}), ``sum_r answers^(r-1)`` nodes, so ``queries`` to that power trees
(:func:`strategy_trees`). A randomized adversary is a mixture of strategy trees (a
behavioral strategy is one, by Kuhn's theorem). Both views are enumerated exactly (in
float64) and their hockey-stick divergences sum_w (P(w) - e^epsilon Q(w))_+ computed from
the view distributions; :func:`deterministic_max` is the lemma's maximum and
:func:`mixture_value` the value of any randomized adversary, never above it.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "FiniteGame",
    "deterministic_max",
    "deterministic_values",
    "mixture_value",
    "random_games",
    "strategy_trees",
    "transcripts",
    "view_hockey_stick",
]

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]


@dataclass(frozen=True, slots=True)
class FiniteGame:
    """A batch of finite interactive mechanisms, exact answer tables under x and x'
    (``tables_x[r]`` has shape (batch, (queries * answers)^r, queries, answers))."""

    queries: int
    answers: int
    tables_x: tuple[FloatArray, ...]
    tables_x_prime: tuple[FloatArray, ...]

    @property
    def rounds(self) -> int:
        return len(self.tables_x)

    @property
    def batch(self) -> int:
        return int(self.tables_x[0].shape[0])

    def swapped(self) -> FiniteGame:
        """The same games with x and x' exchanged (the other order of the pair)."""
        return FiniteGame(self.queries, self.answers, self.tables_x_prime, self.tables_x)


def random_games(batch: int, rounds: int, queries: int, answers: int,
                 rng: np.random.Generator) -> FiniteGame:
    """``batch`` games whose every answer distribution, under x and under x', is an
    independent uniform draw from the simplex (Dirichlet(1))."""

    def tables() -> tuple[FloatArray, ...]:
        out = []
        for r in range(rounds):
            shape = (batch, (queries * answers) ** r, queries)
            out.append(rng.dirichlet(np.ones(answers), size=shape))
        return tuple(out)

    return FiniteGame(queries, answers, tables(), tables())


def transcripts(game: FiniteGame) -> IntArray:
    """Every transcript as rows (q_1, a_1, ..., q_R, a_R), in lexicographic order."""
    sizes = [game.queries, game.answers] * game.rounds
    return np.array(list(itertools.product(*(range(s) for s in sizes))),
                    dtype=np.int64).reshape(-1, 2 * game.rounds)


def _transcript_probabilities(game: FiniteGame, tables: tuple[FloatArray, ...]) -> FloatArray:
    """P(answers | queries) of every transcript, shape (batch, transcripts)."""
    rows = transcripts(game)
    prob = np.ones((game.batch, rows.shape[0]))
    prefix = np.zeros(rows.shape[0], dtype=np.int64)
    for r, table in enumerate(tables):
        q, a = rows[:, 2 * r], rows[:, 2 * r + 1]
        prob = prob * table[:, prefix, q, a]
        prefix = prefix * (game.queries * game.answers) + q * game.answers + a
    return prob


def strategy_trees(rounds: int, queries: int, answers: int) -> IntArray:
    """Every deterministic adversary: row s gives the query at each answer-prefix node
    (nodes of round r, prefixes (a_1..a_{r-1}) in lexicographic order, after those of
    earlier rounds)."""
    nodes = sum(answers**r for r in range(rounds))
    return np.array(list(itertools.product(range(queries), repeat=nodes)),
                    dtype=np.int64).reshape(-1, nodes)


def _consistent(game: FiniteGame, trees: IntArray) -> NDArray[np.bool_]:
    """C[s, t]: tree s asks, at every round of transcript t, the query t records."""
    rows = transcripts(game)
    ok = np.ones((trees.shape[0], rows.shape[0]), dtype=bool)
    node = np.zeros(rows.shape[0], dtype=np.int64)
    offset = 0
    for r in range(game.rounds):
        ok &= trees[:, offset + node] == rows[None, :, 2 * r]
        offset += game.answers**r
        node = node * game.answers + rows[:, 2 * r + 1]
    return ok


def view_hockey_stick(p: FloatArray, q: FloatArray, epsilon: FloatArray) -> FloatArray:
    """sum_w (P(w) - e^epsilon Q(w))_+ over the last axis (views as rows)."""
    out: FloatArray = np.maximum(p - np.exp(epsilon)[:, None] * q, 0.0).sum(axis=-1)
    return out


def deterministic_values(game: FiniteGame, epsilon: FloatArray,
                         trees: IntArray | None = None) -> FloatArray:
    """The hockey-stick divergence of the view of each deterministic adversary (all
    strategy trees unless ``trees`` is given), shape (batch, trees): each tree's view
    distribution is the transcripts it can produce, with their probabilities."""
    if trees is None:
        trees = strategy_trees(game.rounds, game.queries, game.answers)
    px = _transcript_probabilities(game, game.tables_x)
    pq = _transcript_probabilities(game, game.tables_x_prime)
    consistent = _consistent(game, trees)
    out = np.empty((game.batch, trees.shape[0]))
    for s in range(trees.shape[0]):
        mask = consistent[s]
        out[:, s] = view_hockey_stick(px[:, mask], pq[:, mask], epsilon)
    return out


def deterministic_max(game: FiniteGame, epsilon: FloatArray) -> FloatArray:
    """H23-Lem2.3: "M is d-D DP iff the defining inequality holds for every
    deterministic adversary": the supremum over every (randomized) adversary of the
    view's hockey-stick divergence at ``epsilon`` equals this maximum over the strategy
    trees (joint convexity: a randomized adversary's view is a mixture of theirs)."""
    best: FloatArray = deterministic_values(game, epsilon).max(axis=1)
    return best


def mixture_value(game: FiniteGame, weights: FloatArray, epsilon: FloatArray) -> FloatArray:
    """The hockey-stick divergence of the view of the randomized adversary that plays
    strategy tree s with probability ``weights[b, s]`` (all trees of
    :func:`strategy_trees`): P(view) = (total weight of the trees that produce the
    transcript) x P(answers | queries), the same weight under x and x'."""
    trees = strategy_trees(game.rounds, game.queries, game.answers)
    weight = weights @ _consistent(game, trees).astype(np.float64)
    px = weight * _transcript_probabilities(game, game.tables_x)
    pq = weight * _transcript_probabilities(game, game.tables_x_prime)
    return view_hockey_stick(px, pq, epsilon)
