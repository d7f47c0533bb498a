"""Text output fitted to a terminal's width; through a pipe or into a file every line stays whole.

Reporters write each line whole (a finding is one line: location, severity, code and message, as
every linter a CI reads prints it, so grep and problem matchers find it); on a terminal this folds
what is too wide, after the fact, so every text format fits the same way. A prose line wraps at spaces, its continuation indented two more
columns than the line. A table (consecutive lines at one indent whose columns are separated by
at least two spaces in every line) is split into column groups that fit, each repeating the first
column, so a row is never broken in the middle of a figure. A word wider than the width (an
address, a hash) is left whole rather than cut.
"""

from __future__ import annotations

import os
import re
import sys
import textwrap

NOT_A_TERMINAL = 0  # every line whole: folding belongs to a terminal
# SDEVAL_TEXT_WIDTH=N fits to N columns (also through a pipe); 0 leaves every line whole.
WIDTH_VARIABLE = "SDEVAL_TEXT_WIDTH"
_CELL_GAP = re.compile(r"\S {2,}\S")
_NUMBERED = re.compile(r"^\d+\. ")
# A certificate's name as RFC 4514 writes it (a signer's, an authority's, an anchor's): folded whole.
_ATTRIBUTE = r"(?<![\w.=-])(?:CN|O|OU|C|L|ST|STREET|DC|UID|SERIALNUMBER|serialNumber|emailAddress|E|[0-9.]+)="
_VALUE = r"[^,;()=\s]+(?: [^,;()=\s]+){0,5}"  # a value of a few words, ended by punctuation or the line's end
_NAME = re.compile(_ATTRIBUTE + _VALUE + r"(?:,\s*" + _ATTRIBUTE + _VALUE + r")*(?=\s*[(;),:]|\s*$)")
_KEPT = "\u00a0"  # stands for a space inside a name while folding; textwrap breaks only at ASCII whitespace


def output_width(stream=None) -> int:
    """A terminal's width (COLUMNS where the shell sets it, else the terminal's own), else 0:
    piped and redirected output keeps every line whole, the same on every machine."""
    stream = stream or sys.stdout
    if (given := os.environ.get(WIDTH_VARIABLE, "")).isdigit():
        return int(given) if int(given) == 0 else max(40, int(given))
    try:
        if not stream.isatty():
            return NOT_A_TERMINAL
        if (columns := os.environ.get("COLUMNS", "")).isdigit():
            return max(40, int(columns))
        return max(40, os.get_terminal_size(stream.fileno()).columns)
    except (AttributeError, OSError, ValueError):
        return NOT_A_TERMINAL


def fit(text: str, width: int) -> str:
    if width <= 0:
        return text
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        block = _table_at(lines, i)
        if len(block) >= 2:
            out.extend(_split_table(block, width))
            i += len(block)
            continue
        out.extend(_wrap(lines[i], width))
        i += 1
    return "\n".join(out)


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" "))]


def _table_at(lines: list[str], start: int) -> list[str]:
    """The table starting at `start`: lines of one indent, each with a column gap."""
    first = lines[start]
    if not _CELL_GAP.search(first.strip()):
        return []
    indent = _indent(first)
    block = []
    for line in lines[start:]:
        if not line.strip() or _indent(line) != indent or not _CELL_GAP.search(line.strip()):
            break
        block.append(line)
    return block


def _kept_whole(line: str) -> str:
    if _KEPT in line:  # the line has the character itself: fold it as it is
        return line
    return _NAME.sub(lambda m: m.group(0).replace(" ", _KEPT), line)


def _restored(lines: list[str], original: str) -> list[str]:
    if _KEPT in original:
        return lines
    return [line.replace(_KEPT, " ") for line in lines]


def _wrap(line: str, width: int) -> list[str]:
    if len(line) <= width:
        return [line]
    return _restored(_wrap_words(_kept_whole(line), width, line), line)


def _wrap_words(line: str, width: int, original: str) -> list[str]:
    indent = _indent(line)
    # A numbered item's continuation lines up with its text; any other line's is two columns in.
    item = _NUMBERED.match(line.strip())
    return textwrap.wrap(
        line.strip(),
        width=width,
        initial_indent=indent,
        subsequent_indent=indent + (" " * len(item.group(0)) if item else "  "),
        break_long_words=False,
        break_on_hyphens=False,
    ) or [original]


def _hang(line: str, column: int, width: int) -> list[str]:
    if len(line) <= width or width - column < 30:
        return _wrap(line, width)
    kept = _kept_whole(line[column:])
    parts = textwrap.wrap(kept, width=width - column, break_long_words=False, break_on_hyphens=False)
    return _restored([line[:column] + parts[0], *(" " * column + part for part in parts[1:])], line)


def _label_cells(rows: list[str], cells: list[tuple[int, int]], width: int) -> int:
    """How many leading cells name a row: the fewest that tell every row apart (a load repeated
    for the offer and its baseline needs the configuration beside it), so each column group says
    which row is which; one when that would take more than three quarters of the width."""
    for k in range(1, len(cells) - 1):
        names = [tuple(row[a:b].strip() for a, b in cells[:k]) for row in rows]
        if len(set(names)) == len(names):
            return k if cells[k - 1][1] <= 3 * width // 4 else 1
    return 1


def _split_table(block: list[str], width: int) -> list[str]:
    longest = max(len(line) for line in block)
    if longest <= width:
        return block
    padded = [line.ljust(longest) for line in block]
    blank = [all(row[c] == " " for row in padded) for c in range(longest)]
    # Cells: spans between runs of two or more columns blank in every row.
    cells, c, start = [], len(_indent(block[0])), None
    while c < longest:
        if not blank[c]:
            start = c if start is None else start
            c += 1
            continue
        run = c
        while run < longest and blank[run]:
            run += 1
        if start is not None and (run - c >= 2 or run == longest):
            cells.append((start, c))
            start = None
        c = run
    if start is not None:
        cells.append((start, longest))
    if len(cells) < 3 or cells[-2][1] <= width - 30:
        # All but the last column fit (a label and a sentence, a list of titles): the last wraps
        # in its own column rather than moving the table apart.
        return [piece for line in block for piece in _hang(line, cells[-1][0], width)]
    labels = _label_cells(padded, cells, width)
    label_end = cells[labels - 1][1]
    # Each further cell keeps the blank columns before it, so right-aligned figures stay aligned.
    segments = [(cells[k - 1][1], cells[k][0], cells[k][1]) for k in range(labels, len(cells))]
    groups: list[list[tuple[int, int, int]]] = [[]]
    used = label_end
    for segment in segments:
        wide = segment[2] - segment[0]
        if groups[-1] and used + wide > width:
            groups.append([])
            used = label_end
        groups[-1].append(segment)
        used += wide
    out: list[str] = []
    for n, group in enumerate(groups):
        if n:
            out.append("")
        # A last cell still too wide (a sentence) wraps in its own column.
        last = label_end + sum(end - start for start, _, end in group[:-1]) + group[-1][1] - group[-1][0]
        for row in padded:
            line = (row[:label_end] + "".join(row[start:end] for start, _, end in group)).rstrip()
            out.extend(_hang(line, last, width))
    return out
