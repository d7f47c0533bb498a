"""The readers on the independent results others published, with the files' own figures.

The files are kept outside this repository, in ../shared/real-outputs/references/ (SOURCES.md there
names each file's repository, path and commit); every one of them is read here."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import EXAMPLES

REAL = Path(__file__).resolve().parents[3] / "shared" / "real-outputs" / "references"
INFERENCEX = REAL / "inferencex-app-cypress-benchmarks.json"
MLPERF = REAL / "mlperf-inference-v6.1-summary-subset.csv"

pytestmark = pytest.mark.skipif(not REAL.is_dir(), reason=f"{REAL} is absent (published results kept outside the repository)")


def test_every_file_is_read_here():
    present = {p.name for p in REAL.iterdir() if p.is_file()}
    assert present == {"SOURCES.md", "inferencex-results-and-ingestion.md", INFERENCEX.name, MLPERF.name}


@pytest.fixture(scope="module")
def inferencex(tmp_path_factory, cli):
    out = tmp_path_factory.mktemp("refs") / "inferencex.json"
    result = cli("reference", "import", "inferencex", INFERENCEX, "-o", out)
    assert result.exit_code == 0, result.stderr
    assert result.stderr == f"wrote {out} (435 rows from 1 source)\n"
    return out


def _row(doc, **key):
    (found,) = [r for r in doc["rows"] if all(r["key"].get(k) == v for k, v in key.items())]
    return found


def test_inferencex_rows_keep_their_figures_and_provenance(inferencex):
    doc = json.loads(inferencex.read_text())
    import hashlib

    (source,) = doc["sources"]
    assert source["sha256"] == hashlib.sha256(INFERENCEX.read_bytes()).hexdigest() and source["bytes"] == 775884
    assert (source["format"], source["source"]) == ("inferencex", INFERENCEX.name)
    assert {r["key"]["model"] for r in doc["rows"]} == {"deepseek-r1"}
    first = doc["rows"][0]
    assert first["key"] == {
        "model": "deepseek-r1",
        "accelerator": "mi355x",
        "accelerators": 4,
        "precision": "fp4",
        "framework": "sglang",
        "spec_method": "none",
        "isl": 1024,
        "osl": 1024,
        "concurrency": 4,
    }
    assert first["figures"]["output_tokens_per_s_per_accelerator"]["value"] == 98.9883650269406
    assert first["figures"]["tokens_per_s_per_user"]["value"] == 103.64816793368249
    assert (first["date"], first["url"]) == ("2026-06-11", "https://github.com/SemiAnalysisAI/InferenceX/actions/runs/27213443242/attempts/1")
    mtp = _row(doc, accelerator="b200", framework="trt", precision="fp4", spec_method="mtp", isl=1024, osl=1024, concurrency=256)
    assert mtp["figures"]["output_tokens_per_s_per_accelerator"]["value"] == 2642.9911895403675
    assert mtp["figures"]["tokens_per_s_per_user"]["value"] == 44.492697199642365
    # Disaggregated: output_tput_per_gpu is per decode accelerator (16 of the 22).
    disagg = _row(doc, accelerator="gb300", framework="dynamo-trt", spec_method="mtp", concurrency=2253, precision="fp4")
    assert disagg["key"]["accelerators"] == 22
    assert disagg["figures"]["output_tokens_per_s"]["value"] == 8251.31888969281 * 16
    assert disagg["figures"]["output_tokens_per_s_per_accelerator"]["value"] == 8251.31888969281 * 16 / 22


def test_mlperf_summary_rows_state_speculation_only_where_the_notes_do(tmp_path, sdeval):
    out = tmp_path / "mlperf.json"
    assert sdeval("reference", "import", "mlperf-summary", MLPERF, "-o", out).exit_code == 0
    doc = json.loads(out.read_text())
    assert len(doc["rows"]) == 88
    scitix = [r for r in doc["rows"] if r["published"]["Organization"] == "ScitiX"]
    assert [(r["key"]["scenario"], r["key"]["spec_method"], r["key"]["k"]) for r in scitix] == [("offline", "mtp", 1), ("server", "mtp", 1)]
    offline = scitix[0]
    assert offline["key"]["accelerators"] == 8 and offline["key"]["framework"] == "trt" and offline["key"]["accelerator"] == "b200"
    assert offline["figures"]["output_tokens_per_s"]["value"] == 60410.9
    assert offline["figures"]["output_tokens_per_s_per_accelerator"]["value"] == 60410.9 / 8
    coreweave = [r for r in doc["rows"] if r["published"]["Organization"] == "CoreWeave" and r["key"]["scenario"] == "server"]
    assert coreweave and all("spec_method" not in r["key"] for r in coreweave)  # silent notes: not disclosed, never "none"
    atlas = [r for r in doc["rows"] if r["published"]["Organization"] == "Atlas_Inference"]
    assert {(r["key"]["spec_method"], r["key"].get("k")) for r in atlas} == {("mtp", 4), ("mtp", 3)}
    latency = [r for r in doc["rows"] if r["key"]["scenario"] == "singlestream"]
    assert latency and all(r["figures"] == {} for r in latency)  # Latency (ms) is no throughput


def test_the_public_claim_beside_the_inferencex_rows(inferencex, sdeval, tmp_path):
    """Done when: a public claim whose model and hardware appear in the InferenceX rows is shown
    beside them with the ratio and the matched key; there is no row at its key (concurrency 1,
    1K/2K), so it says so and each row shown names what differs."""
    claim = EXAMPLES / "public-claims" / "trt-deepseek-r1-250-tps-per-user.yaml"
    text = sdeval("assess", claim, "--references", inferencex).stdout
    assert (
        "    info no-independent-result-at-key at /claims/0: no independent result at this claim's key in "
        f"{inferencex}; 3 partial matches shown, each differing field named\n"
    ) in text
    assert (
        "    independent results (tokens/s per user) at key: model deepseek-r1; accelerator b200; accelerators 8; precision fp4; "
        "framework trt; spec method mtp; k 3; acceptance real; workload dataset real dataset (not named); load concurrency 1\n"
    ) in text
    assert (
        f"      PARTIAL   {inferencex} row inferencex/79: 44.5 tokens/s per user (median_intvty (1 / median TPOT)); the claim is 5.62x of it; "
        "2026-05-19; https://github.com/SemiAnalysisAI/InferenceX/actions/runs/26016880548/attempts/2\n"
        "                differs: accelerator count: 8 in the record, 16 in the row; input/output lengths or dataset: dataset real dataset "
        "(not named) in the record, 1024/1024 tokens in the row; load: concurrency 1 in the record, concurrency 256 in the row\n"
        "                not published by the source: K, acceptance (pinned or real)\n"
    ) in text
    doc = sdeval("assess", claim, "--references", inferencex, "-f", "json").json()
    (compared,) = doc["references"]["claims"]
    assert compared["outcome"] == "no-row-at-key" and [r["match"] for r in compared["rows"]] == ["partial"] * 3
    assert compared["rows"][2]["ratio"] == 250 / 44.492697199642365
    assert doc["references"]["files"][0]["sources"][0]["source"] == INFERENCEX.name


def test_mlperf_summary_json_reads_as_its_csv(tmp_path, sdeval):
    """summary.json as the records of summary.csv (a JSON array of objects, pandas' orient="records")."""
    import csv

    records = list(csv.DictReader(MLPERF.open(encoding="utf-8")))
    (tmp_path / "summary.json").write_text(json.dumps(records))
    for source, name in ((tmp_path / "summary.json", "from-json.json"), (MLPERF, "from-csv.json")):
        assert sdeval("reference", "import", "mlperf-summary", source, "-o", tmp_path / name).exit_code == 0
    from_json, from_csv = (json.loads((tmp_path / n).read_text())["rows"] for n in ("from-json.json", "from-csv.json"))
    assert from_json == from_csv
