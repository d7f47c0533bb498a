"""sdeval uses pyHanko, pypdf, pydantic and aiohttp as they ship: no module of it assigns to an
attribute of theirs (a method replaced at run time), subclasses one of their readers, or puts a
stand-in into sys.modules or an import hook into sys.meta_path."""

from __future__ import annotations

import ast

from conftest import ROOT

PACKAGE = ROOT / "evaluator"
LIBRARIES = ("pyhanko", "pyhanko_certvalidator", "pypdf", "pydantic", "pydantic_core", "aiohttp")


def _library_names(tree: ast.AST) -> set[str]:
    """The names a module binds to one of the libraries, its modules or anything imported from them."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in LIBRARIES:
                    names.add(alias.asname or alias.name.split(".")[0])
        elif isinstance(node, ast.ImportFrom) and not node.level and (node.module or "").split(".")[0] in LIBRARIES:
            names |= {alias.asname or alias.name for alias in node.names}
    return names


def _root(node: ast.AST) -> str | None:
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


def patches(source: str) -> list[str]:
    """Each place in `source` that changes one of the libraries or the import system."""
    tree = ast.parse(source)
    theirs = _library_names(tree)
    found = []
    for node in ast.walk(tree):
        targets: list[ast.AST] = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        elif isinstance(node, ast.Delete):
            targets = node.targets
        for target in targets:
            if isinstance(target, (ast.Attribute, ast.Subscript)) and _root(target) in theirs:
                found.append(f"line {node.lineno}: assigns to {ast.unparse(target)}")
            if isinstance(target, ast.Subscript) and ast.unparse(target.value) == "sys.modules":
                found.append(f"line {node.lineno}: puts a module into sys.modules")
        if isinstance(node, ast.Call):
            called = ast.unparse(node.func)
            if called in ("setattr", "delattr") and node.args and _root(node.args[0]) in theirs:
                found.append(f"line {node.lineno}: {called} on {ast.unparse(node.args[0])}")
            if called.startswith(("sys.meta_path.", "sys.path_hooks.")) or called in (
                "sys.modules.__setitem__",
                "sys.modules.update",
                "sys.modules.setdefault",
            ):
                found.append(f"line {node.lineno}: {called}")
        if isinstance(node, ast.ClassDef):
            for base in node.bases:
                if _root(base) in theirs and "Reader" in ast.unparse(base):
                    found.append(f"line {node.lineno}: class {node.name} subclasses {ast.unparse(base)}")
    return sorted(found, key=lambda place: int(place.split()[1].rstrip(":")))


def test_no_module_patches_a_library_or_the_import_system():
    found = {str(p.relative_to(ROOT)): places for p in sorted(PACKAGE.rglob("*.py")) if (places := patches(p.read_text()))}
    assert found == {}


def test_the_check_finds_each_way_of_patching():
    """The forms sdeval once used (issue 39), each found."""
    source = """
import sys
from pyhanko.pdf_utils.reader import PdfFileReader
from pypdf import PdfReader
import pyhanko.sign
PdfFileReader._get_object_from_stream = lambda self: None
setattr(pyhanko.sign, "timestamps", None)
sys.modules["aiohttp"] = object()
sys.meta_path.insert(0, object())
class Reader(PdfReader):
    pass
"""
    assert [line.split(":")[0] for line in patches(source)] == ["line 6", "line 7", "line 8", "line 9", "line 10"]
    assert patches("from pyhanko.sign.signers import SimpleSigner\nclass Signer(SimpleSigner):\n    x = 1\nself_thing = 1\n") == []
