"""Rules about independent published results (`sdeval assess ... --references FILE`).

They judge a claim against rows others measured (InferenceX, MLPerf Inference, MLPerf Endpoints),
not a record on its own, so they have no `check` over a single record: evaluator/references/ matches
each claim's key to the rows and applies them. They are registered here so `sdeval rules` lists and
explains them; their cases live in tests/reference_cases.yaml.
"""

from __future__ import annotations

from .registry import Rule, register

REFERENCE_CODES: tuple[str, ...] = ("claim-above-independent-results", "no-independent-result-at-key")

ABOVE_INDEPENDENT = register(
    Rule(
        "claim-above-independent-results",
        "warning",
        "The claim exceeds every independent result at its key by more than 2 %",
        " ".join(
            """Independent benchmarks (InferenceX, MLPerf Inference, MLPerf Endpoints) publish results for named
            models on named hardware at stated precision, framework, speculative method, lengths and load. When
            every such result at the claim's own key is lower than the claim by more than 2 % (the difference
            MLPerf's audit guideline calls material), the vendor measured something the independent runs did
            not reproduce: a newer software stack, a tuned configuration, or a different definition of the
            figure. It is not an error: the vendor's evidence is judged on its own; this says what to check.""".split()
        ),
        "250 tokens/s per user claimed for DeepSeek-R1 fp4 on 8 B200 with TensorRT-LLM and MTP at concurrency 1; "
        "the one InferenceX row at that key measured 200 tokens/s per user (1.25x).",
        "The same claim with an InferenceX row at its key measuring 248 tokens/s per user (within 2 %), or more.",
        "MLPerf Inference audit guideline (a performance difference above 2 % is material), "
        "https://github.com/mlcommons/policies/blob/master/submission_rules.adoc; InferenceX published results API, "
        "https://github.com/SemiAnalysisAI/InferenceX/blob/main/docs/results-and-ingestion.md",
    )
)

NONE_AT_KEY = register(
    Rule(
        "no-independent-result-at-key",
        "info",
        "No independent result at the claim's key",
        " ".join(
            """The references given hold no row at the claim's key: the same model, accelerator and count,
            precision, framework, speculative method, K and acceptance, lengths or dataset, and load. Rows that
            differ in some of these are shown as partial matches, each differing field named, and never compared
            as if they were the same measurement. No row at the key is not evidence against the claim; it means
            nobody independent published that measurement, so the claim rests on the vendor's evidence alone.""".split()
        ),
        "A claim at concurrency 1 with ISL/OSL 1K/2K; the InferenceX rows for that model and hardware are at 1K/1K and 1K/8K, concurrency 8 and 256.",
        "An InferenceX row at the claim's model, hardware, precision, framework, method, lengths and concurrency.",
        "InferenceX issue 1580 (reproductions that compared different replay datasets and treated missing data as zero), "
        "https://github.com/SemiAnalysisAI/InferenceX/issues/1580",
    )
)
