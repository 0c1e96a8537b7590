"""Proof files: parser, check runner and mutation tester (docs/design.md, proofs).

A proof lives in ``proofs/<id>.md`` (shipped in the wheel, found through
:func:`adaptive_dp.resources.data_dir`). Its layout::

    # <id>: <title>

    ## Statement
    <the statement proved>

    ## Hypotheses
    <the hypotheses>

    ## Provenance          (optional: what is external / reconstructed)
    ...

    ## Proof
    1. [algebra] <text> (uses: <id>, <id>)

       ```python
       import sympy as sp

       def check() -> bool:
           ...
           return <the asserted relation>
       ```

    2. [argument] <prose a reviewer reads> (uses: ...)

Further ``## `` sections (notes, references) may follow the proof; they end the step list.

Step kinds: ``algebra`` and ``numeric`` steps carry exactly one fenced ``python`` block;
``argument`` steps carry none. The block is executed by :func:`run_check` in a fresh
namespace whose only importable modules are ``sympy`` and ``mpmath`` (checked on the
syntax tree before anything runs); it may contain only imports and one function
``check()``. Dunder names, private attributes, ``eval``/``exec``/``open``-like builtins and
sympy's string evaluators (``sympify``, ``parse_expr``, ``lambdify``, ``S("...")``) are
rejected. The sandbox guards against accidents (a check importing numpy, or the library
under test, whose independence the proofs need); it is not a security boundary. The
mpmath working precision is restored after every run, so a check may set ``mp.dps``.
A check passes iff ``check()`` returns ``True`` (a Python bool or sympy's ``true``).

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
import builtins
import contextlib
import re
import signal
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Final, Literal

import mpmath

from adaptive_dp.errors import AdaptiveDPError
from adaptive_dp.resources import data_dir

__all__ = [
    "ALLOWED_MODULES",
    "CheckResult",
    "Mutant",
    "MutationReport",
    "Proof",
    "ProofFormatError",
    "ProofNotFoundError",
    "Step",
    "StepKind",
    "all_proofs",
    "evaluate_check",
    "load_proof",
    "mutant_timeout",
    "mutants",
    "mutation_report",
    "parse_proof",
    "proof_ids",
    "run_check",
    "trivial_reason",
]

StepKind = Literal["algebra", "numeric", "argument"]
ALLOWED_MODULES: Final = frozenset({"sympy", "mpmath"})
DEFAULT_TIMEOUT: Final = 60.0
MUTANT_TIMEOUT_FACTOR: Final = 10.0
MUTANT_TIMEOUT_MIN: Final = 2.0
MUTANT_TIMEOUT_MAX: Final = 20.0

_FORBIDDEN_NAMES: Final = frozenset(
    {
        "eval",
        "exec",
        "compile",
        "open",
        "input",
        "globals",
        "locals",
        "vars",
        "getattr",
        "setattr",
        "delattr",
        "breakpoint",
        "memoryview",
        "help",
        "exit",
        "quit",
    }
)
_SAFE_BUILTINS: Final = (
    *("abs", "all", "any", "bool", "complex", "dict", "divmod", "enumerate", "filter"),
    *("float", "frozenset", "int", "isinstance", "len", "list", "map", "max", "min", "pow"),
    *("range", "reversed", "round", "set", "sorted", "str", "sum", "tuple", "zip"),
    *("ArithmeticError", "Exception", "OverflowError", "ValueError", "ZeroDivisionError"),
)
_ABS_NAMES: Final = frozenset({"abs", "fabs", "Abs"})
_STRING_EVALUATORS: Final = frozenset({"sympify", "parse_expr", "lambdify", "preview"})


class ProofFormatError(AdaptiveDPError, ValueError):
    """A proof file (or a check block) does not follow the documented format."""


class ProofNotFoundError(AdaptiveDPError, LookupError):
    """No proof file with that id is shipped."""


@dataclass(frozen=True, slots=True)
class Step:
    """One numbered step: ``N. [kind] text (uses: ids)`` and, if checked, its code."""

    proof_id: str
    number: int
    kind: StepKind
    text: str
    uses: tuple[str, ...]
    code: str | None
    line: int

    @property
    def label(self) -> str:
        """``<proof id> step <N>``."""
        return f"{self.proof_id} step {self.number}"

    @property
    def is_checked(self) -> bool:
        """An algebra/numeric step whose relation is not a restatement."""
        return self.kind != "argument" and trivial_reason(self) is None


@dataclass(frozen=True, slots=True)
class Proof:
    """A parsed proof file."""

    id: str
    title: str
    statement: str
    hypotheses: str
    provenance: str
    steps: tuple[Step, ...]
    source: str = field(repr=False)

    @property
    def uses(self) -> tuple[str, ...]:
        """Every id cited by a step, in order of first use."""
        seen: dict[str, None] = {}
        for step in self.steps:
            for used in step.uses:
                seen.setdefault(used, None)
        return tuple(seen)

    @property
    def checked_steps(self) -> tuple[Step, ...]:
        """The steps that carry a non-trivial check."""
        return tuple(step for step in self.steps if step.is_checked)

    @property
    def checked_share(self) -> float:
        """Fraction of steps that are checked (0 for a proof without steps)."""
        return len(self.checked_steps) / len(self.steps) if self.steps else 0.0


# ----------------------------------------------------------------------------- parsing

_TITLE = re.compile(r"^#\s+(?P<id>[A-Za-z0-9][A-Za-z0-9.\-]*)\s*[:\u2014-]\s*(?P<title>.+)$")
_SECTION = re.compile(r"^##\s+(?P<name>.+?)\s*$")
_STEP = re.compile(r"^(?P<n>\d+)\.\s+\[(?P<kind>[a-z]+)\]\s*(?P<text>.*)$")
_FENCE = re.compile(r"^(?P<indent>\s*)```(?P<lang>[A-Za-z]*)\s*$")
_USES = re.compile(r"\(uses:\s*(?P<ids>[^)]*)\)")


def _collapse(lines: list[str]) -> str:
    return "\n".join(lines).strip()


def parse_proof(text: str, expected_id: str | None = None) -> Proof:
    """Parse the text of a proof file (see the module docstring for the format)."""
    lines = text.splitlines()
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is None:
        raise ProofFormatError("empty proof file")
    title = _TITLE.match(lines[first].strip())
    if title is None:
        raise ProofFormatError(f"line {first + 1}: expected '# <id>: <title>'")
    proof_id = title["id"]
    if expected_id is not None and proof_id != expected_id:
        raise ProofFormatError(f"title id {proof_id!r} does not match file id {expected_id!r}")

    sections: dict[str, list[tuple[int, str]]] = {}
    current: str | None = None
    for index in range(first + 1, len(lines)):
        heading = _SECTION.match(lines[index])
        if heading is not None:
            current = heading["name"].lower()
            if current in sections:
                raise ProofFormatError(f"line {index + 1}: duplicate section {current!r}")
            sections[current] = []
        elif current is not None:
            sections[current].append((index + 1, lines[index]))
    for required in ("statement", "hypotheses", "proof"):
        if required not in sections:
            raise ProofFormatError(f"{proof_id}: missing section '## {required.capitalize()}'")

    def body(name: str) -> str:
        return _collapse([line for _, line in sections.get(name, [])])

    steps = _parse_steps(proof_id, sections["proof"])
    if not steps:
        raise ProofFormatError(f"{proof_id}: the proof has no steps")
    return Proof(
        id=proof_id,
        title=title["title"].strip(),
        statement=body("statement"),
        hypotheses=body("hypotheses"),
        provenance=body("provenance"),
        steps=tuple(steps),
        source=text,
    )


@dataclass(slots=True)
class _RawStep:
    line: int
    number: int
    kind: str
    text: list[str]
    code: list[str] = field(default_factory=list)
    blocks: int = 0


def _parse_steps(proof_id: str, numbered: list[tuple[int, str]]) -> list[Step]:
    raw: list[_RawStep] = []
    in_code = False
    fence_indent = 0
    for lineno, line in numbered:
        fence = _FENCE.match(line)
        if in_code:
            if fence is not None and fence["lang"] == "":
                in_code = False
                continue
            prefix = line[:fence_indent]
            raw[-1].code.append(line[fence_indent:] if prefix.strip() == "" else line)
            continue
        if fence is not None:
            if not raw:
                raise ProofFormatError(f"{proof_id} line {lineno}: code block before any step")
            if fence["lang"] != "python":
                raise ProofFormatError(f"{proof_id} line {lineno}: code blocks must be python")
            in_code = True
            fence_indent = len(fence["indent"])
            raw[-1].blocks += 1
            continue
        match = _STEP.match(line)
        if match is not None:
            raw.append(_RawStep(lineno, int(match["n"]), match["kind"], [match["text"]]))
        elif raw:
            raw[-1].text.append(line.strip())
    if in_code:
        raise ProofFormatError(f"{proof_id}: unterminated code block")
    steps: list[Step] = []
    for expected, item in enumerate(raw, 1):
        where = f"{proof_id} step {item.number} (line {item.line})"
        if item.number != expected:
            raise ProofFormatError(f"{where}: expected step number {expected}")
        if item.kind not in ("algebra", "numeric", "argument"):
            raise ProofFormatError(f"{where}: unknown step kind {item.kind!r}")
        kind: StepKind = item.kind  # type: ignore[assignment]  # checked on the line above
        text = " ".join(part for part in item.text if part).strip()
        found = _USES.findall(text)
        uses = tuple(u.strip() for u in found[-1].split(",") if u.strip()) if found else ()
        source: str | None = None
        if kind == "argument":
            if item.blocks:
                raise ProofFormatError(f"{where}: argument steps carry no code")
        else:
            if item.blocks != 1:
                raise ProofFormatError(f"{where}: a {kind} step needs exactly one python block")
            source = "\n".join(item.code).strip("\n") + "\n"
        steps.append(Step(proof_id, item.number, kind, text, uses, source, item.line))
    return steps


def proof_ids() -> tuple[str, ...]:
    """Ids of every shipped proof, sorted."""
    folder = data_dir("proofs")
    names = (entry.name for entry in folder.iterdir() if entry.name.endswith(".md"))
    return tuple(sorted(name[:-3] for name in names if name != "README.md"))


def load_proof(proof_id: str) -> Proof:
    """The parsed ``proofs/<proof_id>.md``."""
    entry = data_dir("proofs") / f"{proof_id}.md"
    if proof_id == "README" or not entry.is_file():
        raise ProofNotFoundError(f"no proof file for {proof_id!r}")
    return parse_proof(entry.read_text(encoding="utf-8"), expected_id=proof_id)


def all_proofs() -> tuple[Proof, ...]:
    """Every shipped proof, sorted by id."""
    return tuple(load_proof(proof_id) for proof_id in proof_ids())


# ----------------------------------------------------------------------------- sandbox


def _validate(tree: ast.Module, label: str) -> ast.FunctionDef:
    """Reject anything but sympy/mpmath imports and one ``check`` function."""
    check: ast.FunctionDef | None = None
    for statement in tree.body:
        if isinstance(statement, ast.Import | ast.ImportFrom):
            continue
        if isinstance(statement, ast.FunctionDef) and statement.name == "check":
            if check is not None:
                raise ProofFormatError(f"{label}: check() defined twice")
            check = statement
            continue
        raise ProofFormatError(
            f"{label}: line {statement.lineno}: only imports and 'def check()' may be top-level"
        )
    if check is None:
        raise ProofFormatError(f"{label}: no check() function")
    if check.args.args or check.args.vararg or check.args.kwarg or check.args.kwonlyargs:
        raise ProofFormatError(f"{label}: check() takes no arguments")
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            roots = {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            roots = {(node.module or "").split(".")[0]} if node.level == 0 else {""}
        else:
            roots = set()
        if roots - ALLOWED_MODULES:
            line = getattr(node, "lineno", "?")
            raise ProofFormatError(f"{label}: line {line}: only sympy and mpmath may be imported")
        if isinstance(node, ast.Name) and (
            node.id.startswith("__") or node.id in _FORBIDDEN_NAMES
        ):
            raise ProofFormatError(f"{label}: name {node.id!r} is not allowed in a check")
        if isinstance(node, ast.Attribute) and node.attr.startswith("_"):
            raise ProofFormatError(f"{label}: private attribute {node.attr!r} is not allowed")
        if isinstance(node, ast.Name | ast.Attribute):
            name = node.id if isinstance(node, ast.Name) else node.attr
            if name in _STRING_EVALUATORS:
                raise ProofFormatError(f"{label}: {name!r} is not allowed in a check")
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name | ast.Attribute)
            and (node.func.id if isinstance(node.func, ast.Name) else node.func.attr) == "S"
            and any(isinstance(a, ast.Constant) and isinstance(a.value, str) for a in node.args)
        ):
            raise ProofFormatError(f"{label}: S() of a string is not allowed in a check")
        if isinstance(node, ast.Global | ast.Nonlocal):
            raise ProofFormatError(f"{label}: global/nonlocal is not allowed in a check")
    last = check.body[-1]
    if not isinstance(last, ast.Return) or last.value is None:
        raise ProofFormatError(f"{label}: check() must end with 'return <relation>'")
    returns = [s for s in _own_statements(check) if isinstance(s, ast.Return)]
    if len(returns) != 1:
        raise ProofFormatError(f"{label}: check() must have exactly one return statement")
    return check


def _own_statements(function: ast.FunctionDef) -> Iterator[ast.AST]:
    """Every node of ``function`` outside its nested function definitions."""
    nested = ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda
    stack: list[ast.AST] = [node for node in function.body if not isinstance(node, nested)]
    while stack:
        node = stack.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, nested):
                stack.append(child)


def _restricted_import(
    name: str,
    globals_: object = None,
    locals_: object = None,
    fromlist: object = (),
    level: int = 0,
) -> object:
    if level != 0 or name.split(".")[0] not in ALLOWED_MODULES:
        raise ImportError(f"only sympy and mpmath may be imported in a check, not {name!r}")
    return builtins.__import__(name, globals_, locals_, fromlist, level)  # type: ignore[arg-type]  # hook passes its own args through


def _namespace() -> dict[str, Any]:
    safe: dict[str, Any] = {name: getattr(builtins, name) for name in _SAFE_BUILTINS}
    safe.update({"True": True, "False": False, "None": None, "__import__": _restricted_import})
    return {"__builtins__": safe, "__name__": "proof_check"}


class _TimeoutError(Exception):
    pass


@contextlib.contextmanager
def _time_limit(seconds: float | None) -> Iterator[None]:
    usable = (
        seconds is not None
        and hasattr(signal, "setitimer")
        and threading.current_thread() is threading.main_thread()
    )
    if not usable:
        yield
        return

    def _raise(signum: int, frame: object) -> None:
        raise _TimeoutError

    previous = signal.signal(signal.SIGALRM, _raise)
    signal.setitimer(signal.ITIMER_REAL, seconds)  # type: ignore[arg-type]  # float seconds, stub too narrow
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _is_true(value: object) -> bool:
    if value is True:
        return True
    return type(value).__name__ == "BooleanTrue"


@dataclass(frozen=True, slots=True)
class CheckResult:
    """Outcome of running one check: ``passed`` and, if not, why."""

    passed: bool
    detail: str


def _execute(tree: ast.Module, label: str, timeout: float | None) -> CheckResult:
    namespace = _namespace()
    saved_prec = mpmath.mp.prec
    try:
        with _time_limit(timeout):
            exec(compile(tree, f"<{label}>", "exec"), namespace)
            check: Callable[[], object] = namespace["check"]
            value = check()
    except _TimeoutError:
        return CheckResult(False, f"timed out after {timeout} s")
    except Exception as error:  # a raising check fails (and a raising mutant dies)
        return CheckResult(False, f"raised {type(error).__name__}: {error}")
    finally:
        mpmath.mp.prec = saved_prec
    if _is_true(value):
        return CheckResult(True, "returned True")
    return CheckResult(False, f"returned {value!r}")


def _parse_check(step: Step) -> tuple[ast.Module, ast.FunctionDef]:
    if step.code is None:
        raise ProofFormatError(f"{step.label}: an argument step has no check")
    try:
        tree = ast.parse(step.code)
    except SyntaxError as error:
        raise ProofFormatError(f"{step.label}: syntax error: {error}") from error
    return tree, _validate(tree, step.label)


def evaluate_check(step: Step, timeout: float | None = DEFAULT_TIMEOUT) -> CheckResult:
    """Run the check of ``step`` in the sandbox; report pass/fail and the reason."""
    tree, _ = _parse_check(step)
    return _execute(tree, step.label, timeout)


def run_check(step: Step, timeout: float | None = DEFAULT_TIMEOUT) -> bool:
    """True iff ``step``'s ``check()`` returns true (format errors raise)."""
    return evaluate_check(step, timeout).passed


# ----------------------------------------------------------------------------- mutation


def _is_abs_call(node: ast.expr) -> bool:
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    if isinstance(func, ast.Name):
        return func.id in _ABS_NAMES
    return isinstance(func, ast.Attribute) and func.attr in _ABS_NAMES


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
    operator: str  # "literal" | "binop" | "pow" | "usub" | "augassign" | "compare"
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
                for s in _own_statements(node)
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
        return _execute(tree, f"{self.step.label} mutant", timeout)

    def survives(self, timeout: float | None = DEFAULT_TIMEOUT) -> bool:
        """True iff the mutated check still returns true (a defect of the check)."""
        return self.result(timeout).passed


def mutants(step: Step) -> Iterator[Mutant]:
    """Every single-site mutant of ``step``'s asserted relation (module docstring)."""
    tree, check = _parse_check(step)
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
        tree, check = _parse_check(step)
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
