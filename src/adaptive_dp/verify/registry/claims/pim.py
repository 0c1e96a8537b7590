"""Claims of the person-in-the-middle constructions (H23 sections 2.4, 4 and appendices A,
B): H23-Thm2.17 and its devices Alg8 / Alg9, H23-Cor2.18, and the PIMs of Algs 10-15.

Every scenario is a small finite interactive system against a deterministic adaptive
adversary on the neighbours x = (0, 1), x' = (1, 1) (the order x' swaps them). The exact
law of each view is enumerated (``view_distribution``); views are then drawn from it and
each drawn view carries a statistic computed from exact probabilities:

- privacy claims: the privacy loss log P_x(v) - log P_x'(v) of the drawn view, from the
  exact view probabilities of the system under test (never from its declared guarantee);
- equivalences (docs/design.md, Equivalences): views drawn from the even mixture of the
  two laws, statistic ``|log R(v) - log C(v)|`` (infinite where one law gives v probability
  0), claimed 0 up to ``_TOL`` (a max-statistic: one sample above it is a violation;
  n >= 14 / delta_min, so a law difference of mass >= 2 delta_min is found).

Claims:

- ``H23-Thm2.17/ask-twice``: P o M with M randomized response (p = 3/4, 2 answers,
  2 ln 3-DP) and P asking M twice per query and answering a repeated query from a cache;
  the adversary asks 0, 0, then 1 or 0 by the answers, ...; every loss <= 2 ln 3. Twin
  ``state-reset`` (M's answer budget renewed at every query: up to 6 answers on bit 0).
- ``H23-Alg8/ask-twice`` and ``H23-Alg9/ask-twice``: the same P and adversary on M with
  4 answers; g(View(A' <-> M(x))) (Alg 8's A', Alg 9's g, law pushed forward) against
  View(A <-> (P o M)(x)). Twins ``tag-dropped`` (A') and ``last-message-dropped`` (g).
- ``H23-Cor2.18/pair-rr``: N answers each query with two independent randomized
  responses (2 queries); it is simulated by P o M with P asking twice (no cache) and M
  randomized response with 4 answers, so every loss of N is <= 4 ln 3 (M's guarantee).
  Twin ``duplicate-answer``: the pair (P duplicating one answer, M with 2 answers) does
  not simulate N; its guarantee 2 ln 3 is exceeded. ``H23-Cor2.18/simulation``: the
  hypothesis itself, N's law against P o M's; same twin.
- ``H23-Alg10/launch-over-budget``: U_{2, eps} with eps the order-2 RDP declared by
  randomized response (p = 3/4, one answer); the adversary first launches an 8-answer
  child (declared 64 eps) and queries it 8 times if it started, else launches the
  1-answer child; hockey-stick at the EXT-BBGHS20 conversion of (2, eps) at delta = 0.05
  (quick) / 1e-3 (full). Twin ``budget-check-dropped``.
- ``H23-Alg11/launch-query``: F-FiltCon(IM) (pure-DP filter, budget 5/2, refuse and
  continue) of children P_j o N_j (randomized response on every bit, then lookups) against
  P11 o F-Filt(NIM). Twin ``queries-forwarded``.
- ``H23-Alg12/split``: F_3(.; 3/2)-FiltCon(IM) (order-2 RDP filter) against
  P12 o F_2(.; 3/2)-FiltCon(IM); first launch of eps_1 = 2 (ln 2)^2 / 2, then one the rest
  cannot hold. Twin ``whole-budget``.
- ``H23-Alg13/zcdp-launches``: F(.; 1)-FiltCon(IM) (zCDP sum filter) against
  P13 o F^(3)(.; 3)-FiltCon(IM). Twin ``no-alpha-factor``.
- ``H23-Alg14/privacy-loss``: P14 o F(.; (3, 0))-FiltCon(IM) (basic composition) against
  Trunc_d(View(A <-> G-OdomCon(IM))) (H23-Lem2.19), both cut at the stopping refusal; the
  adversary also sends an undeclared launch. Twin ``refused-launch-counted``.
- ``H23-Alg15/privacy-loss``: P15 o the halting odometer against F(.; d)-FiltCon(IM),
  both cut at the stopping refusal. Twin ``privacy-loss-forwarded``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
from numpy.typing import NDArray

from adaptive_dp.filters.basic import PureDPFilter
from adaptive_dp.filters.from_accumulator import AccumulatorFilter
from adaptive_dp.filters.rdp import RDPFilter
from adaptive_dp.filters.zcdp import ZCDPSumFilter
from adaptive_dp.guarantees.definitions import RDP, ZCDP, PureDP
from adaptive_dp.guarantees.lattice import Measure, implies
from adaptive_dp.guarantees.rdp import rdp_to_dp
from adaptive_dp.guarantees.spends import Spend
from adaptive_dp.interactive.concurrent import Query
from adaptive_dp.interactive.filtered import FiltCon, FiltNIM
from adaptive_dp.interactive.interaction import (
    FunctionAdversary,
    InteractiveAdversary,
    view_distribution,
)
from adaptive_dp.interactive.mechanism import (
    LAMBDA,
    PRIVACY_LOSS,
    STARTED,
    FiniteInteractiveMechanism,
    Launch,
    RandomizedResponseIM,
    Refusal,
    Transition,
    sample_transition,
)
from adaptive_dp.interactive.odometer import OdomCon
from adaptive_dp.interactive.pim import (
    PIM,
    A,
    AddPrivacyLoss,
    FiltNIMToFiltCon,
    PIMAdversary,
    Postprocessed,
    Q,
    RemovePrivacyLoss,
    Represented,
    SplitFilterPIM,
    Tag,
    UniversalRDP,
    ZCDPToRDP,
    collapse_view,
)
from adaptive_dp.interactive.truncated import HaltingOdometer, truncated_view_distribution
from adaptive_dp.odometers.accumulators import BasicAccumulator
from adaptive_dp.verify.judge.claim import Claim, Setup, Twin, profile_delta, samples_for
from adaptive_dp.verify.judge.estimators import Quantity
from adaptive_dp.verify.registry.twins.pim import (
    BudgetCheckDroppedUniversalRDP,
    DuplicateAnswer,
    NoAlphaFactor,
    PrivacyLossForwarded,
    QueriesForwarded,
    RefusedLaunchCounted,
    StateResetPostprocessed,
    TagDroppedPIMAdversary,
    last_message_dropped_collapse,
    whole_budget_inner_rule,
)

__all__ = ["CLAIMS", "AllBitsRR", "AskTwice", "Lookup", "PairRR", "cut_at_stop"]

Array = NDArray[np.float64]
Law = Mapping[tuple[object, ...], Fraction]
Laws = Callable[[object], Law]
"""The exact law of a view on a dataset."""

_X: tuple[int, ...] = (0, 1)
_X_PRIME: tuple[int, ...] = (1, 1)
_TOL = 1e-9
"""Largest admissible |log R(v) - log C(v)| of an equivalence (exact laws give 0)."""
_P = Fraction(3, 4)


def _pair(under: str) -> tuple[object, object]:
    return (_X, _X_PRIME) if under == "x" else (_X_PRIME, _X)


def _log(p: Fraction) -> float:
    return math.log(p.numerator) - math.log(p.denominator) if p > 0 else -math.inf


# -- scenario pieces --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AskTwice:
    """A PIM (H23-Def2.15): a query q other than a launch is asked of M twice and the two
    answers go to A as a pair; with ``cache``, a query equal to the previous one is
    answered locally with the previous pair (tag A, M not consulted). Launches and M's
    other messages are ferried once."""

    cache: bool = True

    def step(self, state: object, tag: Tag, message: object) -> tuple[object, Tag, object]:
        s: tuple[object, ...] = ("idle", None, None) if state is LAMBDA else state  # type: ignore[assignment]  # the tuple we returned
        if tag is Q:
            if isinstance(message, Launch):
                return ("idle", None, None), Q, message
            if self.cache and s[0] == "idle" and s[1] == message and s[2] is not None:
                return s, A, s[2]
            return ("first", message, None), Q, message
        if s[0] == "first":
            return ("second", s[1], message), Q, s[1]
        if s[0] == "second":
            pair = (s[2], message)
            return ("idle", s[1], pair), A, pair
        return s, A, message


@dataclass(frozen=True, slots=True)
class PairRR:
    """An interactive mechanism answering each bit index with two independent randomized
    responses (keep probability ``p``), at most ``rounds`` queries (then an exhausted
    pair); an invalid query gets an invalid pair and costs nothing."""

    p: Fraction
    rounds: int

    def transitions(self, state: object, message: object) -> tuple[Transition, ...]:
        if message is LAMBDA:
            return ((Fraction(1), (state, 0), STARTED),)
        x: tuple[int, ...]
        used: int
        x, used = state  # type: ignore[misc]  # the pair we returned
        if used >= self.rounds:
            return ((Fraction(1), state, (Refusal.EXHAUSTED, Refusal.EXHAUSTED)),)
        if not isinstance(message, int) or not 0 <= message < len(x):
            return ((Fraction(1), state, (Refusal.INVALID_QUERY, Refusal.INVALID_QUERY)),)
        bit = x[message]
        one = ((self.p, bit), (1 - self.p, 1 - bit))
        return tuple((p * q, (x, used + 1), (a, b)) for p, a in one for q, b in one)

    def step(self, state: object, message: object, rng: np.random.Generator
             ) -> tuple[object, object]:
        return sample_transition(self.transitions(state, message), rng)


@dataclass(frozen=True, slots=True)
class AllBitsRR:
    """A noninteractive mechanism: randomized response (keep probability ``p``) applied
    once to every bit; neighbours differ in one bit, so it is ln(p/(1-p))-DP."""

    p: Fraction

    @property
    def guarantee(self) -> Spend:
        return RandomizedResponseIM(self.p, 1).guarantee

    def transitions(self, state: object, message: object) -> tuple[Transition, ...]:
        outs: list[tuple[Fraction, tuple[int, ...]]] = [(Fraction(1), ())]
        for bit in state:  # type: ignore[attr-defined]  # a dataset: a tuple of bits
            outs = [(q * pr, (*y, b)) for q, y in outs
                    for pr, b in ((self.p, bit), (1 - self.p, 1 - bit))]
        return tuple((q, "done", y) for q, y in outs)

    def step(self, state: object, message: object, rng: np.random.Generator
             ) -> tuple[object, object]:
        return sample_transition(self.transitions(state, message), rng)


@dataclass(frozen=True, slots=True)
class Lookup:
    """P_j of H23-Thm3.3: initialized on the noisy bits, answers query i with bit i."""

    def step(self, state: object, tag: Tag, message: object) -> tuple[object, Tag, object]:
        if state is LAMBDA:
            return message, A, STARTED
        bits: tuple[object, ...] = state  # type: ignore[assignment]  # the bits we kept
        if isinstance(message, int) and 0 <= message < len(bits):
            return bits, A, bits[message]
        return bits, A, Refusal.INVALID_QUERY


def _rdp2(p: Fraction, rounds: int = 1) -> RDP:
    """The order-2 RDP parameter that randomized response declares (through the lattice)."""
    found = implies(RandomizedResponseIM(p, rounds).guarantee, Measure.RDP, Fraction(2))
    assert found is not None
    return RDP(2, found[0])


def _zcdp(p: Fraction) -> ZCDP:
    found = implies(RandomizedResponseIM(p, 1).guarantee, Measure.ZCDP, None)
    assert found is not None
    return ZCDP(found[0])


def _scripted(plan: Callable[[tuple[object, ...]], object], length: int) -> FunctionAdversary:
    """A deterministic adversary: ``plan(history)`` while fewer than ``length`` requests
    were sent, then halt."""
    return FunctionAdversary(lambda h: plan(h) if len(h) <= length else Refusal.HALT)


def _ask_plan(h: tuple[object, ...]) -> object:
    """0, 0 (a repeat), then 1 if the last pair is (1, 1) else 0, then 1, 0, 1, 0."""
    n = len(h)
    if n <= 2:
        return 0
    if n == 3:
        return 1 if h[-1] == (1, 1) else 0
    return 1 if n % 2 == 0 else 0


_ASK_ADVERSARY = _scripted(_ask_plan, 7)


def _cor_plan(h: tuple[object, ...]) -> object:
    """0, then 0 again if the two answers agreed (else 1), then 0."""
    if len(h) == 2:
        pair: tuple[object, object] = h[-1]  # type: ignore[assignment]  # N's pair
        return 0 if pair[0] == pair[1] else 1
    return 0


_COR_ADVERSARY = _scripted(_cor_plan, 3)
_PAIR_RR = PairRR(_P, 2)
_ASK_NO_CACHE = AskTwice(cache=False)


# -- experiments ------------------------------------------------------------------------


Table = Callable[[str], tuple[Array, Array]]


@dataclass(frozen=True, slots=True)
class _Drawn:
    """Views drawn from an exact law; each carries its precomputed statistic."""

    table: Table
    memo: dict[str, tuple[Array, Array]] = field(default_factory=dict)

    def __call__(self, paths: int, rng: np.random.Generator, under: str) -> Array:
        if under not in self.memo:
            self.memo[under] = self.table(under)
        probs, stat = self.memo[under]
        out: Array = stat[rng.choice(probs.size, size=paths, p=probs)]
        return out


def _arrays(probs: list[Fraction], stat: list[float]) -> tuple[Array, Array]:
    p = np.array([float(q) for q in probs])
    return p / p.sum(), np.array(stat)


def _loss_table(laws: Laws) -> Table:
    """The privacy loss of each view of the law on x, from the exact laws on x and x'."""
    def table(under: str) -> tuple[Array, Array]:
        x, other = _pair(under)
        p, q = laws(x), laws(other)
        views = [v for v, pv in p.items() if pv > 0]
        return _arrays([p[v] for v in views],
                       [_log(p[v]) - _log(q.get(v, Fraction(0))) for v in views])

    return table


def _gap_table(reference: Laws, candidate: Laws) -> Table:
    """|log R(v) - log C(v)| on the even mixture of the two laws on x."""
    def table(under: str) -> tuple[Array, Array]:
        x, _ = _pair(under)
        r, c = reference(x), candidate(x)
        views = [v for v in {*r, *c} if r.get(v, 0) + c.get(v, 0) > 0]
        zero = Fraction(0)
        gaps = [abs(_log(r.get(v, zero)) - _log(c.get(v, zero)))
                if r.get(v, zero) > 0 and c.get(v, zero) > 0 else math.inf for v in views]
        return _arrays([(r.get(v, zero) + c.get(v, zero)) / 2 for v in views], gaps)

    return table


def _views(adversary: InteractiveAdversary, mechanism: FiniteInteractiveMechanism) -> Laws:
    return lambda x: view_distribution(adversary, mechanism, x)


def _pushed(law: Law, g: Callable[[tuple[object, ...]], tuple[object, ...]]) -> Law:
    out: dict[tuple[object, ...], Fraction] = {}
    for v, p in law.items():
        k = g(v)
        out[k] = out.get(k, Fraction(0)) + p
    return out


def cut_at_stop(view: tuple[object, ...]) -> tuple[object, ...]:
    """A view up to its stopping request: cut at the first ``halt`` (the halting
    odometer) or ``insufficient budget`` (the filter), which answer the same request
    (H23-Lem2.19, Lemma B.1)."""
    for i, m in enumerate(view):
        if m in (Refusal.HALT, Refusal.INSUFFICIENT_BUDGET):
            return view[:i]
    return view


def _equality(reference: Laws, candidate: Laws, profile: str, note: str) -> Setup:
    delta_min = profile_delta(profile, 0.02)
    return Setup(Quantity.MAX_LOSS, _TOL, _TOL, _Drawn(_gap_table(reference, candidate)),
                 samples_for(Quantity.MAX_LOSS, _TOL, delta_min), delta_min=delta_min,
                 note=note)


def _max_loss(laws: Laws, epsilon: float, profile: str, note: str) -> Setup:
    delta_min = profile_delta(profile, 0.02)
    return Setup(Quantity.MAX_LOSS, epsilon, epsilon, _Drawn(_loss_table(laws)),
                 samples_for(Quantity.MAX_LOSS, epsilon, delta_min), delta_min=delta_min,
                 note=note)


def _epsilon(mechanism: RandomizedResponseIM) -> float:
    g = mechanism.guarantee
    assert isinstance(g, PureDP)
    return float(g.epsilon)


# -- H23-Thm2.17, Alg8, Alg9 ------------------------------------------------------------

_ASK_NOTE = "P asks twice, caches a repeat; A asks 0, 0, 1|0, 1, 0, 1, 0 adaptively"


def _thm217(profile: str, composed: type[Postprocessed] = Postprocessed) -> Setup:
    m = RandomizedResponseIM(_P, 2)
    return _max_loss(_views(_ASK_ADVERSARY, composed(AskTwice(), m)), _epsilon(m), profile,
                     f"M = RR(3/4, 2 answers); {_ASK_NOTE}")


def _devices(profile: str, lift: type[PIMAdversary] = PIMAdversary,
             g: Callable[[InteractiveAdversary, PIM, tuple[object, ...]],
                         tuple[object, ...]] = collapse_view) -> Setup:
    adv, pim, m = _ASK_ADVERSARY, AskTwice(), RandomizedResponseIM(_P, 4)

    def through(x: object) -> Law:
        return _pushed(view_distribution(lift(adv, pim), m, x), lambda v: g(adv, pim, v))

    return _equality(_views(adv, Postprocessed(pim, m)), through, profile,
                     f"M = RR(3/4, 4 answers); {_ASK_NOTE}")


# -- H23-Cor2.18 ---------------------------------------------------------------------------

_COR_NOTE = "N: 2 queries, each a pair of RR(3/4); A asks 0, then 0|1, then 0"


_RR4 = RandomizedResponseIM(_P, 4)
_RR2 = RandomizedResponseIM(_P, 2)


def _cor218(profile: str, m: RandomizedResponseIM = _RR4) -> Setup:
    return _max_loss(_views(_COR_ADVERSARY, _PAIR_RR), _epsilon(m), profile,
                     f"{_COR_NOTE}; claimed: the guarantee of M = RR(3/4, {m.rounds} answers)")


def _cor218_simulation(profile: str, pim: PIM = _ASK_NO_CACHE,
                       m: RandomizedResponseIM = _RR4) -> Setup:
    return _equality(_views(_COR_ADVERSARY, _PAIR_RR),
                     _views(_COR_ADVERSARY, Postprocessed(pim, m)), profile,
                     f"{_COR_NOTE}; against P o RR(3/4, {m.rounds} answers)")


# -- H23-Alg10 ----------------------------------------------------------------------------


def _alg10_plan(small: Launch, big: Launch) -> Callable[[tuple[object, ...]], object]:
    def plan(h: tuple[object, ...]) -> object:
        if len(h) == 1:
            return big
        if len(h) == 2 and h[-1] is not STARTED:
            return small
        return 0

    return plan


def _alg10(profile: str, universal: type[UniversalRDP] = UniversalRDP) -> Setup:
    delta = Fraction(profile_delta(profile, 0.05))
    small, big = RandomizedResponseIM(_P, 1), RandomizedResponseIM(_P, 8)
    declared = _rdp2(_P)
    adversary = _scripted(_alg10_plan(Launch(small, declared), Launch(big, _rdp2(_P, 8))), 10)
    u = universal(2, declared.epsilon)
    converted = rdp_to_dp(u.guarantee, delta)
    epsilon, claimed = float(converted.epsilon), float(converted.delta)
    table = _loss_table(_views(adversary, u))
    return Setup(Quantity.HOCKEY_STICK, epsilon, claimed, _Drawn(table),
                 samples_for(Quantity.HOCKEY_STICK, claimed),
                 note=f"U_(2, {float(declared.epsilon):.4f}): launch RR(3/4, 8) (declared "
                      f"64x), query it if started, else launch RR(3/4, 1); delta={float(delta)}")


# -- H23-Alg11 ----------------------------------------------------------------------------

_ALG11_BUDGET = PureDP(Fraction(5, 2))
_P11 = FiltNIMToFiltCon()


def _alg11_plan(h: tuple[object, ...]) -> object:
    rep = Represented(AllBitsRR(_P), Lookup())
    launch = Launch(rep, rep.guarantee)
    plan: tuple[object, ...] = (launch, Query(1, 0), None, launch, Query(2, 1), launch,
                                Query(3, 0))
    n = len(h)
    if n == 3:  # child 1 asked again, for bit 1 if its answer on bit 0 was 0
        return Query(1, 1) if h[-1] == 0 else Query(1, 0)
    return plan[n - 1]


def _alg11(profile: str, pim: FiltNIMToFiltCon = _P11) -> Setup:
    adv = _scripted(_alg11_plan, 7)
    rule = PureDPFilter(_ALG11_BUDGET.epsilon)
    return _equality(_views(adv, FiltCon(rule, terminal=False)),
                     _views(adv, Postprocessed(pim, FiltNIM(rule, terminal=False))), profile,
                     "3 launches of RR-on-every-bit children (eps ln 3, budget 5/2: the third "
                     "refused), lookups interleaved")


# -- H23-Alg12 ----------------------------------------------------------------------------

_ALG12_EPS = Fraction(3, 2)


def _alg12_plan(h: tuple[object, ...]) -> object:
    a, b = RandomizedResponseIM(Fraction(2, 3), 1), RandomizedResponseIM(_P, 1)
    plan: tuple[object, ...] = (Launch(a, _rdp2(a.p)), Query(1, 0), Launch(b, _rdp2(_P)),
                                Launch(a, _rdp2(a.p)), Query(2, 0), Query(3, 0))
    return plan[len(h) - 1]


def _rdp_rule(budget: Fraction) -> RDPFilter:
    return RDPFilter(2, budget)


def _alg12(profile: str, whole_budget: bool = False) -> Setup:
    adv = _scripted(_alg12_plan, 6)
    inner = whole_budget_inner_rule(_rdp_rule, _ALG12_EPS) if whole_budget else _rdp_rule
    pim = SplitFilterPIM(Fraction(2), _ALG12_EPS, inner, 2, terminal=False)
    return _equality(_views(adv, FiltCon(_rdp_rule(_ALG12_EPS), 3, terminal=False)),
                     _views(adv, Postprocessed(pim, FiltCon(_rdp_rule(_ALG12_EPS), 2,
                                                            terminal=False))), profile,
                     "order-2 RDP budget 3/2, K = 3: launch RR(2/3), query, launch RR(3/4) "
                     "(over the rest), launch RR(2/3), query 2, query 3")


# -- H23-Alg13 ----------------------------------------------------------------------------

_ALG13_ALPHA = Fraction(3)
_P13 = ZCDPToRDP(_ALG13_ALPHA)


def _alg13_plan(h: tuple[object, ...]) -> object:
    a, b = RandomizedResponseIM(Fraction(2, 3), 1), RandomizedResponseIM(_P, 1)
    plan: tuple[object, ...] = (Launch(b, _zcdp(_P)), Query(1, 0), Launch(b, _zcdp(_P)),
                                Launch(a, _zcdp(a.p)), Query(2, 0), Query(3, 0))
    return plan[len(h) - 1]


def _alg13(profile: str, pim: ZCDPToRDP = _P13) -> Setup:
    adv = _scripted(_alg13_plan, 6)
    rho = Fraction(1)
    return _equality(_views(adv, FiltCon(ZCDPSumFilter(rho), terminal=False)),
                     _views(adv, Postprocessed(pim, FiltCon(RDPFilter(_ALG13_ALPHA,
                                                                      rho * _ALG13_ALPHA),
                                                            terminal=False))), profile,
                     "zCDP budget 1 (order 3): launch RR(3/4), query, launch RR(3/4) (over "
                     "budget), launch RR(2/3), query 2, query 3")


# -- H23-Alg14 / Alg15 ----------------------------------------------------------------------

_D = PureDP(3)
_P14 = AddPrivacyLoss(BasicAccumulator())
_P15 = RemovePrivacyLoss()


def _loss_plan(h: tuple[object, ...]) -> object:
    rr = RandomizedResponseIM(_P, 1)
    launch = Launch(rr, rr.guarantee)
    plan: tuple[object, ...] = (launch, Launch(rr, PureDP(Fraction(1, 2))), PRIVACY_LOSS,
                                Query(1, 0), launch, PRIVACY_LOSS, Query(2, 0), launch,
                                PRIVACY_LOSS)
    n = len(h)
    if n == 5 and h[-1] == 1:  # the first answer said 1: skip the second launch
        return PRIVACY_LOSS
    return plan[n - 1]


_LOSS_NOTE = ("basic composition, d = (3, 0): launch RR(3/4), an undeclared launch, "
              "privacy_loss, query, launch (unless the answer was 1), privacy_loss, query, "
              "launch (over budget), privacy_loss")


def _cut(laws: Laws) -> Laws:
    return lambda x: _pushed(laws(x), cut_at_stop)


def _alg14(profile: str, pim: AddPrivacyLoss = _P14) -> Setup:
    adv = _scripted(_loss_plan, 9)
    acc = BasicAccumulator()
    return _equality(
        lambda x: truncated_view_distribution(adv, OdomCon(acc), x, _D),
        _cut(_views(adv, Postprocessed(pim, FiltCon(AccumulatorFilter(acc, _D))))),
        profile, _LOSS_NOTE)


def _alg15(profile: str, pim: PIM = _P15) -> Setup:
    adv = _scripted(_loss_plan, 9)
    acc = BasicAccumulator()
    return _equality(
        _cut(_views(adv, FiltCon(AccumulatorFilter(acc, _D)))),
        _cut(_views(adv, Postprocessed(pim, HaltingOdometer(OdomCon(acc), _D)))),
        profile, _LOSS_NOTE)


_DUPLICATE = "P asks M once and hands the answer to A twice (M with 2 answers)"

CLAIMS: tuple[Claim, ...] = (
    Claim("H23-Thm2.17", "ask-twice", Quantity.MAX_LOSS,
          "P o M is (2 ln 3)-DP when M is: loss of the exact view law of P o M",
          _thm217,
          (Twin("state-reset", "M restarted from its initialized state at every query",
                lambda p: _thm217("quick", StateResetPostprocessed)),)),
    Claim("H23-Alg8", "ask-twice", Quantity.MAX_LOSS,
          "g(View(A' <-> M)) ~ View(A <-> P o M) with A' of Alg 8 (exact laws)",
          _devices,
          (Twin("tag-dropped", "A' sends P's output to M whatever its tag",
                lambda p: _devices("quick", lift=TagDroppedPIMAdversary)),)),
    Claim("H23-Alg9", "ask-twice", Quantity.MAX_LOSS,
          "g of Alg 9 maps View(A' <-> M) to View(A <-> P o M) (exact laws)",
          _devices,
          (Twin("last-message-dropped", "g does not replay M's last message",
                lambda p: _devices("quick", g=last_message_dropped_collapse)),)),
    Claim("H23-Cor2.18", "pair-rr", Quantity.MAX_LOSS,
          "N simulated by P o M is as private as M: loss of N's exact view law <= 4 ln 3",
          _cor218,
          (Twin("duplicate-answer", _DUPLICATE,
                lambda p: _cor218("quick", _RR2)),)),
    Claim("H23-Cor2.18", "simulation", Quantity.MAX_LOSS,
          "the hypothesis: View(A <-> N) ~ View(A <-> P o M) (exact laws)",
          _cor218_simulation,
          (Twin("duplicate-answer", _DUPLICATE,
                lambda p: _cor218_simulation("quick", DuplicateAnswer(), _RR2)),)),
    Claim("H23-Alg10", "launch-over-budget", Quantity.HOCKEY_STICK,
          "U_(alpha, eps) is (alpha, eps)-RDP: hockey-stick of its exact view law at the "
          "converted epsilon", _alg10,
          (Twin("budget-check-dropped", "a launch of any eps_2 accepted at order alpha",
                lambda p: _alg10("quick", BudgetCheckDroppedUniversalRDP)),)),
    Claim("H23-Alg11", "launch-query", Quantity.MAX_LOSS,
          "F-FiltCon(IM) of P_j o N_j ~ P11 o F-Filt(NIM) (exact laws)", _alg11,
          (Twin("queries-forwarded", "a query (j, q) goes to the filter, not to P_j",
                lambda p: _alg11("quick", QueriesForwarded())),)),
    Claim("H23-Alg12", "split", Quantity.MAX_LOSS,
          "F_K-FiltCon(IM) ~ P12 o F_2-FiltCon(IM) (exact laws)", _alg12,
          (Twin("whole-budget", "slot 2's filter gets epsilon, not epsilon - eps_1",
                lambda p: _alg12("quick", whole_budget=True)),)),
    Claim("H23-Alg13", "zcdp-launches", Quantity.MAX_LOSS,
          "F(.; rho)-FiltCon(IM) ~ P13 o F^(alpha)(.; rho alpha)-FiltCon(IM) (exact laws)",
          _alg13,
          (Twin("no-alpha-factor", "(M', rho') becomes (M', (alpha, rho'))",
                lambda p: _alg13("quick", NoAlphaFactor(_ALG13_ALPHA))),)),
    Claim("H23-Alg14", "privacy-loss", Quantity.MAX_LOSS,
          "P14 o F(.; d)-FiltCon(IM) ~ Trunc_d(View(A <-> G-OdomCon(IM))) (exact laws)",
          _alg14,
          (Twin("refused-launch-counted", "privacy_loss counts a refused launch",
                lambda p: _alg14("quick", RefusedLaunchCounted(BasicAccumulator()))),)),
    Claim("H23-Alg15", "privacy-loss", Quantity.MAX_LOSS,
          "P15 o (halting odometer) ~ F(.; d)-FiltCon(IM) (exact laws)", _alg15,
          (Twin("privacy-loss-forwarded", "privacy_loss reaches the odometer",
                lambda p: _alg15("quick", PrivacyLossForwarded())),)),
)
