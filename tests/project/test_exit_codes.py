"""Every exit status sdeval gives comes from its one definition (evaluator/_infra/exit_codes.py):
no command, stage or result type writes 0, 1, 2 or 130 as a number of its own."""

from __future__ import annotations

import ast
from pathlib import Path

from conftest import ROOT

PACKAGE = ROOT / "evaluator"
DEFINITION = PACKAGE / "_infra" / "exit_codes.py"
EXITS = ("Exit", "exit", "SystemExit", "_exit")  # typer.Exit, sys.exit, SystemExit, os._exit


def _int_literals(node: ast.AST | None) -> list[int]:
    """The integers a value is written as (directly or as either side of `a if c else b`)."""
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return [node.value]
    if isinstance(node, ast.IfExp):
        return _int_literals(node.body) + _int_literals(node.orelse)
    return []


def _called(node: ast.Call) -> str:
    func = node.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def exit_code_literals(source: str) -> list[str]:
    """Each place in `source` that writes an exit status as a number: an exit call's argument, an
    `exit_code` given or stored, or what a function named for the exit status (or `main`) returns."""
    found = []
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            if _called(node) in EXITS:
                for value in [*node.args[:1], *(k.value for k in node.keywords if k.arg == "code")]:
                    found += [f"line {node.lineno}: {_called(node)}({n})" for n in _int_literals(value)]
            for k in node.keywords:
                if k.arg == "exit_code":
                    found += [f"line {node.lineno}: exit_code={n}" for n in _int_literals(k.value)]
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = [t.id if isinstance(t, ast.Name) else t.attr if isinstance(t, ast.Attribute) else "" for t in targets]
            if any("exit" in name.lower() for name in names):
                found += [f"line {node.lineno}: {names[0]} = {n}" for n in _int_literals(node.value)]
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and ("exit" in node.name or node.name == "main"):
            for inner in ast.walk(node):
                if isinstance(inner, ast.Return):
                    found += [f"line {inner.lineno}: {node.name} returns {n}" for n in _int_literals(inner.value)]
    return found


def test_exit_statuses_come_only_from_their_definition():
    written = {
        str(path.relative_to(ROOT)): places
        for path in sorted(PACKAGE.rglob("*.py"))
        if path != DEFINITION and (places := exit_code_literals(path.read_text()))
    }
    assert written == {}


def test_the_check_finds_each_way_of_writing_one():
    """The check is not blind: each form it looks for, written with a number, is found."""
    source = """
import sys, typer
def run():
    raise typer.Exit(2)
def stop():
    sys.exit(code=130)
def exit_code(results):
    return 1 if results else 0
def main(argv):
    return 2
result = Result(lines, exit_code=1)
class Result:
    exit_code: int = 0
"""
    assert len(exit_code_literals(source)) == 7
    assert exit_code_literals("import typer\nraise typer.Exit(EXIT_OK)\nvalue = 1 if x else 0\n") == []


def test_the_definition_is_the_documented_one():
    from evaluator._infra.exit_codes import EXIT_CANNOT_RUN, EXIT_FINDINGS, EXIT_INTERRUPTED, EXIT_OK
    from evaluator.cli import exits

    assert (EXIT_OK, EXIT_FINDINGS, EXIT_CANNOT_RUN, EXIT_INTERRUPTED) == (0, 1, 2, 130)
    assert (exits.EXIT_OK, exits.EXIT_FINDINGS, exits.EXIT_CANNOT_RUN, exits.EXIT_INTERRUPTED) == (0, 1, 2, 130)
    assert all(f"{n} " in Path(DEFINITION).read_text() for n in (0, 1, 2, 130))
