"""DuckDB as the engine for the sums of a large vllm-responses file (`pip install 'sdeval[duckdb]'`).

The default reader (responses_reader.read) stays the reference: this engine gives its Totals only
for a file where it can be sure that both read every line alike, and otherwise returns None, so
that the default reader reads the file and reports any bad line exactly as it always does.

What DuckDB reads differently from msgspec, and how each difference sends the file back:
- DuckDB's JSON parser (yyjson) accepts NaN, Infinity and trailing commas, anywhere in a line, which
  msgspec refuses; and msgspec refuses a line nested past Python's recursion limit, which DuckDB
  reads. A thread beside the query hashes the file and decodes every line with msgspec into an
  empty struct (its JSON checked, nothing built), STACK_PADDING frames deep so that it refuses
  such a line before the default reader would; a line it refuses that is not blank sends the file
  back. (Looking for the lenient forms in the bytes instead cost more: bytes.find or a DuckDB
  regular expression over 766 MB took longer than msgspec's check.)
- DuckDB casts "5" or 5.0 to an integer where msgspec wants a non-negative integer: the fields
  summed are read as raw JSON and checked in the query (digits only, within 64 bits).
- A duplicate key takes the last value in msgspec and fails DuckDB's reading of an object into
  its fields: the query fails, and so does `"usage": 5`. Any DuckDB error sends the file back.
- A line with OpenAI prediction-token counts (usage.completion_tokens_details) or a request accepting
  more than it was proposed goes back too (the default reader adjusts E or names the line). Each
  covered request's (P, A, S) is tallied by a histogram aggregate, for request_acceptance.
- DuckDB reads a `null` line as a row: msgspec's check refuses it. DuckDB and the thread must count
  as many lines (blank ones passed over by both).
- A path DuckDB would read as a pattern of files (* ? [ {) or anything but a regular file.
- What only the default reader handles (llama.cpp timings, `stop`, dict histograms, the
  `detailed` arrays, histograms wider than HIST_WIDTH, a run of one request, whose own figures
  are kept) sends it back too.
Line 1 is decoded here by msgspec, as the default reader does, for the model that served the file
and to tell another tool's file; anything unusual there sends the file back.

Measured (bench/import_vllm_responses.py, docs/speed.md): slower than the default reader, so `auto`
does not pick it (DUCKDB_MIN_BYTES); `--engine duckdb` does.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec

from .common import ImportProblem

ENGINE_ENV = "SDEVAL_IMPORT_ENGINE"
ENGINES = ("auto", "python", "duckdb")
# `auto` picks DuckDB from this size on, when it is installed; None: never. Measured (docs/speed.md,
# bench/import_vllm_responses.py, 1M lines, 766 MB, 2 cores): this engine took 1.8x to 2.5x the default reader's
# time, because being exact costs it msgspec's check of every line beside DuckDB's own parse, while the
# default reader is already within 2x of a bare (and not exact) DuckDB query. Set a size here once a
# machine is measured where it wins.
DUCKDB_MIN_BYTES: int | None = None
HIST_WIDTH = 32  # histogram columns summed by the query (K up to 31); a wider one goes back
BLOCK = 1 << 20

_SD_FIELDS = (
    "num_spec_steps",
    "num_draft_tokens",
    "num_accepted_draft_tokens",
    "num_spec_tokens",
    "acceptance_histogram",
    "draft_acceptance_rate",
    "mean_acceptance_length",
    "per_step_accepted",
    "per_step_drafted",
    "acceptance_histogram_by_draft_length",
)
_COLUMNS = (
    "{'object': 'JSON', 'usage': 'STRUCT(completion_tokens JSON, completion_tokens_details JSON)', "
    f"'metrics': 'STRUCT(speculative_decoding STRUCT({', '.join(f'{f} JSON' for f in _SD_FIELDS)}))', "
    "'timings': 'JSON', 'stop': 'JSON'}"
)


def _int(x: str) -> str:
    """A raw JSON value (as DuckDB writes it back) that msgspec reads as a non-negative integer, or null/missing.
    DuckDB writes floats with a point or an exponent and keeps integers past 64 bits as digits, which
    the cast then refuses (msgspec takes them: the file goes back)."""
    return f"({x} IS NULL OR (regexp_full_match({x}, '[0-9]+') AND TRY_CAST({x} AS UBIGINT) IS NOT NULL))"


def _float(x: str) -> str:
    """A JSON number msgspec reads as a finite float (1e400 it refuses), or null/missing."""
    return f"({x} IS NULL OR (regexp_full_match({x}, '-?[0-9][0-9.eE+-]*') AND isfinite(TRY_CAST({x} AS DOUBLE))))"


_H = "sd.acceptance_histogram"
_QUERY = rf"""
WITH r AS (
  SELECT object AS o, usage IS NULL AS no_usage, usage.completion_tokens AS ct, timings, stop,
         usage.completion_tokens_details AS ctd,
         metrics.speculative_decoding AS sd
  FROM read_json(?, format = 'newline_delimited', records = true, compression = 'none', columns = {_COLUMNS})
), l AS (
  SELECT *,
    sd IS NOT NULL AS covered,
    coalesce(sd IS NULL AND no_usage AND starts_with(o, '"') AND ends_with(o ->> '$', '.chunk'), false) AS chunk,
    NOT (
      (o IS NULL OR starts_with(o, '"')) AND {_int("ct")} AND timings IS NULL AND stop IS NULL
      AND (ctd IS NULL OR NOT contains(ctd, '_prediction_tokens'))
      AND (sd IS NULL OR (
            sd.num_spec_steps IS NOT NULL AND sd.num_draft_tokens IS NOT NULL AND sd.num_accepted_draft_tokens IS NOT NULL
            AND {_int("sd.num_spec_steps")} AND {_int("sd.num_draft_tokens")} AND {_int("sd.num_accepted_draft_tokens")}
            AND {_int("sd.num_spec_tokens")}
            AND TRY_CAST(sd.num_accepted_draft_tokens AS UBIGINT) <= TRY_CAST(sd.num_draft_tokens AS UBIGINT)
            AND ({_H} IS NULL OR (regexp_full_match({_H}, '\[([0-9]+(,[0-9]+)*)?\]') AND TRY_CAST({_H} AS UBIGINT[]) IS NOT NULL))
            AND {_float("sd.draft_acceptance_rate")} AND {_float("sd.mean_acceptance_length")}
            AND sd.per_step_accepted IS NULL AND sd.per_step_drafted IS NULL AND sd.acceptance_histogram_by_draft_length IS NULL))
    ) AS doubt
  FROM r
), v AS (
  SELECT covered, chunk, doubt,
    CASE WHEN covered AND NOT doubt THEN sd.num_spec_steps::UBIGINT END AS s,
    CASE WHEN covered AND NOT doubt THEN sd.num_draft_tokens::UBIGINT END AS p,
    CASE WHEN covered AND NOT doubt THEN sd.num_accepted_draft_tokens::UBIGINT END AS a,
    CASE WHEN covered AND NOT doubt THEN sd.num_spec_tokens::UBIGINT END AS k,
    CASE WHEN NOT doubt THEN ct::UBIGINT END AS tokens,
    CASE WHEN covered AND NOT doubt THEN {_H}::UBIGINT[] END AS h,
    covered AND {_H} IS NULL AS no_h
  FROM l
)
SELECT count(*), count(*) FILTER (WHERE doubt),
  count(*) FILTER (WHERE covered), count(*) FILTER (WHERE NOT covered AND NOT chunk), count(*) FILTER (WHERE chunk),
  sum(s), sum(p), sum(a),
  sum(tokens) FILTER (WHERE covered), count(*) FILTER (WHERE covered AND tokens IS NULL),
  sum(tokens) FILTER (WHERE NOT covered AND NOT chunk), count(*) FILTER (WHERE NOT covered AND NOT chunk AND tokens IS NULL),
  list(DISTINCT k) FILTER (WHERE k IS NOT NULL),
  histogram(concat_ws(',', p, a, s)) FILTER (WHERE covered AND NOT doubt),
  count(*) FILTER (WHERE no_h), max(len(h)),
  {", ".join(f"sum(h[{i}])" for i in range(1, HIST_WIDTH + 1))}
FROM v
"""


def engine(size: int, fmt: str) -> str:
    """python or duckdb for this file: the environment's choice (SDEVAL_IMPORT_ENGINE, set by
    `sdeval import --engine`), or by size when it is `auto`. Only vllm-responses has the DuckDB engine."""
    chosen = os.environ.get(ENGINE_ENV, "auto").strip().lower() or "auto"
    if chosen not in ENGINES:
        raise ImportProblem(f"{ENGINE_ENV}={chosen!r} is not one of {', '.join(ENGINES)}")
    if fmt != "vllm-responses" or chosen == "python":
        return "python"
    if chosen == "duckdb":
        if not installed():
            raise ImportProblem("--engine duckdb needs DuckDB: pip install 'sdeval[duckdb]'")
        return "duckdb"
    return "duckdb" if DUCKDB_MIN_BYTES is not None and size >= DUCKDB_MIN_BYTES and installed() else "python"


def installed() -> bool:
    from importlib.util import find_spec

    return find_spec("duckdb") is not None


class _Object(msgspec.Struct, gc=False):
    """Any JSON object: decoding into it checks a line's JSON as msgspec reads it and builds nothing."""


_check = msgspec.json.Decoder(_Object).decode
# The scan calls msgspec this many frames deep, deeper than the default reader ever runs, so that
# a line nested near Python's recursion limit fails here first (and goes back) rather than there.
STACK_PADDING = 400


class _Scan:
    """The file's SHA-256 and msgspec's check of every line's JSON, on a thread beside the query
    (hashlib and DuckDB let go of the GIL while they work)."""

    def __init__(self, path: Path, advance: Callable[[int], None] | None = None) -> None:
        self.path, self.advance = path, advance  # advance(bytes): the progress bar (drawn from this thread)
        self.sha256 = ""
        self.lines = 0  # lines that are not blank
        self.doubt: str | None = None  # why the file goes back to the default reader
        self.thread = threading.Thread(target=self._run, name="sdeval-duckdb-scan", daemon=True)

    def _run(self, depth: int = STACK_PADDING) -> None:
        if depth:
            return self._run(depth - 1)
        try:
            self._scan()
        except Exception as exc:  # noqa: BLE001 (any failure here sends the file back)
            self.doubt = f"scan failed: {exc!r}"

    def _scan(self) -> None:
        hasher = hashlib.sha256()
        check, count = _check, 0
        with open(self.path, "rb", buffering=BLOCK) as fh:
            while lines := fh.readlines(BLOCK):
                block = b"".join(lines)
                hasher.update(block)
                if self.advance is not None:
                    self.advance(len(block))
                if self.doubt is not None:
                    continue
                for line in lines:
                    try:
                        check(line)
                    except (msgspec.DecodeError, RecursionError):
                        if line.strip():
                            self.doubt = "a line msgspec refuses"
                            break
                        count -= 1  # blank: passed over by both readers
                count += len(lines)
        self.lines = count
        self.sha256 = hasher.hexdigest()


def read(path: Path, first_line: Callable[[bytes], Any], advance: Callable[[int], None] | None = None) -> dict[str, Any] | None:
    """The fields of the file's Totals (responses_totals.Totals) summed by DuckDB, or None when the
    default reader must read it. `first_line` checks line 1 as the default reader does (giving its
    Totals, or raising ImportProblem or msgspec.DecodeError)."""
    try:
        import duckdb
    except ImportError:
        return None
    # DuckDB reads a path with * ? [ or { as a pattern of files: such a name stays with the default reader.
    where = str(path.resolve())
    if any(c in where for c in "*?[{") or not path.is_file():  # a pipe would be read twice
        return None
    with open(path, "rb") as fh:
        line1 = fh.readline()
    try:
        first = first_line(line1)
    except (ImportProblem, msgspec.DecodeError, RecursionError):
        return None  # the default reader reports it
    scan = _Scan(path, advance)
    scan.thread.start()
    try:
        with duckdb.connect() as con:
            row = con.execute(_QUERY, [where]).fetchone()
    except duckdb.Error:
        row = None
    finally:
        scan.thread.join()
    if row is None or scan.doubt is not None:
        return None
    lines, doubts, covered, without, chunks, s, p, a, e, e_missing, plain, plain_missing, ks, tally, no_h, width, *cols = row
    if doubts or lines != scan.lines or covered == 1 or (width or 0) > HIST_WIDTH:
        return None
    return {
        "requests_with": covered,
        "requests_without": without,
        "content_chunks": chunks,
        "steps": int(s or 0),
        "drafts": int(p or 0),
        "accepted": int(a or 0),
        "emitted": None if e_missing else int(e or 0),
        "plain_emitted": None if plain_missing else int(plain or 0),
        "k_values": {int(k) for k in ks or []},
        # "P,A,S" -> requests with those counts (record 1.3 request_acceptance)
        "per_request": Counter({tuple(int(x) for x in key.split(",")): int(n) for key, n in (tally or {}).items()}),
        "hist": None if no_h else [int(c or 0) for c in cols[: width or 0]],
        "lines": lines,
        "sha256": scan.sha256,
        "processes": 1,
        "engine": "duckdb",
        "first_model": first.first_model,
        "fingerprint": first.fingerprint,
    }
