"""H23-Lem2.3 on finite games (adaptive_dp.interactive.games): the enumeration of strategy
trees and of mixtures against independent oracles (a recursive exact computation in
rationals, backward induction for the deterministic maximum, a planted game whose values
are known in closed form), and the twin ``non-adaptive-search``'s true exceedance."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from adaptive_dp.interactive.games import (
    FiniteGame,
    deterministic_max,
    deterministic_values,
    mixture_value,
    random_games,
    strategy_trees,
    transcripts,
)
from adaptive_dp.verify.registry.twins.concurrent import non_adaptive_max

Table = dict[tuple[tuple[int, ...], int], tuple[Fraction, ...]]


def _rational_game(rng: np.random.Generator, rounds: int, queries: int, answers: int
                   ) -> tuple[FiniteGame, Table, Table]:
    """A game with rational tables (denominator 12), also kept as dicts keyed by the
    transcript prefix and the query."""
    tables: list[list[np.ndarray]] = [[], []]
    dicts: list[Table] = [{}, {}]
    for side in (0, 1):
        for r in range(rounds):
            shape = ((queries * answers) ** r, queries, answers)
            arr = np.zeros((1, *shape))
            for h in range(shape[0]):
                digits = [(h // (queries * answers) ** k) % (queries * answers)
                          for k in reversed(range(r))]
                prefix = tuple(x for d in digits for x in (d // answers, d % answers))
                for q in range(queries):
                    cuts = np.sort(rng.integers(0, 13, answers - 1))
                    parts = np.diff(np.concatenate(([0], cuts, [12])))
                    probs = tuple(Fraction(int(p), 12) for p in parts)
                    dicts[side][(prefix, q)] = probs
                    arr[0, h, q] = [float(p) for p in probs]
            tables[side].append(arr)
    game = FiniteGame(queries, answers, tuple(tables[0]), tuple(tables[1]))
    return game, dicts[0], dicts[1]


def _tree_value(px: Table, pq: Table, tree: np.ndarray, rounds: int, answers: int,
                e: Fraction) -> Fraction:
    """sum over the tree's views of (P - e Q)_+, recursively, in rationals."""

    def walk(r: int, node: int, offset: int, prefix: tuple[int, ...], p: Fraction,
             q: Fraction) -> Fraction:
        if r == rounds:
            return max(p - e * q, Fraction(0))
        query = int(tree[offset + node])
        total = Fraction(0)
        for a in range(answers):
            total += walk(r + 1, node * answers + a, offset + answers**r,
                          (*prefix, query, a), p * px[(prefix, query)][a],
                          q * pq[(prefix, query)][a])
        return total

    return walk(0, 0, 0, (), Fraction(1), Fraction(1))


def _backward_induction(px: Table, pq: Table, rounds: int, queries: int, answers: int,
                        e: Fraction) -> Fraction:
    """The best deterministic adversary by choosing at each node the query of largest
    subtree value (the value of a subtree depends only on its own choices)."""

    def best(r: int, prefix: tuple[int, ...], p: Fraction, q: Fraction) -> Fraction:
        if r == rounds:
            return max(p - e * q, Fraction(0))
        return max(
            sum((best(r + 1, (*prefix, query, a), p * px[(prefix, query)][a],
                      q * pq[(prefix, query)][a]) for a in range(answers)), Fraction(0))
            for query in range(queries))

    return best(0, (), Fraction(1), Fraction(1))


def test_tree_counts_and_transcripts() -> None:
    assert strategy_trees(2, 2, 2).shape == (8, 3)
    assert strategy_trees(3, 2, 2).shape == (128, 7)
    assert strategy_trees(2, 3, 2).shape == (27, 3)
    game = random_games(1, 2, 3, 2, np.random.default_rng(0))
    assert transcripts(game).shape == (36, 4)


def test_values_match_rational_recursion_and_backward_induction() -> None:
    """H23-Lem2.3: each tree's value and the maximum, against exact rational oracles."""
    rng = np.random.default_rng(5)
    e = Fraction(3, 2)
    for rounds, queries, answers in ((2, 2, 2), (3, 2, 2), (2, 3, 2), (2, 2, 3)):
        game, px, pq = _rational_game(rng, rounds, queries, answers)
        eps = np.array([math.log(1.5)])
        values = deterministic_values(game, eps)[0]
        trees = strategy_trees(rounds, queries, answers)
        for s in range(trees.shape[0]):
            exact = _tree_value(px, pq, trees[s], rounds, answers, e)
            assert abs(values[s] - float(exact)) < 1e-12
        best = _backward_induction(px, pq, rounds, queries, answers, e)
        assert abs(deterministic_max(game, eps)[0] - float(best)) < 1e-12


def test_mixture_is_the_weighted_average_and_point_masses_are_trees() -> None:
    """A randomized adversary's view reveals its queries, so its hockey-stick is the
    average of its trees' (never above their maximum); a point mass is its tree."""
    rng = np.random.default_rng(1)
    game = random_games(50, 3, 2, 2, rng)
    eps = rng.uniform(0, 1, 50)
    values = deterministic_values(game, eps)
    weights = rng.dirichlet(np.full(128, 0.3), size=50)
    mix = mixture_value(game, weights, eps)
    assert np.allclose(mix, (weights * values).sum(axis=1), atol=1e-12)
    assert np.all(mix <= deterministic_max(game, eps) + 1e-12)
    point = np.eye(128)[np.full(50, 77)]
    assert np.allclose(mixture_value(game, point, eps), values[:, 77], atol=1e-15)


def _planted(eps_rr: float) -> FiniteGame:
    """Round 1: a public fair coin (the same under x and x' whatever the query). Round 2:
    the query equal to the coin is eps_rr-randomized response of the secret bit, the
    other query a fair coin: only an adaptive adversary always asks the leaky one."""
    p = math.exp(eps_rr) / (1 + math.exp(eps_rr))
    first = np.full((1, 1, 2, 2), 0.5)

    def second(bit: int) -> np.ndarray:
        t = np.full((1, 4, 2, 2), 0.5)
        for q1 in range(2):
            for a1 in range(2):
                t[0, q1 * 2 + a1, a1] = (p, 1 - p) if bit == 0 else (1 - p, p)
        return t

    return FiniteGame(2, 2, (first, second(0)), (first, second(1)))


def test_planted_game_closed_form() -> None:
    game = _planted(2.0)
    eps = np.array([0.0])
    tv = (math.exp(2) - 1) / (math.exp(2) + 1)  # total variation of RR_2
    assert abs(deterministic_max(game, eps)[0] - tv) < 1e-12
    assert abs(non_adaptive_max(game, eps)[0] - tv / 2) < 1e-12
    assert abs(deterministic_max(game.swapped(), eps)[0] - tv) < 1e-12


def test_non_adaptive_twin_true_exceedance() -> None:
    """The twin's claim scenario: the randomized value exceeds the non-adaptive maximum
    in far more than 2 x delta_min = 4% of random games (quick profile)."""
    rng = np.random.default_rng(11)
    n = 3000
    game = random_games(n, 3, 2, 2, rng)
    eps = rng.uniform(0, 1, n)
    values = deterministic_values(game, eps)
    eta = rng.uniform(0, 1, (n, 1)) ** 3
    weights = (1 - eta) * np.eye(128)[values.argmax(axis=1)] + eta * rng.dirichlet(
        np.full(128, 0.2), size=n)
    excess = mixture_value(game, weights, eps) - non_adaptive_max(game, eps)
    assert np.mean(excess > 1e-9) > 0.2
