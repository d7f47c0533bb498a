"""The pipeline stays visible in the code: one package per stage, each importing only the stages
below it, no import circle (deferred and type-checking imports included), one orchestration
module (evaluator/pipeline.py), outputs that compute nothing, and one module that knows what a
report attaches."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from conftest import ROOT

PACKAGE = ROOT / "evaluator"

# Each stage may import its own layer and the layers below it, never above (at run time; an
# annotation-only import under TYPE_CHECKING may name a result type from above).
LAYERS = {
    "evaluator._infra": 0,  # forking, atomic files, resources, text made safe to print
    "evaluator.engine": 1,  # the record and what is computed from it
    "evaluator.rules": 2,  # the rule catalog and the assessment
    "evaluator.buyer": 3,  # a buyer's requirements profile judged
    "evaluator.present": 4,  # every output, reading the assessed result
    "evaluator.pipeline": 5,  # the one door: paths or bytes -> Assessed
    "evaluator.importers": 5,
    "evaluator.references": 5,  # independent results read (an MLPerf Endpoints point through its importer) and matched to claims
    "evaluator.report": 6,  # render, write, sign: the report container
    "evaluator.authoring": 6,
    "evaluator.form": 6,
    "evaluator.verify": 7,
    "evaluator.measure": 7,
    "evaluator.serve": 7,  # the form served, assessed through the pipeline
    "evaluator.archive": 8,
    "evaluator.cli": 9,
    "evaluator.__main__": 10,
}
# Modules that compute figures or verdicts; the outputs only read what they computed.
COMPUTING = (
    "evaluator.engine.metrics",
    "evaluator.engine.claim_figures",
    "evaluator.engine.baselines",
    "evaluator.engine.context",
    "evaluator.rules.assess",
    "evaluator.buyer.judge",
    "evaluator.buyer.economics",
    "evaluator.buyer.evidence",
    "evaluator.buyer.loads",
    "evaluator.buyer.across_loads",
    "evaluator.buyer.goodput",
    "evaluator.buyer.quality",
)


def module_of(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_of(p): p for p in PACKAGE.rglob("*.py")}


def imports(path: Path, *, type_checking: bool) -> set[str]:
    """The evaluator modules a file imports (a name imported from a package that is itself a module
    counts as that module); with `type_checking`, imports under `if TYPE_CHECKING:` too."""
    name = module_of(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    tree = ast.parse(path.read_text())
    skipped = (
        set()
        if type_checking
        else {id(n) for node in ast.walk(tree) if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test) for n in ast.walk(node)}
    )
    found = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            found |= {f"{module}.{a.name}" if f"{module}.{a.name}" in MODULES else module for a in node.names}
    out = set()
    for module in found:
        while module and module not in MODULES:
            module = module.rpartition(".")[0]
        if module and module != name:
            out.add(module)
    return out


def layer(module: str) -> int | None:
    best = max((k for k in LAYERS if module == k or module.startswith(k + ".")), key=len, default=None)
    return None if best is None else LAYERS[best]


def test_the_top_level_holds_the_pipeline_and_the_packages():
    modules = sorted(p.stem for p in PACKAGE.glob("*.py") if not p.stem.startswith("__"))
    assert modules == ["pipeline"]
    packages = sorted(p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists())
    assert all(f"evaluator.{p}" in LAYERS for p in packages), packages


def test_no_import_circle_deferred_and_type_checking_imports_included():
    graph = {m: imports(p, type_checking=True) for m, p in MODULES.items()}
    # A package's __init__ importing its own submodules (a registry) is not a circle unless a
    # submodule imports the package back; both directions are in the graph.
    index, low, stack, on, circles = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    for v in graph:
        if v not in index:
            visit(v)
    assert circles == []


@pytest.mark.parametrize("module", sorted(m for m in MODULES if layer(m) is not None))
def test_each_stage_imports_only_the_stages_below_it(module):
    own = layer(module)
    above = sorted(m for m in imports(MODULES[module], type_checking=False) if (layer(m) or 0) > own)
    assert above == [], f"{module} (layer {own}) imports {above} from above it"


def test_the_engine_imports_nothing_above_it():
    engine = [m for m in MODULES if m.startswith("evaluator.engine")]
    assert engine
    for module in engine:
        reached = imports(MODULES[module], type_checking=True)
        assert all(m == "evaluator" or m.startswith(("evaluator.engine", "evaluator._infra")) for m in reached), (module, reached)


@pytest.mark.parametrize("module", sorted(m for m in MODULES if m.startswith("evaluator.present")))
def test_the_outputs_compute_no_figure(module):
    computing = sorted(m for m in imports(MODULES[module], type_checking=False) if m.startswith(COMPUTING))
    assert computing == [], f"{module} computes with {computing}; it should read the assessed result"


def _string_constants(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docstrings}


def test_only_the_report_container_knows_the_attachment_names():
    from evaluator.report.container import ASSESSMENT_NAME, MANIFEST_NAME

    knowing = sorted(module for module, path in MODULES.items() if any(ASSESSMENT_NAME in s or MANIFEST_NAME in s for s in _string_constants(path)))
    assert knowing == ["evaluator.report.container"]


def test_the_orchestration_exists_once():
    """Only the pipeline calls the assessment and the profile judging; every command goes through it."""
    callers = set()
    for module, path in MODULES.items():
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.endswith(("rules.assess", "buyer.judge")):
                if {"assess", "compare"} & {a.name for a in node.names}:
                    callers.add(module)
    assert callers == {"evaluator.pipeline"}


@pytest.mark.parametrize("module", sorted(m for m in MODULES if m.startswith(("evaluator.report", "evaluator.verify"))))
def test_report_and_verify_receive_the_assessed_result(module):
    """Rendering and verifying never reach into the engine, the rules or the buyer's judging:
    they receive the assessed result, and verify re-assesses through the pipeline."""
    reached = imports(MODULES[module], type_checking=False)
    assert not [m for m in reached if m.startswith(("evaluator.engine", "evaluator.rules", "evaluator.buyer"))], reached


def test_nothing_imports_click_itself():
    """typer may vendor its own copy of click (typer._click): a plain install (scripts/demo) has no
    click, and the test tools bring one, so only this check catches an import of it."""
    importers = sorted(
        module
        for module, path in MODULES.items()
        if any(
            node.names[0].name.split(".")[0] == "click" if isinstance(node, ast.Import) else (node.module or "").split(".")[0] == "click"
            for node in ast.walk(ast.parse(path.read_text()))
            if isinstance(node, (ast.Import, ast.ImportFrom)) and not getattr(node, "level", 0)
        )
    )
    assert importers == []


# Follows `sdeval render OFFER OFFER --requirements PROFILE` in its own process from the moment the
# command function is entered (building the command line is not the command): every call into
# sdeval's code is recorded with the folder of the caller and of the callee.
FOLLOW_RENDER = r"""
import json, sys
from pathlib import Path
root, out = Path(sys.argv[1]), sys.argv[2]
pkg = str(root / "evaluator") + "/"
calls, started = [], []
def folder(filename):
    rel = filename[len(pkg):]
    return rel.split("/")[0] if "/" in rel else rel.removesuffix(".py")
def follow(frame, event, arg):
    if event != "call" or not frame.f_code.co_filename.startswith(pkg):
        return
    if not started:
        if frame.f_code.co_name != "render" or not frame.f_code.co_filename.endswith("cli/commands.py"):
            return
        started.append(True)
    caller = frame.f_back
    if caller is not None and caller.f_code.co_filename.startswith(pkg):
        # A comprehension, generator expression or lambda runs code its author wrote and passed down:
        # it belongs to the frame that defined it, not to the callee that iterates it.
        if frame.f_code.co_name.startswith("<"):
            return
        calls.append((folder(caller.f_code.co_filename), folder(frame.f_code.co_filename), frame.f_code.co_filename[len(pkg):] + ":" + frame.f_code.co_name))
from evaluator.cli.commands import app
sys.setprofile(follow)
try:
    app(["render", "examples/complete-offer.yaml", "examples/quiet-load-offer.yaml", "-r", "examples/requirements.yaml", "-o", out], standalone_mode=False)
except SystemExit:
    pass
sys.setprofile(None)
print(json.dumps(calls))
"""


@pytest.mark.pdf
def test_render_with_requirements_visits_six_folders_and_never_climbs_back(tmp_path):
    """Issue 24: following `render --requirements` from the CLI visits at most 6 folders with at most
    2 climbs back. Followed here: every call the command makes into sdeval's code, in its own process
    (the forked PDF writer and signer are other processes). A folder is a package under evaluator/;
    pipeline.py is the door at the top, not a folder, and _infra (atomic files, forking) is
    infrastructure every stage uses, like the standard library. A climb back is a call from a lower
    layer into a higher one (a callback, or a policy a higher stage overrides)."""
    import json
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-c", FOLLOW_RENDER, str(ROOT), str(tmp_path / "r.pdf")], cwd=ROOT, capture_output=True, text=True, check=True
    )
    calls = json.loads(out.stdout.splitlines()[-1])
    folders = {callee for _, callee, _ in calls} | {caller for caller, _, _ in calls}
    assert folders - {"pipeline", "_infra"} == {"cli", "report", "engine", "rules", "buyer", "present"}
    rank = {name.removeprefix("evaluator."): n for name, n in LAYERS.items()}
    climbs = sorted({where for caller, callee, where in calls if rank[callee] > rank[caller]})
    assert climbs == []


def test_tests_run_the_command_line_one_way():
    """One CliRunner (tests/conftest.py: RUNNER, used through `invoke`): every in-process run of
    the CLI sees the same settings, so a test cannot pass by running it differently."""
    constructing = sorted(
        str(path.relative_to(ROOT))
        for path in (ROOT / "tests").rglob("*.py")
        if any(isinstance(n, ast.Call) and "CliRunner" in ast.unparse(n.func) for n in ast.walk(ast.parse(path.read_text())))
    )
    assert constructing == ["tests/conftest.py"]


def test_no_test_module_imports_another():
    """Helpers two test modules share live in tests/support: a test module imported by another runs
    its module-level setup twice and ties the two files' fates together."""
    offenders = []
    for path in sorted((ROOT / "tests").rglob("test_*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            offenders += [f"{path.relative_to(ROOT)}: {n}" for n in names if n.split(".")[-1].startswith("test_")]
    assert offenders == []
