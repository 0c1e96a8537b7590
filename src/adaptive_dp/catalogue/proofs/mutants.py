"""The mutation tester of proof checks (docs/design.md, proofs).

The mutation rule (what :func:`mutants` changes, precisely):

1. The *asserted relation* is the expression of the ``return`` statement that must be the
   last statement of ``check()`` (the only top-level ``return`` of ``check``).
2. The *mutation region* is that expression plus, transitively, every local *helper
   expression* it names: for each name ``v`` read in the region, the right-hand side of
   every assignment to ``v`` inside ``check`` (``v = e``, ``v: T = e``, ``v += e``,
   tuple targets included, at any depth) and the ``return`` expressions of a nested
   ``def v(...)``. Loop headers (``for i in range(n)``, the ``in`` part of a comprehension),
   ``with`` headers and attribute assignments (``mp.dps = 50``) are never mutated
   themselves; but when a loop variable is read in the region, the names its header reads
   are followed (``for p, q in pairs`` brings the assignment of ``pairs`` into the region).
3. Not mutated (precision settings, tolerances and sample points): names starting with
   ``tol`` (and arithmetic directly combining such a name), the value side of a comparison whose
   other side is a call of ``abs``/``fabs``/``Abs`` (in ``abs(a - b) < 1e-20`` the bound
   ``1e-20`` is a tolerance), keyword arguments of calls (pass precisions by keyword:
   ``sp.N(x, n=50)``, ``mp.quad(f, [0, 1], maxdegree=8)``), string literals, and the
   iterables of comprehensions and ``for`` loops. A mutated sample point changes both
   sides of a relation alike, so give sample points as strings (``mp.mpf("3.5")``,
   ``sp.Rational("7/2")``) or iterate over them written inline in the header
   (``for a in (2, 3, 10)``, not ``orders = (2, 3, 10)`` then ``for a in orders``).
4. Mutation operators, one site at a time: a numeric literal ``c`` becomes ``c + 1``
   (so 0 -> 1, 1 -> 2, 0.5 -> 1.5); ``+`` <-> ``-``; ``*`` <-> ``/``; ``//`` -> ``*``;
   ``a ** b`` -> ``a ** (b + 1)``; unary minus is dropped; a comparison operator is
   replaced by its negation (``==``/``!=``, ``<``/``>=``, ``<=``/``>``).
5. Every mutant must *die*: ``check()`` returns anything but true, raises, or exceeds the
   time limit. A surviving mutant means the check cannot fail there; the test suite fails.
   The time limit of a mutant is :func:`mutant_timeout` of the unmutated check's run time
   (ten times it, at least 2 s, at most 20 s): a mutant that sends sympy into a search ten
   times longer than the original is counted as caught, as usual in mutation testing.

A step whose relation is a restatement does not count as checked: a returned constant,
a comparison of an expression with itself, a difference of an expression with itself, or
a relation with no mutation site at all (:func:`trivial_reason`).
"""

from __future__ import annotations

import ast
import time
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Final

from adaptive_dp.catalogue.proofs.parser import ProofFormatError, Step
from adaptive_dp.catalogue.proofs.sandbox import (
    DEFAULT_TIMEOUT,
    CheckResult,
    evaluate_check,
    execute,
    own_statements,
    parse_check,
)

__all__ = ["Mutant", "MutationReport", "mutant_timeout", "mutants", "mutation_report",
           "trivial_reason"]

MUTANT_TIMEOUT_FACTOR: Final = 10.0
MUTANT_TIMEOUT_MIN: Final = 2.0
MUTANT_TIMEOUT_MAX: Final = 20.0
_ABS_NAMES: Final = frozenset({"abs", "fabs", "Abs"})
_NUMBER_FROM_TEXT: Final = frozenset(
    {"mpf", "Rational", "Float", "S", "sympify", "Integer", "mpmathify"}
)



def _is_abs_call(node: ast.expr) -> bool:
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    if isinstance(func, ast.Name):
        return func.id in _ABS_NAMES
    return isinstance(func, ast.Attribute) and func.attr in _ABS_NAMES


def _number_text(node: ast.AST) -> str | None:
    """The string of ``mpf("c")``-like calls (rule 4's thresholds), if it spells a number."""
    if not (isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords):
        return None
    func = node.func
    name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
    argument = node.args[0]
    if name not in _NUMBER_FROM_TEXT or not isinstance(argument, ast.Constant):
        return None
    if not isinstance(argument.value, str):
        return None
    try:
        Fraction(argument.value.strip())
    except (ValueError, ZeroDivisionError):
        return None
    return argument.value


def _plus_one(text: str) -> str:
    """``text`` + 1, spelled as ``text`` was (a fraction stays a fraction)."""
    if "/" in text:
        value = Fraction(text.strip()) + 1
        return f"{value.numerator}/{value.denominator}"
    return str(Decimal(text.strip()) + 1)


def _is_tol(node: ast.AST) -> bool:
    return isinstance(node, ast.Name) and node.id.lower().startswith("tol")


_BIN_SWAP: Final[dict[type[ast.operator], type[ast.operator]]] = {
    ast.Add: ast.Sub,
    ast.Sub: ast.Add,
    ast.Mult: ast.Div,
    ast.Div: ast.Mult,
    ast.FloorDiv: ast.Mult,
}
_CMP_NEGATION: Final[dict[type[ast.cmpop], type[ast.cmpop]]] = {
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.Lt: ast.GtE,
    ast.GtE: ast.Lt,
    ast.LtE: ast.Gt,
    ast.Gt: ast.LtE,
}
_SYMBOL: Final[dict[type[ast.AST], str]] = {
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.Div: "/",
    ast.FloorDiv: "//",
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
}


@dataclass(frozen=True, slots=True)
class _Site:
    index: int  # position of the node in ast.walk order of the module
    operator: str  # "literal" | "threshold" | "binop" | "pow" | "usub" | "augassign" | "compare"
    position: int  # comparison operator index, else 0
    description: str


def _region_sites(tree: ast.Module, check: ast.FunctionDef) -> list[_Site]:
    """The mutation sites of ``check`` (module docstring, rules 1-4)."""
    order = {id(node): i for i, node in enumerate(ast.walk(tree))}
    assignments: dict[str, list[ast.expr]] = {}
    aug: dict[str, list[ast.AugAssign]] = {}
    helpers: dict[str, list[ast.expr]] = {}

    def targets(target: ast.expr) -> Iterator[str]:
        if isinstance(target, ast.Name):
            yield target.id
        elif isinstance(target, ast.Tuple | ast.List):
            for element in target.elts:
                yield from targets(element)
        elif isinstance(target, ast.Starred):
            yield from targets(target.value)

    loop_sources: dict[str, list[ast.expr]] = {}
    for node in ast.walk(check):
        if isinstance(node, ast.For | ast.comprehension):
            for name in targets(node.target):
                loop_sources.setdefault(name, []).append(node.iter)
        if isinstance(node, ast.Assign):
            for target in node.targets:
                for name in targets(target):
                    assignments.setdefault(name, []).append(node.value)
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            for name in targets(node.target):
                assignments.setdefault(name, []).append(node.value)
        elif isinstance(node, ast.AugAssign):
            for name in targets(node.target):
                aug.setdefault(name, []).append(node)
        elif isinstance(node, ast.FunctionDef) and node is not check:
            returns = [
                s.value
                for s in own_statements(node)
                if isinstance(s, ast.Return) and s.value is not None
            ]
            helpers.setdefault(node.name, []).extend(returns)

    final = check.body[-1]
    assert isinstance(final, ast.Return) and final.value is not None
    sites: list[_Site] = []
    seen_names: set[str] = set()
    pending: list[ast.expr] = [final.value]
    visited: set[int] = set()

    def add(node: ast.AST, operator: str, description: str, position: int = 0) -> None:
        sites.append(_Site(order[id(node)], operator, position, description))

    def follow(name: str) -> None:
        if name in seen_names or name.lower().startswith("tol"):
            return
        seen_names.add(name)
        pending.extend(assignments.get(name, ()))
        pending.extend(helpers.get(name, ()))
        for source in loop_sources.get(name, ()):
            follow_names(source)
        for node in aug.get(name, ()):
            symbol = _SYMBOL.get(type(node.op))
            if type(node.op) in _BIN_SWAP and symbol is not None:
                add(node, "augassign", f"line {node.lineno}: '{symbol}=' swapped")
            pending.append(node.value)

    def follow_names(header: ast.expr) -> None:
        # a loop header is never mutated itself, but the data it iterates over is followed
        for node in ast.walk(header):
            if isinstance(node, ast.Name):
                follow(node.id)

    def thresholds(node: ast.AST) -> None:
        # rule 4: numbers written as strings standing as (part of) a side of a comparison
        if id(node) in threshold_seen:
            return
        threshold_seen.add(id(node))
        text = _number_text(node)
        if text is not None:
            assert isinstance(node, ast.Call)
            argument = node.args[0]
            add(argument, "threshold", f"line {node.lineno}: threshold {text!r} -> +1")
        elif isinstance(node, ast.BinOp) and not (_is_tol(node.left) or _is_tol(node.right)):
            thresholds(node.left)
            thresholds(node.right)
        elif isinstance(node, ast.UnaryOp):
            thresholds(node.operand)

    threshold_seen: set[int] = set()

    def visit(node: ast.AST) -> None:
        if id(node) in visited:
            return
        visited.add(id(node))
        if isinstance(node, ast.Constant):
            if isinstance(node.value, int | float | complex) and not isinstance(node.value, bool):
                add(node, "literal", f"line {node.lineno}: literal {node.value!r} -> +1")
            return
        if isinstance(node, ast.Name):
            follow(node.id)
            return
        if _is_tol(node):
            return
        if isinstance(node, ast.BinOp):
            if _is_tol(node.left) or _is_tol(node.right):
                visit(node.right if _is_tol(node.left) else node.left)
                return
            if isinstance(node.op, ast.Pow):
                add(node, "pow", f"line {node.lineno}: exponent of '**' -> +1")
            elif type(node.op) in _BIN_SWAP:
                symbol = _SYMBOL[type(node.op)]
                add(node, "binop", f"line {node.lineno}: '{symbol}' swapped")
            visit(node.left)
            visit(node.right)
            return
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            add(node, "usub", f"line {node.lineno}: unary '-' dropped")
            visit(node.operand)
            return
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            for position, op in enumerate(node.ops):
                if type(op) in _CMP_NEGATION:
                    symbol = _SYMBOL[type(op)]
                    add(node, "compare", f"line {node.lineno}: '{symbol}' negated", position)
            abs_side = any(_is_abs_call(operand) for operand in operands)
            for operand in operands:
                if abs_side and not _is_abs_call(operand):
                    continue  # a tolerance
                thresholds(operand)
                visit(operand)
            return
        if isinstance(node, ast.Call):
            visit(node.func)
            for argument in node.args:
                visit(argument)
            return  # keyword arguments are settings: never mutated
        if isinstance(node, ast.Lambda):
            visit(node.body)
            return
        if isinstance(node, ast.ListComp | ast.SetComp | ast.GeneratorExp):
            visit(node.elt)
            for generator in node.generators:
                for condition in generator.ifs:
                    visit(condition)
            return  # the iterables are loop headers (followed through their targets)
        if isinstance(node, ast.DictComp):
            visit(node.value)
            return
        for child in ast.iter_child_nodes(node):
            visit(child)

    while pending:
        visit(pending.pop(0))
    sites.sort(key=lambda site: (site.index, site.position))
    return sites


class _Apply(ast.NodeTransformer):
    def __init__(self, site: _Site, order: dict[int, int]) -> None:
        self.site = site
        self.order = order

    def _target(self, node: ast.AST) -> bool:
        return self.order.get(id(node)) == self.site.index

    def visit_Constant(self, node: ast.Constant) -> ast.AST:
        value = node.value
        if self._target(node) and self.site.operator == "literal":
            assert isinstance(value, int | float | complex)
            return ast.copy_location(ast.Constant(value + 1), node)
        if self._target(node) and self.site.operator == "threshold":
            assert isinstance(value, str)
            return ast.copy_location(ast.Constant(_plus_one(value)), node)
        return node

    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        target = self._target(node)
        self.generic_visit(node)
        if target and self.site.operator == "binop":
            node.op = _BIN_SWAP[type(node.op)]()
        elif target and self.site.operator == "pow":
            node.right = ast.BinOp(left=node.right, op=ast.Add(), right=ast.Constant(1))
        return node

    def visit_AugAssign(self, node: ast.AugAssign) -> ast.AST:
        target = self._target(node)
        self.generic_visit(node)
        if target and self.site.operator == "augassign":
            node.op = _BIN_SWAP[type(node.op)]()
        return node

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.AST:
        target = self._target(node)
        self.generic_visit(node)
        if target and self.site.operator == "usub":
            return node.operand
        return node

    def visit_Compare(self, node: ast.Compare) -> ast.AST:
        target = self._target(node)
        self.generic_visit(node)
        if target and self.site.operator == "compare":
            ops = list(node.ops)
            ops[self.site.position] = _CMP_NEGATION[type(ops[self.site.position])]()
            node.ops = ops
        return node


@dataclass(frozen=True, slots=True)
class Mutant:
    """One mutated version of a step's check."""

    step: Step
    description: str
    source: str

    def result(self, timeout: float | None = DEFAULT_TIMEOUT) -> CheckResult:
        """Run the mutated check."""
        tree = ast.parse(self.source)
        return execute(tree, f"{self.step.label} mutant", timeout)

    def survives(self, timeout: float | None = DEFAULT_TIMEOUT) -> bool:
        """True iff the mutated check still returns true (a defect of the check)."""
        return self.result(timeout).passed


def mutants(step: Step) -> Iterator[Mutant]:
    """Every single-site mutant of ``step``'s asserted relation (module docstring)."""
    tree, check = parse_check(step)
    for site in _region_sites(tree, check):
        fresh = ast.parse(step.code or "")
        order = {id(node): i for i, node in enumerate(ast.walk(fresh))}
        mutated = _Apply(site, order).visit(fresh)
        ast.fix_missing_locations(mutated)
        yield Mutant(step, site.description, ast.unparse(mutated))


def trivial_reason(step: Step) -> str | None:
    """Why ``step``'s check is a restatement (not counted as checked), or None."""
    if step.code is None:
        return "no check"
    try:
        tree, check = parse_check(step)
    except ProofFormatError as error:
        return f"malformed: {error}"
    final = check.body[-1]
    assert isinstance(final, ast.Return) and final.value is not None
    relation = final.value
    if isinstance(relation, ast.Constant):
        return "returns a constant"
    for node in ast.walk(relation):
        if isinstance(node, ast.Compare):
            operands = [ast.dump(operand) for operand in (node.left, *node.comparators)]
            if len(set(operands)) < len(operands):
                return "compares an expression with itself"
        if (
            isinstance(node, ast.BinOp)
            and isinstance(node.op, ast.Sub | ast.Div)
            and ast.dump(node.left) == ast.dump(node.right)
        ):
            return "subtracts an expression from itself"
    if not _region_sites(tree, check):
        return "no mutation site in the asserted relation"
    return None


@dataclass(frozen=True, slots=True)
class MutationReport:
    """Outcome of the mutation test of one step."""

    step: Step
    total: int
    survivors: tuple[Mutant, ...]

    @property
    def killed(self) -> int:
        """Mutants that failed or raised."""
        return self.total - len(self.survivors)


def mutant_timeout(baseline_seconds: float) -> float:
    """Time limit of a mutant, given the unmutated check's run time (rule 5)."""
    scaled = MUTANT_TIMEOUT_FACTOR * baseline_seconds
    return min(MUTANT_TIMEOUT_MAX, max(MUTANT_TIMEOUT_MIN, scaled))


def mutation_report(step: Step, timeout: float | None = None) -> MutationReport:
    """Run every mutant of ``step``; collect the survivors.

    Without ``timeout`` each mutant gets :func:`mutant_timeout` of the original's run time.
    """
    if timeout is None:
        started = time.perf_counter()
        evaluate_check(step)
        timeout = mutant_timeout(time.perf_counter() - started)
    survivors: list[Mutant] = []
    total = 0
    for mutant in mutants(step):
        total += 1
        if mutant.survives(timeout):
            survivors.append(mutant)
    return MutationReport(step, total, tuple(survivors))

