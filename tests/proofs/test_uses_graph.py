"""The ``uses`` links between proofs form an acyclic graph: a proof may cite another as a
premise only if that one does not, through any chain, cite it back (a cross-reference
or an example is written as plain text, not as ``uses``)."""

from __future__ import annotations

from adaptive_dp.catalogue.proofs.parser import load_proof, proof_ids


def _cycle(graph: dict[str, list[str]]) -> list[str] | None:
    """A cycle of ``graph`` as a list of ids (first repeated last), or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in graph[node]:
            if state.get(nxt) == 1:
                return [*path[path.index(nxt):], nxt]
            if nxt not in state and (found := visit(nxt)) is not None:
                return found
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)) is not None:
            return found
    return None


def test_the_finder_sees_a_cycle() -> None:
    assert _cycle({"a": ["b"], "b": ["c"], "c": ["a"]}) == ["a", "b", "c", "a"]
    assert _cycle({"a": ["b"], "b": [], "c": ["a", "b"]}) is None


def test_the_uses_graph_of_the_proofs_is_acyclic() -> None:
    ids = set(proof_ids())
    graph = {pid: [u for u in load_proof(pid).uses if u in ids and u != pid] for pid in ids}
    assert sum(map(len, graph.values())) > 50  # the links are read at all
    assert _cycle(graph) is None, f"a cycle of uses links: {' -> '.join(_cycle(graph) or [])}"


def test_every_argument_step_names_its_justification() -> None:
    """Issue 16: a prose step names the lemma or theorem its inference rests on."""
    bare = [f"{pid} step {step.number}" for pid in proof_ids()
            for step in load_proof(pid).steps if step.kind == "argument" and not step.uses]
    assert not bare, f"argument steps without (uses: ...): {bare}"
