"""What the index keeps of a verified report (admission and rebuild fill it from here), and every
way the index differs from the report (verify checks it here)."""

from __future__ import annotations

import json
from typing import Any

from .common import utc_text
from .index import codes_of


def indexed_facts(verified) -> dict[str, Any]:
    """What the index keeps of a verified report, from its embedded assessment and manifest."""
    from .reassess import requirements_outcome

    doc, manifest = verified.assessment, verified.manifest
    tool = doc.get("tool") or {}
    signer, stamp = verified.signer, verified.timestamp
    report = {
        "assessed_at": utc_text(manifest["assessed_at"]) if manifest.get("assessed_at") else None,
        "outcome": doc.get("outcome"),
        "requirements_outcome": requirements_outcome(doc),
        "catalog": tool.get("rule_catalog_version"),
        "sdeval_version": tool.get("version"),
        "signer": signer.name if signer else None,
        "signer_subject": signer.subject if signer else None,
        "fingerprint_sha256": signer.fingerprint_sha256 if signer else None,
        "timestamp_time": stamp.time if stamp else None,
        "timestamp_authority": stamp.authority if stamp else None,
        "timestamp_authority_fingerprint": stamp.authority_fingerprint_sha256 if stamp else None,
        "checks": json.dumps(verified.checks, ensure_ascii=False),
    }
    offers, claims = [], []
    for position, f in enumerate(doc.get("files") or []):
        offer = f.get("offer") or {}
        offers.append(
            {
                "position": position,
                "file": str(f.get("file")),
                "vendor": offer.get("vendor"),
                "offer_id": offer.get("offer_id"),
                "offer_date": _text(offer.get("date")),
                "outcome": f.get("outcome"),
            }
        )
        for seq, c in enumerate(f.get("claims") or []):
            codes = sorted({str(x["code"]) for x in c.get("findings") or []})
            claims.append(
                {
                    "position": position,
                    "seq": seq,
                    "claim_id": str(c.get("id")),
                    "kind": c.get("kind"),
                    "verdict": c.get("verdict"),
                    "codes": json.dumps(codes),
                }
            )
    inputs = [
        {"attachment": i["attachment"], "file": i["file"], "role": i.get("role", "evidence record"), "sha256": i["sha256"]}
        for i in manifest["inputs"]
    ]
    inputs.append(
        {
            "attachment": manifest["assessment"]["attachment"],
            "file": manifest["assessment"]["attachment"],
            "role": "assessment",
            "sha256": manifest["assessment"]["sha256"],
        }
    )
    return {"report": report, "offers": offers, "claims": claims, "inputs": inputs}


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


# The report-level columns the index fills from a verified report (indexed_facts above).
REPORT_FIELDS = (
    "assessed_at",
    "outcome",
    "requirements_outcome",
    "catalog",
    "sdeval_version",
    "signer",
    "signer_subject",
    "fingerprint_sha256",
    "timestamp_time",
    "timestamp_authority",
    "timestamp_authority_fingerprint",
)


def index_differences(row: Any, detail: dict[str, list[Any]], verified) -> list[str]:
    """Every indexed fact that is not what the verified report says, naming the field and both values."""
    try:
        facts = indexed_facts(verified)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        return [f"its assessment cannot be indexed ({type(exc).__name__}: {exc})"]
    out = []

    def differ(name: str, indexed: Any, reported: Any) -> None:
        if indexed != reported:
            out.append(f"{name}: the index says {json.dumps(indexed, ensure_ascii=False)}, the report {json.dumps(reported, ensure_ascii=False)}")

    for key in REPORT_FIELDS:
        differ(key, getattr(row, key), facts["report"][key])
    differ("number of offers", len(detail["offers"]), len(facts["offers"]))
    for o_row, o in zip(detail["offers"], facts["offers"]):
        for key in ("file", "vendor", "offer_id", "offer_date", "outcome"):
            differ(f"offer {o['position'] + 1} {key}", getattr(o_row, key), o[key])
    differ("number of claims", len(detail["claims"]), len(facts["claims"]))
    for c_row, c in zip(detail["claims"], facts["claims"]):
        name = f"offer {c['position'] + 1} claim {c['claim_id']}"
        differ(f"{name} position", [c_row.position, c_row.seq], [c["position"], c["seq"]])
        for key in ("claim_id", "kind", "verdict"):
            differ(f"{name} {key}", getattr(c_row, key), c[key])
        differ(f"{name} codes", codes_of(c_row), json.loads(c["codes"]))
    indexed_inputs = {i.attachment: i for i in detail["inputs"]}
    reported_inputs = {i["attachment"]: i for i in facts["inputs"]}
    differ("attachments", sorted(indexed_inputs), sorted(reported_inputs))
    for name in sorted(set(indexed_inputs) & set(reported_inputs)):
        for key in ("file", "role", "sha256"):
            differ(f"attachment {name} {key}", getattr(indexed_inputs[name], key), reported_inputs[name][key])
    return out
