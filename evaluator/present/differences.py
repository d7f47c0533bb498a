"""What changed between two assessment documents (the JSON of `sdeval assess -f json`), as a
reader would list it: findings added or gone, verdicts flipped, requirement cells changed.
verify's reproduction check reports these when an archived assessment no longer reproduces."""

from __future__ import annotations

from typing import Any


def without_tool(doc: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in doc.items() if k != "tool"}


# Keys each assessment JSON version added (additions only), so that a report written in an older
# version is compared with a fresh document in its own shape, not failed for what it could not hold.
ADDED_RUN_KEYS = {"1.2": ("k", "baseline_run", "speedup")}
# Versions that changed the `requirements` section alone (1.3: measured brackets, estimates labelled):
# a document without that section has the older version's shape. One with it cannot be put back in
# the older shape (the older one decided on interpolated figures): its differences are reported.
REQUIREMENTS_ONLY = ("1.3",)


def as_of_schema(fresh: dict[str, Any], version: Any) -> dict[str, Any]:
    """The fresh document without the run keys added after `version` (the embedded document's)."""

    def newer(added: str) -> bool:
        return not isinstance(version, str) or _key(version) < _key(added)

    later = [keys for added, keys in ADDED_RUN_KEYS.items() if newer(added)]
    shaped = all(not newer(v) for v in REQUIREMENTS_ONLY) or fresh.get("requirements") is None
    if not later and not any(newer(v) for v in REQUIREMENTS_ONLY):
        return fresh
    dropped = {k for keys in later for k in keys}
    doc = {**fresh, "schema_version": version if shaped else fresh.get("schema_version")}
    doc["files"] = [
        {**f, "runs": [{k: v for k, v in run.items() if k not in dropped} for run in f["runs"]]} if isinstance(f.get("runs"), list) else f
        for f in fresh.get("files", [])
    ]
    return doc


def _key(version: str) -> tuple:
    try:
        return tuple(int(p) for p in version.split("."))
    except ValueError:
        return (0,)


def _finding_key(f: dict[str, Any]) -> str:
    return f"{f.get('file')}: {f.get('severity')} {f.get('code')} at {f.get('path') or '/'}: {f.get('message')}"


def describe_differences(embedded: dict[str, Any], fresh: dict[str, Any]) -> list[str]:
    """What changed, as a reader would list it: findings added or gone, verdicts flipped, anything else."""
    if embedded == fresh:
        return []
    out = []
    if embedded.get("outcome") != fresh.get("outcome"):
        out.append(f"overall outcome: {embedded.get('outcome')} -> {fresh.get('outcome')}")
    then = {_finding_key(f) for f in embedded.get("findings", []) if isinstance(f, dict)}
    now = {_finding_key(f) for f in fresh.get("findings", []) if isinstance(f, dict)}
    out += [f"finding gone: {k}" for k in sorted(then - now)]
    out += [f"finding new: {k}" for k in sorted(now - then)]
    old_claims = {(f.get("file"), c.get("id")): c for f in embedded.get("files", []) for c in f.get("claims") or []}
    for f in fresh.get("files", []):
        for c in f.get("claims") or []:
            old = old_claims.get((f.get("file"), c.get("id")))
            if old is not None and old.get("verdict") != c.get("verdict"):
                out.append(f"claim {c.get('id')}: {old.get('verdict')} -> {c.get('verdict')}")
    out += _run_differences(embedded, fresh)
    out += requirements_differences(embedded.get("requirements"), fresh.get("requirements"))
    if not out:
        keys = sorted(k for k in set(embedded) | set(fresh) if embedded.get(k) != fresh.get(k))
        out.append(f"the assessment differs in: {', '.join(keys)}")
    return out


def _run_differences(embedded: dict[str, Any], fresh: dict[str, Any]) -> list[str]:
    """Each run figure that changed (a figure the report prints, such as a speedup or K)."""

    def runs(doc: dict[str, Any]) -> dict[tuple[Any, Any], dict[str, Any]]:
        return {
            (f.get("file"), r.get("run")): r for f in doc.get("files", []) if isinstance(f, dict) for r in f.get("runs") or [] if isinstance(r, dict)
        }

    then, now = runs(embedded), runs(fresh)
    out = []
    for key, run in now.items():
        old = then.get(key)
        if old is None:
            continue
        for name in sorted(set(old) | set(run)):
            if old.get(name) != run.get(name):
                out.append(f"run {key[1]} ({key[0]}): {name} {old.get(name)} -> {run.get(name)}")
    return out


def requirements_differences(embedded: Any, fresh: Any) -> list[str]:
    """The requirements section, as a buyer would list the change: profile, cells, ranking."""
    if embedded == fresh:
        return []
    if not isinstance(embedded, dict) or not isinstance(fresh, dict):
        return [
            f"requirements section: {'absent' if not embedded else 'present'} in the report, {'absent' if not fresh else 'present'} when judged again"
        ]
    out = []
    then_profile, now_profile = embedded.get("profile") or {}, fresh.get("profile") or {}
    for key in ("file", "sha256", "buyer", "profile_id"):
        if then_profile.get(key) != now_profile.get(key):
            out.append(f"requirements profile {key}: {then_profile.get(key)} -> {now_profile.get(key)}")
    then_ids = [r.get("id") for r in embedded.get("requirements") or [] if isinstance(r, dict)]
    now_ids = [r.get("id") for r in fresh.get("requirements") or [] if isinstance(r, dict)]
    out += [f"requirement gone: {r}" for r in then_ids if r not in now_ids]
    out += [f"requirement new: {r}" for r in now_ids if r not in then_ids]
    then_m, now_m = embedded.get("matrix") or {}, fresh.get("matrix") or {}
    for req in now_ids:
        if req not in then_ids or not isinstance(then_m.get(req), dict) or not isinstance(now_m.get(req), dict):
            continue
        for offer, cell in now_m[req].items():
            old = then_m[req].get(offer)
            if old != cell:
                out.append(f"requirement {req}, offer {offer}: {_cell_text(old)} -> {_cell_text(cell)}")
    then_s = (embedded.get("ranking") or {}).get("statements")
    now_s = (fresh.get("ranking") or {}).get("statements")
    if then_s != now_s:
        out.append(f"ranking: {' '.join(then_s or [])!r} -> {' '.join(now_s or [])!r}")
    out += _cost_differences(embedded.get("economics"), fresh.get("economics"))
    if not out:
        keys = sorted(k for k in set(embedded) | set(fresh) if embedded.get(k) != fresh.get(k))
        out.append(f"the requirements section differs in: {', '.join(keys)}")
    return out


def _cost_differences(embedded: Any, fresh: Any) -> list[str]:
    """The price and each offer's cheapest cost within the buyer's limits, and its baseline's."""
    if not isinstance(embedded, dict) or not isinstance(fresh, dict) or embedded == fresh:
        return []
    out = []
    if embedded.get("price_text") != fresh.get("price_text"):
        out.append(f"price: {embedded.get('price_text')} -> {fresh.get('price_text')}")

    def cheapest(doc: dict[str, Any]) -> dict[tuple[Any, str], Any]:
        return {
            (o.get("offer"), key): (o.get(key) or {}).get("text")
            for o in doc.get("offers") or []
            if isinstance(o, dict)
            for key in ("cheapest", "baseline_cheapest")
        }

    then, now = cheapest(embedded), cheapest(fresh)
    for (offer, key), text in now.items():
        if (offer, key) in then and then[(offer, key)] != text:
            who = "cheapest" if key == "cheapest" else "baseline's cheapest"
            out.append(f"cost, offer {offer}, {who}: {then[(offer, key)]} -> {text}")
    return out


def _cell_text(cell: Any) -> str:
    if not isinstance(cell, dict):
        return "absent"
    codes = cell.get("codes") or []
    return f"{cell.get('status')}" + (f" [{', '.join(map(str, codes))}]" if codes else "")
