"""Several processes' captures of one measurement, merged into the one capture the record is built
from.

Each part is a capture directory like a one-process capture, with one line saying whose it is:
`{"kind": "part", "role": "worker", "index": k, "workers": N, "clock": ...}` for a worker, which
sends its share of each window's requests, or `"role": "driver"` for the process that scraped the
servers' counters around each window and sent nothing. The merged capture holds:
- the window as the union of the workers' windows (first send of any worker to last byte of any):
  the conservative, longer T;
- the counters scraped once around the whole window (by one part only; two parts scraping the same
  window would count its engine twice, so that is refused);
- every worker's requests, each with the worker that sent it (`worker`), their slots already
  global (a worker's slots are its share of the window's concurrency);
- per window, how the concurrency was split (`workers`: each worker's slots and requests).

A union of windows is only a duration where the parts share one clock: worker processes read the
machine's monotonic clock (CLOCK_MONOTONIC), so parts from different boots or machines are refused
unless they carry measured clock offsets (`clock` lines, written by --ray: ray_workers.py). Then
each window's times are moved onto the driver's clock by the offset read before it, and the window
says how uncertain its edges are (`clock_uncertainty_us`, both edges together): more than
CLOCK_SHARE of the window's length is a finding.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

from .capture import LOG, Capture, MeasureProblem

PART = "part"
CLOCK_SHARE = 0.01  # a window whose edges are less certain than this share of its length is a finding
TIMES = ("sent", "first_token", "finished", "last_byte")  # a request's readings of the monotonic clock


def clock() -> dict[str, str]:
    """The clock every time in a capture is read on: this machine's monotonic clock since its boot."""
    try:
        boot = Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        boot = "unknown"
    return {"source": "monotonic", "boot_id": boot, "host": os.uname().nodename}


def _part(directory: Path) -> tuple[dict, list[dict]]:
    capture = Capture(directory)
    if not capture.log.is_file():
        raise MeasureProblem(f"{directory}: no {LOG} there; give the directories of the workers' captures")
    entries = capture.entries()
    parts = [e for e in entries if e.get("kind") == PART]
    if len(parts) != 1:
        raise MeasureProblem(f"{capture.log}: is not one worker's or driver's capture (no 'part' line); a one-process capture needs no merge")
    if not any(e.get("kind") == "session" for e in entries):
        raise MeasureProblem(f"{capture.log}: has no session line")
    return parts[0], entries


def _same(directories: list[Path], loaded: list[tuple[dict, list[dict]]]) -> None:
    """The parts are of one measurement: the same session (settings, salt nonce), arms and clock."""
    first_dir, (first_part, first_entries) = directories[0], loaded[0]
    session = next(e for e in first_entries if e["kind"] == "session")
    arms = {e["name"]: e.get("arrangement") for e in first_entries if e["kind"] == "arm"}
    for directory, (part, entries) in zip(directories[1:], loaded[1:]):
        other = next(e for e in entries if e["kind"] == "session")
        for key in ("settings", "salt"):
            if other.get(key) != session.get(key):
                raise MeasureProblem(f"{directory / LOG}: session: its {key} differ from {first_dir / LOG}'s; these are not parts of one measurement")
        if {e["name"]: e.get("arrangement") for e in entries if e["kind"] == "arm"} != arms:
            raise MeasureProblem(f"{directory / LOG}: arms differ from {first_dir / LOG}'s")
        if not _measured(entries) and (
            part.get("clock", {}).get("boot_id") != first_part.get("clock", {}).get("boot_id")
            or part.get("clock", {}).get("boot_id") in (None, "unknown")
        ):
            raise MeasureProblem(
                f"{directory / LOG}: part: its clock is not {first_dir / LOG}'s (another machine or boot); "
                "their windows cannot be joined on one clock"
            )
    workers = sorted(p["index"] for p, _ in loaded if p.get("role") == "worker")
    counts = {p.get("workers") for p, _ in loaded}
    if len(counts) != 1 or workers != list(range(next(iter(counts)) or 0)):
        raise MeasureProblem(
            f"{', '.join(map(str, directories))}: need every worker's capture once (0 to N-1 of the same N); "
            f"got workers {workers} of {sorted(map(str, counts))}"
        )


def _measured(entries: list[dict]) -> bool:
    """The part's clock offsets to the driver were measured (a --ray worker's)."""
    return any(e["kind"] == "clock" for e in entries)


def _clock_bound(start: dict | None, end: dict | None) -> tuple[float, float]:
    """(offset, uncertainty) of a part's windows between two clock readings: the start's offset;
    uncertain by the worse reading plus how far the offset moved by the end (the drift), or by the
    start's alone where no end was read (the worker was lost)."""
    if start is None:
        return 0.0, 0.0
    uncertainty = start["uncertainty_s"]
    if end is not None:
        uncertainty = max(uncertainty, end["uncertainty_s"]) + abs(end["offset_s"] - start["offset_s"])
    return start["offset_s"], uncertainty


def _windows(entries: list[dict]) -> dict[tuple, dict[str, Any]]:
    """A part's finished windows: the window line, its scrapes and its requests (the last attempt),
    and the clock bound they were measured under."""
    out: dict[tuple, dict[str, Any]] = {}
    current: dict[tuple, dict[str, Any]] = {}
    reading: dict | None = None
    since: list[dict] = []  # the windows finished since the last start reading
    for e in entries:
        key = (e.get("arm"), e.get("concurrency"), e.get("repetition"))
        if e["kind"] == "clock":
            if e["when"] == "start":
                reading, since = e, []
            for w in since:
                w["clock"] = _clock_bound(reading, e)
            continue
        if e["kind"] == "window-start":
            current[key] = {"start": e, "scrapes": [], "requests": [], "clock": _clock_bound(reading, None)}
        elif e["kind"] in ("scrape", "request") and key in current:
            current[key]["scrapes" if e["kind"] == "scrape" else "requests"].append(e)
        elif e["kind"] == "window" and key in current:
            out[key] = {**current.pop(key), "window": e}
            since.append(out[key])
    return out


def merge(directories: list[Path], into: Path) -> tuple[Capture, list[str]]:
    """Writes the merged capture to `into` (a new directory; scrape files copied beside it) and
    returns it with its findings: what it left out, and windows whose edges are uncertain. Only
    windows every part finished are merged: a window one part did not finish was not measured whole."""
    if len(directories) < 2:
        raise MeasureProblem("give at least two captures to merge")
    loaded = [_part(d) for d in directories]
    _same(directories, loaded)
    per_part = [_windows(entries) for _, entries in loaded]
    lead = max(range(len(loaded)), key=lambda i: len(per_part[i]))
    order = list(per_part[lead])  # the order measured: every part measured the windows in the same order
    finished = [key for key in order if all(key in windows for windows in per_part)]
    left_out = [
        f"window {arm} c={c} repetition {rep + 1}: not finished in {', '.join(str(d) for d, w in zip(directories, per_part) if (arm, c, rep) not in w)}; left out"
        for arm, c, rep in order
        if (arm, c, rep) not in finished
    ]
    merged = Capture(into)
    merged.open(new=True)  # a new directory: refused where one is already there
    try:
        head = loaded[lead][1]
        session = next(e for e in head if e["kind"] == "session")
        merged.write({**session, "parts": [{k: v for k, v in p.items() if k != "kind"} for p, _ in loaded]})
        for e in head:
            if e["kind"] in ("arm", "configuration", "call"):
                merged.write(e)
        for key in finished:
            if (uncertain := _merge_window(key, [(loaded[i][0], per_part[i][key], directories[i]) for i in range(len(loaded))], merged)) is not None:
                left_out.append(uncertain)
    finally:
        merged.close()
    return merged, left_out


def _on_driver_clock(r: dict, offset_s: float) -> dict:
    if not offset_s:
        return r
    moved = {k: (v - offset_s if k in TIMES and v is not None else v) for k, v in r.items()}
    moved["earlier_attempts"] = [_on_driver_clock(a, offset_s) for a in r.get("earlier_attempts") or []]
    return moved


def _merge_window(key: tuple, parts: list[tuple[dict, dict, Path]], merged: Capture) -> str | None:
    arm, c, rep = key
    where = {"arm": arm, "concurrency": c, "repetition": rep}
    scraping = [(part, w, d) for part, w, d in parts if w["scrapes"]]
    if len(scraping) > 1:
        raise MeasureProblem(
            f"{', '.join(str(d) for _, _, d in scraping)}: window {arm} c={c} repetition {rep}: scraped by more than one part; "
            "its counters would be counted twice"
        )
    merged.write({"kind": "window-start", **where})
    window: dict[str, Any] = {"kind": "window", **where, "scrapes": {}, "metrics_format": None}
    if scraping:
        _, w, d = scraping[0]
        for s in w["scrapes"]:
            shutil.copyfile(d / s["file"], merged.dir / s["file"])
            merged.write(s)
        window["scrapes"], window["metrics_format"] = w["window"].get("scrapes", {}), w["window"].get("metrics_format")
    requests, split = [], []
    for part, w, _ in parts:
        if part.get("role") != "worker":
            continue
        offset_s = w["clock"][0]
        mine = [_on_driver_clock(r, offset_s) for r in w["requests"] if not r.get("warmup")]
        for r in w["requests"]:
            merged.write({**_on_driver_clock(r, offset_s), "worker": part["index"]})
        requests += mine
        split.append({"worker": part["index"], "slots": w["window"].get("slots", []), "requests": len(mine)})
    if not requests:
        raise MeasureProblem(f"window {arm} c={c} repetition {rep}: no worker sent a measured request")
    start = min(r["sent"] for r in requests)
    end = max(r["last_byte"] or r["sent"] for r in requests)
    window["duration_us"] = max(1, round((end - start) * 1e6))
    window["ended"] = max(w["window"].get("ended", 0) for _, w, _ in parts)
    window["workers"] = split
    if {w["window"].get("drain", True) for _, w, _ in parts} == {False}:  # the warm-ups went straight on: the scrapes span them
        window["drain"] = False
    finding = None
    if any(w["clock"] != (0.0, 0.0) or part.get("placement") == "ray" for part, w, _ in parts):
        # each edge as uncertain as the least certain worker's clock: either may have set it
        window["clock_uncertainty_us"] = round(2 * max(w["clock"][1] for _, w, _ in parts) * 1e6, 1)
        if window["clock_uncertainty_us"] > CLOCK_SHARE * window["duration_us"]:
            finding = (
                f"window {arm} c={c} repetition {rep + 1}: its edges are uncertain by {window['clock_uncertainty_us'] / 1000:.3f} ms "
                f"over the workers' clocks, more than {CLOCK_SHARE:.0%} of its {window['duration_us'] / 1000:.3f} ms"
            )
    # the client check of the worst worker: one saturated worker is a saturated client
    for figure in ("loop_lag_ms_max", "loop_lag_ms_p99", "client_cpu_fraction"):
        values = [w["window"][figure] for part, w, _ in parts if part.get("role") == "worker" and w["window"].get(figure) is not None]
        if values:
            window[figure] = max(values)
    merged.write(window)
    return finding


def split_note(windows: list[dict]) -> str | None:
    """How a run's windows were shared among worker processes, for the run's notes (None: one process)."""
    splits = [w["workers"] for w in windows if w.get("workers")]
    if not splits:
        return None
    slots = " + ".join(str(hi - lo) for lo, hi in (w["slots"] for w in splits[0]))
    sent = ", ".join(" + ".join(str(w["requests"]) for w in split) for split in splits)
    uncertain = [w["clock_uncertainty_us"] for w in windows if "clock_uncertainty_us" in w]
    started = (
        f"Sent by {len(splits[0])} Ray workers started on one instant of the driver's clock, their clocks joined to it by measured offsets "
        f"(window edges within {max(uncertain):g} us)"
        if uncertain
        else f"Sent by {len(splits[0])} worker processes started on one instant of this machine's monotonic clock"
    )
    return (
        f"{started}, the concurrency split {slots} slots; requests per worker in each repetition {sent}; "
        "each window the union of the workers' windows, the counters scraped once around it."
    )
