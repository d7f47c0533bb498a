"""The pipeline stays visible in the code: the orchestration exists once (evaluator/run.py), the
PDF package only renders, writes and signs, and the top level holds few, named modules."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from conftest import ROOT

PACKAGE = ROOT / "evaluator"
# The assessment and fit engine: what decides verdicts and judges profiles.
ENGINE = ("evaluator.assessment", "evaluator.context", "evaluator.figures", "evaluator.rules", "evaluator.fit")


def runtime_imports(path: Path) -> set[str]:
    """Absolute names of the modules a file imports when it runs (imports under
    `if TYPE_CHECKING:` are for annotations only and are left out)."""
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    tree = ast.parse(path.read_text())
    skipped = {id(n) for node in ast.walk(tree) if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
               for n in ast.walk(node)}
    names = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            names |= {module} | {f"{module}.{alias.name}" for alias in node.names}
    return names


@pytest.mark.parametrize("path", sorted((PACKAGE / "pdf").glob("*.py")), ids=lambda p: p.name)
def test_the_pdf_package_imports_nothing_of_the_engine(path):
    engine = {name for name in runtime_imports(path) if name.startswith(ENGINE)}
    assert engine == set(), f"{path.name} reaches into the engine; it should receive the assessed result"
    # Verifying re-runs the pipeline for the reproduction check, through the one orchestration module.
    if path.name not in ("verify.py", "verify_many.py"):
        assert not {n for n in runtime_imports(path) if n.startswith("evaluator.run")}


def test_the_orchestration_exists_once():
    """Only run.py calls assess() and compare(); every command goes through it."""
    callers = set()
    for path in PACKAGE.rglob("*.py"):
        imports = runtime_imports(path)
        if {"evaluator.assessment.assess", "evaluator.fit.judge.compare"} & imports:
            callers.add(path.relative_to(PACKAGE).as_posix())
    assert callers == {"run.py"}


def test_the_top_level_holds_at_most_13_modules():
    modules = sorted(p.stem for p in PACKAGE.glob("*.py") if not p.stem.startswith("__"))
    # 15 since issue 23's safe_text and working; issue 24's packages bring the top level down to one module.
    assert len(modules) <= 15, modules


def test_nothing_imports_click_itself():
    """typer may vendor its own copy of click (typer._click): a plain install (scripts/demo) has no
    click, and the test tools bring one, so only this check catches an import of it."""
    importers = sorted(p.relative_to(PACKAGE).as_posix() for p in PACKAGE.rglob("*.py")
                       if any(n == "click" or n.startswith("click.") for n in runtime_imports(p)))
    assert importers == []
