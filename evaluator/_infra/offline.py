"""pyHanko's modules imported without aiohttp, which only a network request needs.

pyHanko 0.38 imports aiohttp (about 0.2 s, a fifth of a verifier's or signer's start) with
`pyhanko.sign` (its timestamp client, `pyhanko.sign.timestamps.aiohttp_client`) and with
`pyhanko.sign.validation` (the fetchers of revocation data, through `ades`), yet uses it only to
send a request: a timestamp (`render --tsa`) or fetching validation data (`--ltv`). Signing
without them and verifying (which never fetches) send none.

`import_pyhanko()` imports those modules while a stand-in holds aiohttp's place in sys.modules.
At that time the modules read aiohttp's names only in their functions' annotations (`session:
aiohttp.ClientSession | None`); the stand-in answers those with placeholder classes. Once the
modules are imported the stand-in leaves sys.modules and forwards every name read through it to
the real aiohttp, imported the first time: a timestamp request, an `except aiohttp.ClientError` or
a session made later works exactly as it would have. A module that took one of aiohttp's names
as its own (`from aiohttp import ClientTimeout`) gets the real one back, imported then; anything
else the stand-in cannot serve makes the import go the ordinary way. tests/_infra/test_offline.py checks
that verify and an untimestamped signature never import aiohttp, and that pyHanko holds no
placeholder outside annotations.
"""

from __future__ import annotations

import importlib
import sys
import threading
import types

_lock = threading.Lock()
_imported = False


class Placeholder:
    """Base of the classes that stood for aiohttp's names while pyHanko was imported."""


class _StandIn(types.ModuleType):
    def __init__(self) -> None:
        super().__init__("aiohttp", "Stands for aiohttp until a name is used (evaluator/_infra/offline.py).")
        self.importing = True
        self.placeholders: dict[str, type] = {}

    def __getattr__(self, name: str):
        if name.startswith("__"):  # the import system's own questions (__path__, __file__ ...)
            raise AttributeError(name)
        if self.importing:
            if name not in self.placeholders:
                self.placeholders[name] = type(name, (Placeholder,), {"__module__": "aiohttp", "__doc__": "aiohttp's name, not imported"})
            return self.placeholders[name]
        return getattr(importlib.import_module("aiohttp"), name)


def import_pyhanko() -> None:
    """Import pyHanko's signing and validation modules with aiohttp deferred (once per process;
    call it before any other pyHanko import)."""
    global _imported
    if _imported:
        return
    with _lock:
        if _imported:
            return
        _imported = True
        if "aiohttp" in sys.modules or "pyhanko.sign" in sys.modules:
            return  # already imported the ordinary way: nothing left to save
        stand_in = _StandIn()
        before = set(sys.modules)
        sys.modules["aiohttp"] = stand_in
        try:
            import pyhanko.sign  # noqa: F401
            import pyhanko.sign.validation  # noqa: F401
        except Exception:
            failed = True
        else:
            failed = False
        finally:
            stand_in.importing = False
            if sys.modules.get("aiohttp") is stand_in:
                del sys.modules["aiohttp"]
        _give_back_names(stand_in, [m for name, m in list(sys.modules.items()) if name not in before])
        if failed:  # something the stand-in could not serve (a submodule of aiohttp, say)
            import pyhanko.sign  # noqa: F401
            import pyhanko.sign.validation  # noqa: F401


def _give_back_names(stand_in: _StandIn, modules: list) -> None:
    """A module that bound one of aiohttp's names itself gets the real object."""
    if not stand_in.placeholders:
        return
    standing = {id(p): name for name, p in stand_in.placeholders.items()}
    for module in modules:
        for key, value in list(getattr(module, "__dict__", {}).items()):
            if id(value) in standing:
                setattr(module, key, getattr(importlib.import_module("aiohttp"), standing[id(value)]))
