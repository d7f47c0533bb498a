"""A /metrics endpoint as a hostile or merely unusual server sends it: OpenMetrics text, gzip, label
values with escapes, duplicated series, an exposition of hundreds of thousands of series. The
counters are read the same in every form; what cannot be counted is refused by name; memory stays
a small multiple of the scrape, whatever the server puts in it."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("httpx")
pytest.importorskip("prometheus_client")

from support.hostile_measure import run  # noqa: E402
from support.hostile_server import Conn, Request, answer, hostile, models, stream, whole  # noqa: E402

from evaluator.importers.common import ImportProblem  # noqa: E402
from evaluator.importers.vllm_metrics import LLAMACPP, Scrape  # noqa: E402


def _counting(render, content_type: str = "text/plain; version=0.0.4", encode=None, **headers: str) -> dict:
    """An arm whose /metrics counts the 3 tokens of every answer it gave, written by `render(n)`."""
    tokens = [0]

    def chat(request: Request, conn: Conn) -> None:
        tokens[0] += 3
        stream(answer(3))(request, conn)

    def metrics(request: Request, conn: Conn) -> None:
        body = render(tokens[0]).encode()
        whole(encode(body) if encode else body, content_type=content_type, **headers)(request, conn)

    return {"/v1/models": models("m"), "/v1/chat/completions": chat, "/metrics": metrics}


FORMS = {
    "OpenMetrics, with _created and # EOF": (
        lambda n: (
            "# TYPE llamacpp:tokens_predicted counter\n# HELP llamacpp:tokens_predicted Tokens.\n"
            f"llamacpp:tokens_predicted_total {n}\nllamacpp:tokens_predicted_created 1.7e9\n# EOF\n"
        ),
        {"content_type": "application/openmetrics-text; version=1.0.0; charset=utf-8"},
    ),
    "gzip-encoded": (lambda n: f"llamacpp:tokens_predicted_total {n}\n", {"encode": gzip.compress, "Content_Encoding": "gzip"}),
    "a label value with escapes": (lambda n: f'llamacpp:tokens_predicted_total{{model="a\\"b\\\\c\\nd"}} {n}\n', {}),
    "a label value with a control character": (lambda n: f'llamacpp:tokens_predicted_total{{model="a\x1b]0;x\x07"}} {n}\n', {}),
    "a timestamp and an exponent": (lambda n: f"llamacpp:tokens_predicted_total {n}e0 1700000000000\n", {}),
}


@pytest.mark.parametrize("form", FORMS)
def test_the_counters_are_read_the_same_in_every_form_of_the_exposition(tmp_path, form):
    render, options = FORMS[form]
    with hostile(_counting(render, **options)) as server:
        result, record, requests = run(tmp_path, server.url, "--metrics", f"{server.url}/metrics")
    assert result.exit_code in (0, 1) and "finding: target-only c=1: the server" not in result.stderr, (
        result.stderr
    )  # (a busy machine may add the client's own findings)
    (run_,) = record["runs"]
    assert run_["counts"]["population_check"] == [{"count": "output-tokens", "benchmark": 12, "server": 12}]


def test_a_series_given_twice_in_a_scrape_mid_run_costs_the_runs_server_counts(tmp_path):
    def render(n: int) -> str:  # well-formed at the start, the series twice after the window
        return f"llamacpp:tokens_predicted_total {n}\n" * (2 if n else 1)

    with hostile(_counting(render)) as server:
        result, record, requests = run(tmp_path, server.url, "--metrics", f"{server.url}/metrics")
    assert result.exit_code == 1, result.stderr
    assert "lines 1 and 2: the series llamacpp:tokens_predicted_total appears twice in one scrape" in result.stderr
    assert "population_check" not in record["runs"][0]["counts"]


def _exposition(path: Path, series: int, repeat: int | None = None) -> None:
    """llama.cpp's counter, then `series` other series (the one numbered `repeat` once more at the end)."""
    with open(path, "w") as fh:
        fh.write("llamacpp:tokens_predicted_total 5\n# TYPE other_metric gauge\n")
        for i in range(series):
            fh.write(f'other_metric{{i="{i:09d}",path="/a/label/value/of/some/length"}} {i}\n')
        if repeat is not None:
            fh.write(f'other_metric{{i="{repeat:09d}",path="/a/label/value/of/some/length"}} 1\n')


def test_a_series_of_another_family_given_twice_is_refused_wherever_it_stands(tmp_path):
    path = tmp_path / "s.prom"
    _exposition(path, 30_000, repeat=3)  # the parser reads 20,000 lines at a time: the two stand in different ones
    with pytest.raises(ImportProblem) as caught:
        Scrape(path, LLAMACPP)
    assert str(caught.value) == (
        f'{path}: lines 6 and 30003: the series other_metric{{i="000000003",path="/a/label/value/of/some/length"}} appears twice '
        "in one scrape; summing both would count it twice"
    )


def test_an_exposition_of_140000_series_is_read_in_memory_a_small_multiple_of_its_size(tmp_path):
    path = tmp_path / "s.prom"
    _exposition(path, 140_000)
    size_mib = path.stat().st_size / 2**20  # about 9.5 MiB
    # In a process of its own, so the peak is this reading's alone.
    script = (
        "import resource, sys\n"
        "from pathlib import Path\n"
        "from evaluator.importers.vllm_metrics import LLAMACPP, Scrape\n"
        "before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "scrape = Scrape(Path(sys.argv[1]), LLAMACPP)\n"
        "print((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024, scrape.totals['llamacpp:tokens_predicted_total'])\n"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])}
    out = subprocess.run([sys.executable, "-c", script, str(path)], capture_output=True, text=True, env=env, timeout=120, check=True).stdout
    grew_mib, tokens = map(float, out.split())
    assert tokens == 5
    # The parser holding the whole family, and every series kept by name, took 162 MiB (17 times the scrape).
    assert grew_mib < 6 * size_mib, (grew_mib, size_mib)


def test_a_scrape_of_json_or_html_is_one_line_at_the_start(tmp_path):
    routes = {"/v1/models": models("m"), "/v1/chat/completions": stream(answer(3)), "/metrics": whole(json.dumps({"a": 1}).encode())}
    with hostile(routes) as server:
        result, record, requests = run(tmp_path, server.url, "--metrics", f"{server.url}/metrics")
    assert result.exit_code == 2 and result.stderr.count("\n") == 1
    assert "has no spec-decode or generated-token counters of vLLM (vllm:) or llama.cpp (llamacpp:)" in result.stderr


def test_a_scrape_refused_at_the_start_names_the_url_not_a_probe_file(tmp_path):
    routes = {
        "/v1/models": models("m"),
        "/v1/chat/completions": stream(answer(3)),
        "/metrics": whole(b"llamacpp:tokens_predicted_total 1\nllamacpp:tokens_predicted_total 1\n", content_type="text/plain"),
    }
    with hostile(routes) as server:
        result, record, requests = run(tmp_path, server.url, "--metrics", f"{server.url}/metrics")
    assert result.exit_code == 2
    assert result.stderr == (
        f"sdeval: --metrics {server.url}/metrics: lines 1 and 2: the series llamacpp:tokens_predicted_total appears twice in one scrape; "
        "summing both would count it twice\n"
    )


def test_a_counter_past_2_to_the_53_is_refused_at_the_start_and_a_finding_mid_run(tmp_path):
    with hostile(_counting(lambda n: f"llamacpp:tokens_predicted_total {2**60 + n}\n")) as server:
        result, record, requests = run(tmp_path, server.url, "--metrics", f"{server.url}/metrics")
    assert result.exit_code == 2
    assert result.stderr.endswith(
        "/metrics: llamacpp:tokens_predicted_total is 1.15292e+18, past 2^53: a count that large is not held to the token, "
        "so no window can be differenced from it\n"
    )
    with hostile(_counting(lambda n: f"llamacpp:tokens_predicted_total {2**60 + n if n else 0}\n")) as server:
        result, record, requests = run(tmp_path, server.url, "--metrics", f"{server.url}/metrics", name="mid.json")
    assert result.exit_code == 1
    assert "the server's counters cannot be differenced over repetition 1" in result.stderr and "past 2^53" in result.stderr
    assert "population_check" not in record["runs"][0]["counts"]
