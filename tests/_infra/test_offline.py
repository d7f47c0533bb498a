"""Signing without a timestamp and verifying send no request, so they import no aiohttp
(evaluator/_infra/offline.py): pyHanko's modules are imported with a stand-in in its place, and
a request made later (`render --tsa`, tests/report/test_pdf_timestamps.py) still reaches the real one."""

from __future__ import annotations

import subprocess
import sys

import pytest
from conftest import ROOT, example

pytestmark = pytest.mark.pdf

OFFER = example("sd201-offer-b.json")


def _python(code: str, *args) -> str:
    done = subprocess.run([sys.executable, "-c", code, *map(str, args)], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout


SIGN_AND_VERIFY = """
import sys
from pathlib import Path
from evaluator.pipeline import assess_paths
from evaluator.report.render import assessed_at, render_pdf
from evaluator.report.signing import load_identity, sign
from evaluator.report.trust import TrustAnchors
from evaluator.verify.many import verify_many

offer, key, cert, out = sys.argv[1:5]
pdf = render_pdf(assess_paths([offer]), signer="x", when=assessed_at())
identity = load_identity(key=Path(key), cert=Path(cert), pkcs12=None, password_file=None)
Path(out).write_bytes(sign(pdf, identity))
print("aiohttp" in sys.modules)
outcomes = verify_many([out, out], trust=TrustAnchors.from_paths([cert]), strict=False, workers=1)
print([o.passed for o in outcomes], "aiohttp" in sys.modules)
"""


def test_signing_and_verifying_import_no_aiohttp(work, identity):
    key, cert = identity
    out = _python(SIGN_AND_VERIFY, OFFER, key, cert, work / "offline.pdf")
    assert out.splitlines() == ["False", "[True, True] False"]


PYHANKO_HOLDS_NO_PLACEHOLDER = """
import sys
from evaluator._infra.offline import Placeholder, import_pyhanko

import_pyhanko()
assert "aiohttp" not in sys.modules
bound, based = [], []
for name, module in list(sys.modules.items()):
    if not name.startswith(("pyhanko", "pyhanko_certvalidator")):
        continue
    for key, value in vars(module).items():
        if isinstance(value, type) and issubclass(value, Placeholder):
            bound.append(f"{name}.{key}")
        elif isinstance(value, type) and any(issubclass(base, Placeholder) for base in value.__mro__[1:]):
            based.append(f"{name}.{key}")
print(bound, based)
from pyhanko.sign.timestamps import aiohttp_client
print(aiohttp_client.aiohttp.ClientTimeout.__module__, "aiohttp" in sys.modules)
"""


def test_pyhanko_uses_aiohttps_names_only_in_annotations_and_gets_the_real_ones_when_it_asks():
    """A pyHanko upgrade that binds one of aiohttp's names, or builds a class on one, while its
    modules are imported would fail here (the stand-in serves annotations only)."""
    out = _python(PYHANKO_HOLDS_NO_PLACEHOLDER).splitlines()
    assert out == ["[] []", "aiohttp.client True"]
