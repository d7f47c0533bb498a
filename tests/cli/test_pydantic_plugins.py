"""The command line runs without pydantic plugins, through a stand-in for pydantic's plugin loader
that spares importing importlib.metadata (issue 29.6: 18 ms, 8 % of `sdeval validate`'s CPU here).
The output is the same as with pydantic's own loader; PYDANTIC_DISABLE_PLUGINS set to anything but
pydantic's "off" values brings the real loader back; and the real loader still has the shape the
stand-in copies, so a pydantic release that changes it fails here rather than in use."""

from __future__ import annotations

import os
import subprocess
import sys

from conftest import ROOT

VALIDATE = (
    "import sys; from evaluator.cli import main; sys.argv=['sdeval','validate','examples/complete-offer.yaml'];\n"
    "try:\n    main()\nexcept SystemExit as exc:\n    print('EXIT', exc.code)\n"
    "print('METADATA', 'importlib.metadata' in sys.modules, file=sys.stderr)"
)


def run(code: str, **env: str) -> subprocess.CompletedProcess:
    environment = {k: v for k, v in os.environ.items() if k != "PYDANTIC_DISABLE_PLUGINS"} | env
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=environment)


def test_validate_runs_without_the_plugin_loader_and_says_the_same():
    stand_in = run(VALIDATE)
    real = run(VALIDATE, PYDANTIC_DISABLE_PLUGINS="")
    assert stand_in.stderr.endswith("METADATA False\n"), stand_in.stderr
    assert real.stderr.endswith("METADATA True\n"), real.stderr
    assert (stand_in.stdout, stand_in.stderr.replace("False", "")) == (real.stdout, real.stderr.replace("True", ""))
    assert "established" in stand_in.stdout + stand_in.stderr


def test_pydantics_own_loader_answers_as_the_stand_in_when_plugins_are_off():
    code = (
        "import inspect; from pydantic.plugin import _loader; from pydantic.plugin import _schema_validator\n"
        "required = [p for p in inspect.signature(_loader.get_plugins).parameters.values() if p.default is p.empty]\n"
        "print(required, tuple(_loader.get_plugins()), 'from ._loader import get_plugins' in inspect.getsource(_schema_validator))"
    )
    done = run(code, PYDANTIC_DISABLE_PLUGINS="__all__")
    assert done.stdout == "[] () True\n", done.stderr
