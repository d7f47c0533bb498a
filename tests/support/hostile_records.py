"""Evidence records built to stress the PDF renderer: markup and CSS in vendor strings, unbroken
words as long as each field allows, right-to-left and combining text, and thousands of runs.

Shared by tests/report/test_render_hostility.py and bench/render_hostile.py, so the benchmark measures
exactly the records the tests prove safe.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BASE = json.loads((ROOT / "examples" / "sd201-offer-b.json").read_text())

# Right-to-left (Hebrew, Arabic), a bidi override, combining marks stacked on Latin letters, zero-width joiners.
RTL = "\u05d4\u05e6\u05e2\u05ea \u05de\u05d7\u05d9\u05e8 \u0639\u0631\u0636 \u0627\u0644\u0633\u0639\u0631 \u202eevil\u202c"
COMBINING = "Z\u0351\u036b\u0343\u036a\u0302\u036b\u033d\u034f\u0334\u0319\u0324\u031e\u0349\u035a\u032f\u031e\u0320\u034da\u0300\u0301\u0302\u0303\u0304\u0305\u0306\u0307lgo\u200d\u200b"

RTL_LETTERS = RTL.replace("\u202eevil\u202c", "evil")
# The same stacks without the combining grapheme joiner and zero-width joiners identity fields refuse
# (and without the marks the joiner kept apart, which would otherwise be reordered canonically).
VISIBLE_COMBINING = "Z\u0351\u036b\u0343\u036a\u0302\u036b\u033da\u0300\u0301\u0302\u0303\u0304\u0305\u0306\u0307lgo"


def word(length: int, seed: str = "W") -> str:
    """One unbroken word: no space, hyphen or other break opportunity."""
    return (seed + "abcdefghijklmnopqrstuvwxyz0123456789" * (length // 36 + 1))[:length]


def markup(base: str) -> dict[str, str]:
    """Strings that would fetch, embed or restyle something if they reached the page as markup."""
    return {
        # Identity fields take right-to-left letters, not the bidi controls free text may hold.
        "vendor": f'<img src="file:///etc/passwd"><b>{RTL_LETTERS}</b>',
        "claim_text": (
            f"</style><style>@import url({base}/import.css); body {{ background: url({base}/bg.png) }}</style>"
            f'<link rel="stylesheet" href="{base}/link.css"><object data="file:///etc/hostname"></object>'
            f'<iframe src="{base}/frame.html"></iframe><script src="{base}/x.js"></script>'
        ),
        # An identity field: combining marks yes, invisible characters no (they are refused there).
        "offer_id": f'"; }} @font-face {{ src: url({base}/font.woff) }} {VISIBLE_COMBINING}',
        "contact": f'<a href="file:///root/.ssh/id_rsa">mail</a> <video poster="{base}/poster.png"></video>',
    }


def hostile_record(base: str, *, runs: int = 2, long_words: bool = True) -> dict:
    """A schema-valid record: SD-201 offer B with hostile strings everywhere a vendor writes text,
    text fields unbroken words of their maximum length (2,000; 20,000 for long text), and
    `runs` runs (alternating speculative and baseline, at rising concurrency)."""
    rec = copy.deepcopy(BASE)
    offer = rec["offer"]
    offer.update(markup(base))
    cfg = rec["configurations"][0]
    cfg["runtime"]["flags"] = f"--css='url({base}/flags.png)' " + word(1900, "F")
    cfg["target"]["model"] = word(2000, "M")
    cfg["hardware"]["accelerator"] = COMBINING * 10
    baseline = copy.deepcopy(cfg)
    baseline["id"] = "target-only"
    baseline["proposer"] = {"method": "none"}
    rec["configurations"].append(baseline)
    template = rec["runs"][0]
    out = []
    for i in range(runs):
        run = copy.deepcopy(template)
        speculative = i % 2 == 0
        run["id"] = f"run-{i:05d}"
        run["load"]["concurrency"] = 1 + i // 2
        if not speculative:
            run["arrangement"] = "target-only"
            run["configuration"] = "target-only"
            run["counts"] = {"emitted_tokens": 15}
            run["interval"]["duration_s"] = 0.150
            run["quality"][0]["baseline_score"] = None
            run["quality"][0].pop("baseline_score")
        out.append(run)
    if long_words:  # in the offer and the first run only: a 20 MB record is the loader's cap
        offer["vendor"] = offer["vendor"] + word(2000 - len(offer["vendor"]), "V")
        offer["claim_text"] = offer["claim_text"] + word(20000 - len(offer["claim_text"]), "C")
        out[0]["notes"] = word(20000, "N")
        out[0]["quality"][0]["method"] = RTL + word(1900, "Q")
    rec["runs"] = out
    claim = rec["claims"][0]
    claim["run"] = "run-00000"
    claim["text"] = word(20000 - 40, "K") + " " + RTL
    return rec


def invalid_record_with_long_key(length: int = 100_000) -> dict:
    """Not schema-valid: an unknown key that is one 100,000-character word. The report still
    renders (it shows the findings), and the finding's path carries the whole key."""
    rec = copy.deepcopy(BASE)
    rec["offer"][word(length, "X")] = word(length, "Y")
    return rec
