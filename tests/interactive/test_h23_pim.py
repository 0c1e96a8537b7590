"""H23-Def2.15, H23-Def2.16/Alg7, H23-Thm2.17 (Alg8, Alg9), H23-Alg10, H23-Lem4.7
(Alg12), H23-Thm4.10 (Alg13): person-in-the-middle constructions tested against the
equivalences their proofs claim: views equal with shared randomness (the same coins
consumed in the same order), and exact view distributions by enumeration."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adaptive_dp.filters.basic import PureDPFilter
from adaptive_dp.filters.rdp import RDPFilter
from adaptive_dp.filters.zcdp import ZCDPSumFilter
from adaptive_dp.guarantees.definitions import RDP, ZCDP, PureDP
from adaptive_dp.guarantees.lattice import within
from adaptive_dp.interactive.concurrent import ConComp, Query
from adaptive_dp.interactive.filtered import FiltCon, FiltNIM
from adaptive_dp.interactive.interaction import (
    FunctionAdversary,
    ScriptedAdversary,
    interact,
    view_distribution,
)
from adaptive_dp.interactive.mechanism import (
    LAMBDA,
    STARTED,
    InteractiveMechanism,
    Launch,
    RandomizedResponseIM,
    Refusal,
)
from adaptive_dp.interactive.pim import (
    A,
    FiltNIMToFiltCon,
    PIMAdversary,
    Postprocessed,
    Q,
    Represented,
    SplitFilterPIM,
    Tag,
    UniversalRDP,
    ZCDPToRDP,
    collapse_view,
)
from adaptive_dp.interactive.privacy import ApproxDPMeasure

RR = RandomizedResponseIM("0.75", 3)


@dataclass(frozen=True)
class Identity:
    def step(self, state: object, tag: Tag, message: object) -> tuple[object, Tag, object]:
        return 0, tag, message


@dataclass(frozen=True)
class AskTwice:
    """A PIM that answers a query (j, q) by asking M twice and returning both answers;
    launches and other messages are forwarded once."""

    def step(self, state: object, tag: Tag, message: object) -> tuple[object, Tag, object]:
        s = ("idle",) if state is LAMBDA else state
        assert isinstance(s, tuple)
        if tag is Q:
            if isinstance(message, Query):
                return ("first", message), Q, message
            return ("idle",), Q, message
        if s[0] == "first":
            return ("second", s[1], message), Q, s[1]
        if s[0] == "second":
            return ("idle",), A, (s[2], message)
        return ("idle",), A, message


def _interleaver() -> FunctionAdversary:
    def policy(h: tuple[object, ...]) -> object:
        n = len(h)
        plan: dict[int, object] = {
            1: Launch(RR, RR.guarantee),
            2: Query(1, 0),
            3: Launch(RR, RR.guarantee),
            4: Query(2, 0),
            5: Query(1, 0),
        }
        if n == 6:
            return Query(2, 0) if h[-1] in ((1, 1), 1) else Query(1, 0)
        return plan.get(n, Refusal.HALT)

    return FunctionAdversary(policy)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_alg7_identity_pim(seed: int) -> None:
    m = FiltCon(PureDPFilter(10))
    adv = _interleaver()
    direct = interact(adv, m, (1,), np.random.default_rng(seed))
    post = interact(adv, Postprocessed(Identity(), m), (1,), np.random.default_rng(seed))
    assert direct.messages == post.messages


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 4, 5])
def test_thm217_alg8_alg9_shared_randomness(seed: int) -> None:
    """H23-Alg8 (PIMAdversary) and H23-Alg9 (collapse_view), H23-Thm2.17: Thm 2.17's proof: View(A
    <-> P o M) = g(View(A' <-> M)) with A' of Alg 8 and g of
    Alg 9, path by path with shared coins."""
    m = FiltCon(PureDPFilter(10))
    adv, pim = _interleaver(), AskTwice()
    post = interact(adv, Postprocessed(pim, m), (1,), np.random.default_rng(seed))
    through = interact(PIMAdversary(adv, pim), m, (1,), np.random.default_rng(seed))
    assert collapse_view(adv, pim, through.messages) == post.messages
    assert len(through.messages) > len(post.messages)  # P really talks to M more often


def test_thm217_exact_distributions_and_postprocessing() -> None:
    """H23-Thm2.17: in distribution (enumeration), g(View(A' <-> M)) ~ View(A <-> P o M),
    and the postprocessed views are no less private than M's."""
    m = FiltCon(PureDPFilter(10))
    adv, pim = _interleaver(), AskTwice()
    for x in ((0,), (1,)):
        post = view_distribution(adv, Postprocessed(pim, m), x)
        inner = view_distribution(PIMAdversary(adv, pim), m, x)
        pushed: dict[tuple[object, ...], Fraction] = {}
        for v, p in inner.items():
            k = collapse_view(adv, pim, v)
            pushed[k] = pushed.get(k, Fraction(0)) + p
        assert pushed == dict(post.items())
    p0 = view_distribution(adv, Postprocessed(pim, m), (0,))
    p1 = view_distribution(adv, Postprocessed(pim, m), (1,))
    q0 = view_distribution(PIMAdversary(adv, pim), m, (0,))
    q1 = view_distribution(PIMAdversary(adv, pim), m, (1,))
    measure = ApproxDPMeasure()
    for eps in (Fraction(1), Fraction(2), Fraction(3)):
        assert measure.slack(p0, p1, (eps, 1)) >= measure.slack(q0, q1, (eps, 1)) - 1e-12


def test_alg10_universal_mechanism() -> None:
    alpha = 2
    u = UniversalRDP(alpha, 1)
    rng = np.random.default_rng(5)
    s, a = u.step((1,), LAMBDA, rng)
    assert a is LAMBDA
    big = RDP(alpha, "1.5")
    assert u.step(s, Launch(RR, big), rng) == (s, Refusal.INVALID_QUERY)  # over budget
    assert u.step(s, Query(1, 0), rng) == (s, Refusal.INVALID_QUERY)
    ok = RDP(alpha, "0.2")

    @dataclass(frozen=True)
    class Declared:
        guarantee = ok

        def step(self, st_: object, m: object, r: np.random.Generator) -> tuple[object, object]:
            return RR.step(st_, m, r)

    script = (Launch(Declared(), ok), 0, 0, 0, 0)
    via_u = interact(ScriptedAdversary(script), u, (1,), np.random.default_rng(9))
    direct = interact(ScriptedAdversary(script[1:]), RR, (1,), np.random.default_rng(9))
    assert via_u.messages[1:] == direct.messages
    assert u.guarantee == RDP(alpha, 1)


def _rr_rdp(p: str, alpha: int, eps: str) -> object:
    base = RandomizedResponseIM(p, 2)
    par = RDP(alpha, eps)

    @dataclass(frozen=True)
    class Declared:
        guarantee = par

        def step(self, st_: object, m: object, r: np.random.Generator) -> tuple[object, object]:
            return base.step(st_, m, r)

        def transitions(self, st_: object, m: object) -> object:
            return base.transitions(st_, m)

    return Declared()


_ALPHA = 2
_CHILDREN = {
    "a": (_rr_rdp("0.6", _ALPHA, "0.5"), RDP(_ALPHA, "0.5")),
    "b": (_rr_rdp("0.7", _ALPHA, "0.9"), RDP(_ALPHA, "0.9")),
    "c": (_rr_rdp("0.55", _ALPHA, "0.2"), RDP(_ALPHA, "0.2")),
}


def _request(token: tuple[str, object]) -> object:
    kind, arg = token
    if kind == "launch":
        mech, par = _CHILDREN[str(arg)]
        return Launch(mech, par)
    if kind == "bad":
        mech, _ = _CHILDREN[str(arg)]
        return Launch(mech, RDP(_ALPHA, "0.01"))  # not declared: Divergence
    return Query(int(arg), 0)  # type: ignore[call-overload]


_TOKENS = st.lists(
    st.one_of(
        st.tuples(st.just("launch"), st.sampled_from(["a", "b", "c"])),
        st.tuples(st.just("bad"), st.sampled_from(["a", "b"])),
        st.tuples(st.just("query"), st.integers(0, 5)),
    ),
    min_size=1,
    max_size=12,
)


@settings(max_examples=40)
@given(_TOKENS, st.integers(2, 4), st.integers(0, 2**16))
def test_alg12_split_filter_equivalence(tokens: list[tuple[str, object]], k: int,
                                        seed: int) -> None:
    """H23-Alg12 (SplitFilterPIM), H23-Lem4.7: Lem 4.7's induction step: F_K(.; eps)-FiltCon(IM) and
    P o F_2(.; eps)-FiltCon(IM)
    (Alg 12: slot 2 holds F_{K-1}(.; eps - eps_1)) give equal views with shared coins
    (refuse-and-continue reading of A6)."""
    eps = Fraction("1.6")
    fk = FiltCon(RDPFilter(_ALPHA, eps), k, terminal=False)
    pim = SplitFilterPIM(
        Fraction(_ALPHA), eps, lambda b: RDPFilter(_ALPHA, b), k - 1, terminal=False
    )
    f2 = Postprocessed(pim, FiltCon(RDPFilter(_ALPHA, eps), 2, terminal=False))
    adv = ScriptedAdversary(tuple(_request(t) for t in tokens))
    a = interact(adv, fk, (1, 0), np.random.default_rng(seed))
    b = interact(adv, f2, (1, 0), np.random.default_rng(seed))
    assert a.messages == b.messages


@settings(max_examples=30)
@given(st.lists(st.one_of(st.sampled_from(["0.1", "0.25", "0.4"]), st.integers(0, 3)),
                min_size=1, max_size=10),
       st.sampled_from([2, 3, 10]), st.integers(0, 2**16))
def test_alg13_zcdp_as_rdp_equivalence(script: list[object], alpha: int, seed: int) -> None:
    """H23-Alg13 (ZCDPToRDP), H23-Thm4.10: Thm 4.10's proof: F(.; rho)-FiltCon(IM) = P13 o
    F^(alpha)(.; rho alpha)-FiltCon(IM)
    for every alpha (same launches accepted, same answers with shared coins)."""
    rho = Fraction("0.6")
    child = RandomizedResponseIM("0.6", 2)  # ln 1.5: declared zCDP (ln 1.5)^2 / 2 < 0.1

    def req(t: object) -> object:
        if isinstance(t, str):
            return Launch(child, ZCDP(t))
        return Query(int(t), 1)  # type: ignore[call-overload]

    adv = ScriptedAdversary(tuple(req(t) for t in script))
    zcdp = FiltCon(ZCDPSumFilter(rho), terminal=False)
    rdp = Postprocessed(ZCDPToRDP(alpha), FiltCon(RDPFilter(alpha, rho * alpha), terminal=False))
    a = interact(adv, zcdp, (0, 1), np.random.default_rng(seed))
    b = interact(adv, rdp, (0, 1), np.random.default_rng(seed))
    assert a.messages == b.messages


# -- H23-Alg11 (the proof of H23-Thm3.4) ------------------------------------------------


@dataclass(frozen=True)
class AllBitsRR:
    """A noninteractive mechanism: randomized response applied once to every bit."""

    p: Fraction

    @property
    def guarantee(self) -> PureDP:
        return RandomizedResponseIM(self.p, 1).guarantee  # type: ignore[return-value]

    def transitions(self, x: object, m: object) -> tuple[tuple[Fraction, object, object], ...]:
        assert m is LAMBDA and isinstance(x, tuple)
        outs: list[tuple[Fraction, tuple[int, ...]]] = [(Fraction(1), ())]
        for bit in x:
            outs = [(q * pr, (*y, b)) for q, y in outs
                    for pr, b in ((self.p, bit), (1 - self.p, 1 - bit))]
        return tuple((q, "done", y) for q, y in outs)

    def step(self, x: object, m: object, rng: np.random.Generator) -> tuple[object, object]:
        assert isinstance(x, tuple)
        keep = rng.random(len(x)) < float(self.p)
        return "done", tuple(b if k else 1 - b for b, k in zip(x, keep, strict=True))


@dataclass(frozen=True)
class Lookup:
    """P_j: answers query i with the i-th noisy bit, forever."""

    def step(self, state: object, tag: Tag, message: object) -> tuple[object, Tag, object]:
        if state is LAMBDA:
            return message, A, "ready"
        assert isinstance(state, tuple)
        if isinstance(message, int) and 0 <= message < len(state):
            return state, A, state[message]
        return state, A, Refusal.INVALID_QUERY


_REP = {e: Represented(AllBitsRR(Fraction(e)), Lookup()) for e in ("0.6", "0.75", "0.9")}


@settings(max_examples=40)
@given(
    st.lists(
        st.one_of(st.sampled_from(sorted(_REP)).map(lambda e: ("launch", e)),
                  st.tuples(st.just("query"), st.integers(0, 4), st.integers(0, 2))),
        min_size=1, max_size=14),
    st.sampled_from(["1", "2.5", "4"]),
    st.integers(0, 2**16),
)
def test_alg11_filtnim_to_filtcon_equivalence(tokens: list[tuple[object, ...]], budget: str,
                                              seed: int) -> None:
    """Thm 3.4's proof: F-FiltCon(IM) of mechanisms P_j o N_j equals P11 o F-Filt(NIM)
    (shared coins; refuse-and-continue reading of A6)."""
    def req(t: tuple[object, ...]) -> object:
        if t[0] == "launch":
            rep = _REP[str(t[1])]
            return Launch(rep, rep.guarantee)
        return Query(int(t[1]), int(t[2]))  # type: ignore[call-overload]

    adv = ScriptedAdversary(tuple(req(t) for t in tokens))
    con = FiltCon(PureDPFilter(budget), terminal=False)
    nim = Postprocessed(FiltNIMToFiltCon(), FiltNIM(PureDPFilter(budget), terminal=False))
    a = interact(adv, con, (1, 0, 1), np.random.default_rng(seed))
    b = interact(adv, nim, (1, 0, 1), np.random.default_rng(seed))
    assert a.messages == b.messages


def test_alg11_exact_distributions_and_privacy() -> None:
    """In distribution: equal exact view distributions; and the lifted filter's view
    is (budget, 0)-DP (Cor 3.5 on this example)."""
    rep = _REP["0.75"]
    script = (Launch(rep, rep.guarantee), Query(1, 0), Query(1, 0), Launch(rep, rep.guarantee),
              Query(2, 0), Launch(rep, rep.guarantee), Query(3, 0))
    adv = ScriptedAdversary(script)
    budget = "2.5"
    for x in ((0, 1), (1, 1)):
        con = view_distribution(adv, FiltCon(PureDPFilter(budget), terminal=False), x)
        nim = view_distribution(adv, Postprocessed(
            FiltNIMToFiltCon(), FiltNIM(PureDPFilter(budget), terminal=False)), x)
        assert dict(con.items()) == dict(nim.items())
    d0 = view_distribution(adv, FiltCon(PureDPFilter(budget), terminal=False), (0, 1))
    d1 = view_distribution(adv, FiltCon(PureDPFilter(budget), terminal=False), (1, 1))
    assert ApproxDPMeasure().holds(d0, d1, (Fraction(budget), 0))


# -- H23-Lem4.7's base case: F_2-FiltCon(IM) from ConComp(M_1, U_{alpha, eps - eps_1}) ------


@dataclass(frozen=True)
class BaseCasePIM:
    """The base case of Lem 4.7 made executable: with the first launch (M_1, eps_1)
    fixed (deterministic adversary), P o ConComp(M_1, U_{alpha, eps - eps_1}) behaves as
    F_2(.; eps)-FiltCon(IM): the first launch is answered with M_1's (constant) first
    message, (1, q) goes to M_1, a second launch becomes U's first query (U's
    "invalid query" for an over-budget request is the filter's "insufficient budget";
    an undeclared request is refused by P itself), later launches hit the cap."""

    first: Launch
    alpha: Fraction

    def step(self, state: object, tag: Tag, message: object) -> tuple[object, Tag, object]:
        # state: (launched count, pending kind)
        n: int = 0
        pending: str | None = None
        if isinstance(state, tuple):
            n, pending = state
        if tag is A:
            if state is LAMBDA:
                return (0, None), A, message  # ConComp's initialization (lambda)
            if pending == "second":
                if message is Refusal.INVALID_QUERY:
                    return (n, None), A, Refusal.INSUFFICIENT_BUDGET
                return (n + 1, None), A, message
            return (n, None), A, message
        if isinstance(message, Launch):
            if n == 0:
                assert message == self.first
                return (1, None), A, STARTED
            if n >= 2:
                return (n, None), A, Refusal.AT_MECHANISM_COUNT_LIMIT
            g = getattr(message.mechanism, "guarantee", None)
            if not (isinstance(message.parameter, RDP) and g is not None
                    and within(g, message.parameter)):
                return (n, None), A, Refusal.DIVERGENCE_CANNOT_BE_PARSED
            return (n, "second"), Q, Query(2, message)
        if isinstance(message, Query) and message.j in (1, 2) and message.j <= n:
            return (n, None), Q, message
        return (n, None), A, Refusal.INVALID_QUERY


@settings(max_examples=40)
@given(_TOKENS, st.integers(0, 2**16))
def test_lem47_base_case_universal_mechanism(tokens: list[tuple[str, object]], seed: int) -> None:
    eps = Fraction("1.6")
    first_mech, first_par = _CHILDREN["b"]
    first = Launch(first_mech, first_par)
    f2 = FiltCon(RDPFilter(_ALPHA, eps), 2, terminal=False)
    rest = eps - first_par.epsilon
    assert isinstance(first_mech, InteractiveMechanism)
    base = Postprocessed(BaseCasePIM(first, Fraction(_ALPHA)),
                         ConComp((first_mech, UniversalRDP(_ALPHA, rest))))
    adv = ScriptedAdversary((first, *(_request(t) for t in tokens)))
    a = interact(adv, f2, (1, 0), np.random.default_rng(seed))
    b = interact(adv, base, (1, 0), np.random.default_rng(seed))
    assert a.messages == b.messages
