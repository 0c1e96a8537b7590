"""The check runner: a sandbox for the fenced ``check()`` blocks of proof steps.

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
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import signal
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Final

import mpmath

from adaptive_dp.catalogue.proofs.parser import ProofFormatError, Step

__all__ = [
    "ALLOWED_MODULES",
    "DEFAULT_TIMEOUT",
    "CheckResult",
    "evaluate_check",
    "execute",
    "own_statements",
    "parse_check",
    "run_check",
]

ALLOWED_MODULES: Final = frozenset({"sympy", "mpmath"})
DEFAULT_TIMEOUT: Final = 60.0

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
_STRING_EVALUATORS: Final = frozenset({"sympify", "parse_expr", "lambdify", "preview"})



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
    returns = [s for s in own_statements(check) if isinstance(s, ast.Return)]
    if len(returns) != 1:
        raise ProofFormatError(f"{label}: check() must have exactly one return statement")
    return check


def own_statements(function: ast.FunctionDef) -> Iterator[ast.AST]:
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


class _TimeoutError(BaseException):
    """Not an ``Exception``: library code that catches ``Exception`` (sympy does, in places)
    must not swallow it and let a looping mutant run forever."""


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
    # repeating: should the first alarm still be swallowed, the next one fires 0.1 s later
    signal.setitimer(signal.ITIMER_REAL, seconds, 0.1)  # type: ignore[arg-type]  # float seconds, stub too narrow
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


def execute(tree: ast.Module, label: str, timeout: float | None) -> CheckResult:
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


def parse_check(step: Step) -> tuple[ast.Module, ast.FunctionDef]:
    if step.code is None:
        raise ProofFormatError(f"{step.label}: an argument step has no check")
    try:
        tree = ast.parse(step.code)
    except SyntaxError as error:
        raise ProofFormatError(f"{step.label}: syntax error: {error}") from error
    return tree, _validate(tree, step.label)


def evaluate_check(step: Step, timeout: float | None = DEFAULT_TIMEOUT) -> CheckResult:
    """Run the check of ``step`` in the sandbox; report pass/fail and the reason."""
    tree, _ = parse_check(step)
    return execute(tree, step.label, timeout)


def run_check(step: Step, timeout: float | None = DEFAULT_TIMEOUT) -> bool:
    """True iff ``step``'s ``check()`` returns true (format errors raise)."""
    return evaluate_check(step, timeout).passed


