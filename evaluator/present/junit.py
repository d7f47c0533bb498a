"""--format junit: JUnit XML, which CI systems (GitLab, Jenkins, Azure, GitHub test-report actions)
show as a test report. One test suite per file; one test case per claim (failing unless
established) and per finding (failing for an error; warnings and notes pass with their text in
system-out); a file with neither has one passing case for its outcome."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING
from xml.etree import ElementTree as ET

from .._infra.safe_text import shown
from ..engine.wording import VERDICT_TEXT
from .ci_common import message

if TYPE_CHECKING:
    from ..buyer.results import Comparison
    from ..rules.results import FileAssessment

# XML 1.0 has no way to write these characters at all, escaped or not.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _xml(text: str) -> str:
    # also what a report viewer could be steered by (C1, bidi and invisible characters): shown escaped
    return shown(_NOT_XML.sub(lambda m: f"\\x{ord(m.group(0)):02x}", text), lines=True)


def _case(suite: ET.Element, classname: str, name: str) -> ET.Element:
    return ET.SubElement(suite, "testcase", classname=_xml(classname), name=_xml(name), time="0")


def render(results: list[FileAssessment], full: bool, comparison: Comparison | None = None) -> str:
    root = ET.Element("testsuites", name="sdeval")
    total = failed = 0
    for r in results:
        suite = ET.SubElement(root, "testsuite", name=_xml(r.file))
        cases = fails = 0
        for c in r.claims:
            case = _case(suite, r.file, f"claim {c.id}: {VERDICT_TEXT[c.verdict]}")
            cases += 1
            if c.verdict != "established":
                fails += 1
                codes = ", ".join(dict.fromkeys(f.code for f in c.findings)) or "not established"
                failure = ET.SubElement(case, "failure", type="claim", message=_xml(f"claim {c.id} is {VERDICT_TEXT[c.verdict]}: {codes}"))
                failure.text = _xml("\n".join(f"{f.severity} {f.code} at {f.pointer}: {f.message}" for f in c.findings))
        for f in r.findings:
            where = f"{f.pointer or '/'}" + (f" (line {f.line}, column {f.column})" if f.line is not None else "")
            case = _case(suite, r.file, f"{f.code} at {where}")
            cases += 1
            if f.severity == "error":
                fails += 1
                ET.SubElement(case, "failure", type=_xml(f.code), message=_xml(message(f))).text = _xml(f.ask or message(f))
            else:
                ET.SubElement(case, "system-out").text = _xml(f"{f.severity}: {message(f)}")
        if cases == 0:
            _case(suite, r.file, f"outcome: {VERDICT_TEXT[r.outcome]}")
            cases = 1
        suite.set("tests", str(cases))
        suite.set("failures", str(fails))
        suite.set("errors", "0")
        suite.set("skipped", "0")
        total, failed = total + cases, failed + fails
    root.set("tests", str(total))
    root.set("failures", str(failed))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
