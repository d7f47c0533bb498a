"""`sdeval reference import` and `fetch`: bytes read once -> rows -> a references document with the
provenance of those bytes. Nothing here runs during `assess`: assess only reads a references file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .document import build, now, provenance
from .formats import FORMATS, PointSettings, ReferenceProblem, inferencex_rows, mlperf_endpoints_rows, mlperf_summary_rows

INFERENCEX_API = "https://inferencex.semianalysis.com/api/v1"
MAX_BYTES = 256 * 1024 * 1024


def _read(path: Path) -> bytes:
    from ..engine.loader import UnreadableFile, read_bytes

    try:
        return read_bytes(str(path), MAX_BYTES)
    except UnreadableFile as exc:
        raise ReferenceProblem(str(exc)) from None


def rows_of(fmt: str, raw: bytes, name: str, path: Path | None = None, settings: PointSettings | None = None) -> list[dict[str, Any]]:
    if fmt == "inferencex":
        try:
            data = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as exc:
            raise ReferenceProblem(f"{name}: not JSON ({exc})") from None
        return inferencex_rows(data, name)
    if fmt == "mlperf-summary":
        try:
            return mlperf_summary_rows(raw, name)
        except UnicodeDecodeError as exc:
            raise ReferenceProblem(f"{name}: byte {exc.start}: not UTF-8") from None
        except ValueError as exc:
            raise ReferenceProblem(f"{name}: not CSV or JSON ({exc})") from None
    if fmt == "mlperf-endpoints":
        assert path is not None
        return mlperf_endpoints_rows(path, settings or PointSettings())
    raise ReferenceProblem(f"{fmt}: not a references format (one of: {', '.join(FORMATS)})")


def import_files(fmt: str, paths: list[Path], settings: PointSettings | None = None) -> dict[str, Any]:
    """A references document from local files, each named by its file name (the folders of the
    importing machine stay out of a file that is shared and embedded in reports)."""
    sources = []
    for path in paths:
        raw = _read(path)
        found = rows_of(fmt, raw, str(path), path, settings)
        sources.append((provenance(fmt, path.name, raw, now()), found))
    return build(sources)


def fetch_inferencex(model: str, *, base: str = INFERENCEX_API, timeout: float = 30.0) -> dict[str, Any]:
    """The published InferenceX rows for one model (its display name, as the API takes it)."""
    import httpx

    url = str(httpx.URL(f"{base.rstrip('/')}/benchmarks", params={"model": model}))
    try:
        response = httpx.get(url, timeout=timeout, headers={"Accept": "application/json"}, follow_redirects=True)
        response.raise_for_status()
    except httpx.HTTPStatusError as exc:
        raise ReferenceProblem(f"{url}: HTTP {exc.response.status_code}") from None
    except httpx.HTTPError as exc:
        raise ReferenceProblem(f"{url}: cannot fetch ({type(exc).__name__}: {exc})") from None
    raw = response.content
    if len(raw) > MAX_BYTES:
        raise ReferenceProblem(f"{url}: larger than {MAX_BYTES} bytes")
    return build([(provenance("inferencex", url, raw, now()), rows_of("inferencex", raw, url))])


def merge(docs: list[dict[str, Any]]) -> dict[str, Any]:
    """Several references documents as one (sources renumbered, row ids kept unique by source)."""
    sources: list[tuple[dict[str, Any], list[dict[str, Any]]]] = []
    for doc in docs:
        for index, source in enumerate(doc["sources"]):
            sources.append((source, [{k: v for k, v in row.items() if k != "source"} for row in doc["rows"] if row["source"] == index]))
    return build(sources)
