"""guidellm 0.8 benchmarks.json built for the importer tests: the timings of a real guidellm 0.8.1 run against
llama-server (6 requests of 48 tokens, 2 streams), in the shape of GenerativeBenchmark and GenerativeRequestStats
(guidellm 0.8.1 benchmark/schemas, schemas/base/request_stats.py)."""

from __future__ import annotations

START, END = 1796387893.4836524, 1796387901.8595405


# (request start, first token, last token, request end) of each request
TIMINGS = [
    (1796387893.4836524, 1796387893.9503193, 1796387895.9184973, 1796387895.9188561),
    (1796387893.4944081, 1796387894.0282023, 1796387897.106493, 1796387897.1083744),
    (1796387895.9276109, 1796387896.266323, 1796387898.071028, 1796387898.071624),
    (1796387897.1214988, 1796387897.5387342, 1796387900.4362597, 1796387900.437521),
    (1796387898.076856, 1796387898.3499076, 1796387900.6709945, 1796387900.6715515),
    (1796387900.4435396, 1796387900.7072537, 1796387901.8590682, 1796387901.8595405),
]


OWN_RATE = 34.38441347890231  # 288 / (END - START), as guidellm wrote it


def summary(mean: float, total: float | None = None, **percentiles) -> dict:
    return {"successful": {"mean": mean, "median": percentiles.get("p50", mean), "total_sum": total, "percentiles": percentiles}}


def benchmarks(version: str = "0.8.1", warmup: float = 0.0, own_rate: float = OWN_RATE) -> dict:
    requests = [
        {
            "type_": "generative_request_stats",
            "request_start_time": start,
            "request_end_time": end,
            "output_tokens": 48,
            "prompt_tokens": 64,
            "info": {"timings": {"request_start": start, "first_token_iteration": first, "last_token_iteration": last, "token_iterations": 48}},
        }
        for start, first, last, end in TIMINGS
    ]
    bench = {
        "type_": "generative_benchmark",
        "config": {"strategy": {"type_": "concurrent", "worker_count": 2, "max_concurrency": 2, "streams": 2, "rampup_duration": 0.0}},
        "scheduler_metrics": {"measure_start_time": START, "measure_end_time": END, "request_start_time": START, "request_end_time": END},
        "metrics": {
            "request_totals": {"successful": 6, "errored": 0, "incomplete": 0, "total": 6},
            "output_token_count": summary(48.0, 288.0),
            "prompt_token_count": summary(64.0, 384.0),
            "output_tokens_per_second": summary(own_rate),
            "time_to_first_token_ms": summary(382.19575087229407, p50=338.712215423584, p90=533.7941646575928),
            "inter_token_latency_ms": summary(46.88510827138914, p50=41.876128379334794, p90=65.49554682792501),
            "time_per_output_token_ms": summary(53.87074665890799, p50=50.72593688964844, p90=75.25176803270976),
            "request_latency": summary(2.586650292078654, p50=2.435203790664673),
        },
        "requests": {"successful": requests, "errored": [], "incomplete": []},
        "start_time": START,
        "end_time": END,
        "duration": END - START,
        "warmup_duration": warmup,
        "cooldown_duration": 0.0,
    }
    return {"metadata": {"version": 2, "guidellm_version": version}, "benchmarks": [bench]}
