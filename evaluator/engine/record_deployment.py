"""Record 1.3: what changes a figure besides the model and the proposer, as the record states it.

How a configuration is deployed (parallel sizes, per worker pool for disaggregated prefill and
decode serving; whether the arms ran at the same time on separate accelerators), how its drafter
sits in memory and how far an online drafter had adapted, its K schedule; the prefix-cache state a
run met; the verdict the benchmark tool gave a run, and the validity gates a claim holds under.
record.py holds these models in its configurations, runs and claims; every field is optional.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from .record_types import Count, DraftLength, Fraction01, NonNegFloat, PositiveCount, Text, _Model

# --------------------------------------------------------------------- deployment


class Parallelism(_Model):
    tensor: PositiveCount | None = Field(
        default=None,
        description="Tensor-parallel size: accelerators each layer is split across (vLLM --tensor-parallel-size, SGLang --tp-size, TensorRT-LLM tp_size).",
    )
    pipeline: PositiveCount | None = Field(
        default=None, description="Pipeline-parallel size: stages the layers are divided into (--pipeline-parallel-size, --pp-size, pp_size)."
    )
    data: PositiveCount | None = Field(
        default=None,
        description="Data-parallel size: replicas (or attention data-parallel ranks) serving requests side by side (--data-parallel-size, --dp-size).",
    )
    expert: PositiveCount | None = Field(
        default=None,
        description="Expert-parallel size: accelerators the experts of a mixture-of-experts model are spread across (SGLang --ep-size, TensorRT-LLM ep_size; vLLM --enable-expert-parallel uses tensor x data).",
    )
    context: PositiveCount | None = Field(
        default=None,
        description="Decode context-parallel size: ranks each request's KV cache is split across during decoding (vLLM --decode-context-parallel-size, -dcp). 1 when it is not used.",
    )


class WorkerPool(_Model):
    role: Literal["prefill", "decode", "aggregated"] = Field(
        description="Record 1.3: what the pool's workers do: prompt processing only (prefill), token generation only (decode), or both (aggregated serving)."
    )
    workers: PositiveCount | None = Field(
        default=None, description="Record 1.3: how many workers (engine instances) the pool runs (4 for '4 prefill workers')."
    )
    parallelism: Parallelism | None = Field(
        default=None,
        description="Record 1.3: each worker's parallel sizes ('DEP16': data 16 with expert parallelism 16; 'TP8': tensor 8).",
    )
    accelerators_per_worker: PositiveCount | None = Field(default=None, description="Record 1.3: accelerators each worker of the pool runs on.")


class Deployment(_Model):
    pools: list[WorkerPool] = Field(
        default_factory=list,
        max_length=8,
        description="Record 1.3: the worker pools of a disaggregated deployment, each with its role, worker count and parallel sizes (for example 4 prefill workers at DEP2 and 4 decode workers at DEP16). Runs compared must share them.",
    )
    arms_concurrent: bool | None = Field(
        default=None,
        description="Record 1.3: true when this configuration's runs were measured at the same time as the other arm's, on separate accelerators serving the same model: both arms met the same moment's conditions, but not the same physical devices.",
    )


# ---------------------------------------------------------------- drafter and K


class Adaptation(_Model):
    state: Literal["fresh", "adapting", "converged"] = Field(
        description="Record 1.3: how far an online-adapted drafter had learnt from live traffic when the run was measured: fresh (as shipped), adapting, or converged (its acceptance no longer rising)."
    )
    requests_seen: Count | None = Field(default=None, description="Record 1.3: requests the drafter had adapted on before the measured interval.")
    description: Text | None = Field(default=None, description="Record 1.3: the adaptation state in the source's own words.")


KScheduleKind = Literal["fixed", "per-concurrency", "per-sequence-length", "adaptive"]


class KLengthBand(_Model):
    min_tokens: Count = Field(description="Record 1.3: shortest sequence (prompt plus output so far, in tokens) this band covers (inclusive).")
    max_tokens: Count = Field(description="Record 1.3: longest sequence this band covers (inclusive).")
    k: DraftLength = Field(description="Record 1.3: draft tokens proposed per step in this band; 0 means speculation is switched off.")


# --------------------------------------------------------------------------- runs


class PrefixCache(_Model):
    enabled: bool | None = Field(default=None, description="Record 1.3: whether the server's prefix (KV) cache was on during the run.")
    hit_rate: Fraction01 | None = Field(
        default=None,
        description="Record 1.3: the share of prompt tokens served from the prefix cache over the measured interval (0 to 1), as the server or tool reports it. A run that hit the cache more did less prompt work: runs compared must have met the same cache.",
    )
    state: Literal["cold", "warm"] | None = Field(
        default=None,
        description="Record 1.3: whether the cache was emptied before the measured interval (cold) or filled by earlier requests (warm).",
    )


class ToolVerdict(_Model):
    verdict: Literal["valid", "invalid"] = Field(
        description="Record 1.3: the benchmark tool's own verdict on the run (MLPerf LoadGen's 'Result is : VALID' or 'INVALID')."
    )
    tool: Text | None = Field(
        default=None, description="Record 1.3: the tool that gave the verdict, with its version (for example MLPerf LoadGen 6.1)."
    )
    text: Text | None = Field(default=None, description="Record 1.3: the verdict as the tool printed it, verbatim.")


# ------------------------------------------------------------------------- claims


class LatencyLimit(_Model):
    metric: Literal["ttft", "tpot", "itl", "e2e"] = Field(
        description="Record 1.3: the latency the limit holds (time to first token, time per output token, inter-token, end-to-end)."
    )
    percentile: Literal["mean", "p50", "p90", "p95", "p99"] = Field(
        description="Record 1.3: the statistic the limit applies to (MLPerf: p99 TTFT and p99 TPOT)."
    )
    limit_ms: NonNegFloat = Field(description="Record 1.3: the limit, in milliseconds; the run's latency at that statistic must be at or below it.")


class ValidityGates(_Model):
    latency_limits: list[LatencyLimit] = Field(
        default_factory=list,
        max_length=8,
        description="Record 1.3: the latency limits the claim holds under (MLPerf's server-scenario TTFT and TPOT limits). The claim's run must meet every one.",
    )
    tool_verdict: bool = Field(
        default=False,
        description="Record 1.3: true when the claim holds only where the benchmark tool itself judged the run valid (MLPerf 'Result is VALID'); the run's validity must then say valid.",
    )
