"""--format github: workflow commands that GitHub Actions turns into annotations on the pull
request (`::error file=F,line=L,col=C,title=T::MESSAGE`), one per finding, then each file's
verdict as a plain log line. Values are escaped as GitHub's own toolkit escapes them (%, CR and
LF in the message; also ':' and ',' in properties), so no input string can end the command early
or start another one."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._infra.safe_text import shown
from .ci_common import findings, message
from .text import summary_line

if TYPE_CHECKING:
    from ..buyer.results import Comparison
    from ..rules.results import FileAssessment

COMMAND = {"error": "error", "warning": "warning", "info": "notice"}


def escape_data(text: str) -> str:
    # what a log viewer could be steered by (C1, bidi and invisible characters) shown escaped first
    return shown(text, lines=True).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render(results: list[FileAssessment], full: bool, comparison: Comparison | None = None) -> str:
    lines = []
    for r, f in findings(results):
        props = [f"file={escape_property(r.file)}"]
        if f.line is not None:
            props.append(f"line={f.line}")
            if f.column:
                props.append(f"col={f.column}")
        title = f"sdeval {f.code} at {f.pointer or '/'}"
        props.append(f"title={escape_property(title)}")
        lines.append(f"::{COMMAND[f.severity]} {','.join(props)}::{escape_data(message(f))}")
    # Each file's verdict as the text report words it, a plain log line; the prefix keeps a file
    # named '::error ...' from reading as a command.
    lines.extend("sdeval: " + escape_data(summary_line(r)) for r in results)
    return "\n".join(lines) + "\n"
