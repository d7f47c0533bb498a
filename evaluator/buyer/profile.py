"""The buyer's requirements profile: the loads they will run and what an offer must do there.

A claim can be established and still not answer the buyer's question: measured at
concurrency 1 when the buyer runs 64, greedy when the buyer samples at 0.7, over a
generation-only interval when the buyer's limit is end-to-end. This profile states the
buyer's side, so `sdeval assess OFFER... --requirements PROFILE` can judge every
requirement for every offer (judge.py).

The committed schema (schemas/requirements.schema.json) is generated from these models
and the blank profile (`sdeval init --requirements`) from their descriptions, exactly as
for the evidence record. Read through loader.py, so the same parsing safety applies.
"""

from __future__ import annotations

import json
import re
from typing import Annotated, Literal

from pydantic import Field, ValidationError, field_validator, model_validator

from ..engine.loader import LoadedFile, load_bytes, load_file, pointer
from ..engine.record import Count, Fraction01, LongText, NonNegFloat, PositiveCount, Text, Whole, _Model
from ..engine.schema_wording import SchemaProblem, schema_problems

REQUIREMENTS_VERSION = "1.1"  # 1.1 adds the price; 1.0 profiles are read as before
REQUIREMENTS_SCHEMA_ID = "https://sdeval.example/schemas/requirements/1.1/requirements.schema.json"

Positive = Annotated[float, Field(gt=0, le=10**12)]
Concurrency = Annotated[int, Field(ge=1, le=10**9), Whole]
LatencyMetric = Literal["ttft", "tpot", "itl", "e2e"]
Percentile = Literal["mean", "p50", "p90", "p95", "p99"]
IdentityField = Literal[
    "target.model",
    "target.revision",
    "target.tokenizer",
    "target.tokenizer_revision",
    "proposer.model",
    "proposer.revision",
    "proposer.k",
    "numerics.weights",
    "numerics.activations",
    "numerics.kv_cache",
    "runtime.name",
    "runtime.version",
    "hardware.accelerator",
    "hardware.count",
]


class Buyer(_Model):
    name: Text = Field(description="Who states these requirements (organisation or team).")
    profile_id: Text | None = Field(default=None, description="Your own reference for this profile (for example a tender number).")
    date: str | None = Field(default=None, pattern=r"^\d{4}-\d{2}-\d{2}$", description="Date of this profile, YYYY-MM-DD.")
    contact: Text | None = Field(default=None, description="Who answers questions about these requirements.")


class ConcurrencyBand(_Model):
    min_concurrency: Concurrency = Field(description="Lowest number of concurrent requests you will run (inclusive).")
    max_concurrency: Concurrency = Field(description="Highest number of concurrent requests you will run (inclusive).")

    @model_validator(mode="after")
    def _ordered(self) -> ConcurrencyBand:
        if self.min_concurrency > self.max_concurrency:
            raise ValueError(f"concurrency band {self.min_concurrency}-{self.max_concurrency} runs backwards")
        return self


class Loads(_Model):
    concurrency: list[Concurrency] = Field(
        default_factory=list, max_length=100, description="Each number of concurrent requests (closed loop) you will run, for example [1, 64]."
    )
    concurrency_bands: list[ConcurrencyBand] = Field(
        default_factory=list,
        max_length=100,
        description="Ranges of concurrency you will run. An offer must have evidence at both ends of each range and wherever its own behaviour changes inside it (a K band edge).",
    )
    request_rates: list[Positive] = Field(
        default_factory=list, max_length=100, description="Request rates (requests per second, open loop) you will run, when you state load by rate."
    )


class LatencyLimit(_Model):
    metric: LatencyMetric = Field(
        description="Which latency: ttft time to first token, tpot time per output token, itl inter-token latency, e2e end-to-end response time."
    )
    percentile: Percentile = Field(description="Which percentile the limit applies to (MLPerf uses p99).")
    limit_ms: Positive = Field(
        description="The measured percentile must be below this, in milliseconds (strictly below, as MLPerf's submission checker requires)."
    )
    source: Text | None = Field(default=None, description="Where this limit comes from, when it is a published one (for example an MLPerf rule).")


class ThroughputRequirement(_Model):
    per_request_tokens_per_s: Positive | None = Field(
        default=None,
        description="Least output tokens/s each request must receive at every required load: E / T divided by the closed-loop concurrency.",
    )
    aggregate_tokens_per_s: Positive | None = Field(
        default=None, description="Least output tokens/s the whole deployment must emit at every required load (E / T)."
    )


class QualityThreshold(_Model):
    task: Text = Field(description="The task the quality is judged on, as the offer's quality results name it.")
    metric: Text = Field(description="The quality metric, as the offer's quality results name it (for example 'pass@1').")
    min_score: float | None = Field(default=None, ge=-(10**9), le=10**9, description="Least acceptable score. Give this or min_share_of_baseline.")
    min_share_of_baseline: Fraction01 | None = Field(
        default=None,
        description="Least acceptable score as a share of the comparison baseline's score on the same task and metric (0.99 = within 1 %).",
    )

    @model_validator(mode="after")
    def _one_bar(self) -> QualityThreshold:
        if (self.min_score is None) == (self.min_share_of_baseline is None):
            raise ValueError("give exactly one of min_score and min_share_of_baseline")
        return self


class SamplingPolicy(_Model):
    temperature: NonNegFloat | None = Field(default=None, description="The temperature you will sample at; 0 means greedy decoding.")
    top_p: Fraction01 | None = Field(default=None, description="Your nucleus sampling threshold (1 = off).")
    top_k: Count | None = Field(default=None, description="Your top-k limit (0 = off).")
    n: PositiveCount | None = Field(default=None, description="Completions you request per prompt.")


class ComparisonBaseline(_Model):
    kind: Literal["target-only", "offer"] = Field(
        default="target-only",
        description="What offers are compared with: each offer's own target-only runs, or another offer given on the same command line.",
    )
    offer_id: Text | None = Field(default=None, description="The offer_id of the baseline offer, when kind is offer.")

    @model_validator(mode="after")
    def _named(self) -> ComparisonBaseline:
        if (self.kind == "offer") != (self.offer_id is not None):
            raise ValueError("offer_id is given exactly when kind is offer")
        return self


class Price(_Model):
    currency: str = Field(pattern=r"^[A-Z]{3}$", description="The currency of every price here, as an ISO 4217 code (for example USD, EUR, GBP).")
    per_accelerator_hour: Positive | None = Field(
        default=None,
        description="What one accelerator costs you per hour (rented, or your own hardware's cost spread over its life). Each offer's cost per million output tokens is this x its accelerators / its output tokens per second / 3600 x 1,000,000.",
    )
    per_server_hour: Positive | None = Field(
        default=None,
        description="What one server costs you per hour: the whole price when you rent whole servers (then leave per_accelerator_hour out), or the host, power and rack space on top of the accelerators. Needs accelerators_per_server.",
    )
    accelerators_per_server: Concurrency | None = Field(
        default=None,
        description="How many accelerators one server holds. A configuration pays for whole servers: 4 accelerators at 8 per server is 1 server, 12 is 2.",
    )
    source: Text | None = Field(default=None, description="Where the price comes from (a quote, a price list and its date).")

    @field_validator("currency", mode="before")
    @classmethod
    def _iso_4217(cls, value: object) -> object:
        # Before the schema's pattern, so the writer reads what is wanted rather than a regular expression.
        if isinstance(value, str) and not re.fullmatch(r"[A-Z]{3}", value):
            raise ValueError(f"give the currency as a three-letter ISO 4217 code in capitals, for example USD or EUR (got {json.dumps(value)})")
        return value

    @model_validator(mode="after")
    def _priced(self) -> Price:
        if self.per_accelerator_hour is None and self.per_server_hour is None:
            raise ValueError("give per_accelerator_hour, per_server_hour or both")
        if (self.per_server_hour is None) != (self.accelerators_per_server is None):
            raise ValueError("per_server_hour and accelerators_per_server go together")
        return self


class RequirementsProfile(_Model):
    requirements_version: Literal["1.0", "1.1"] = Field(
        description="Version of the requirements-profile format. This tool reads 1.0 and 1.1 (1.1 adds the price)."
    )
    buyer: Buyer = Field(description="Who these requirements belong to.")
    source: LongText | None = Field(
        default=None, description="Where the limits come from, when they are taken from a published source (cite it with its version)."
    )
    loads: Loads = Field(default_factory=Loads, description="The loads you will run. Latency and throughput requirements apply at every one of them.")
    latency_limits: list[LatencyLimit] = Field(default_factory=list, max_length=50, description="Response-time limits, each at a stated percentile.")
    throughput: ThroughputRequirement = Field(
        default_factory=ThroughputRequirement, description="Least output throughput, per request and in aggregate, at every required load."
    )
    quality: list[QualityThreshold] = Field(
        default_factory=list, max_length=50, description="Task-quality thresholds, absolute or as a share of the baseline's score."
    )
    tasks: list[Text] = Field(
        default_factory=list, max_length=50, description="The tasks you will run. Evidence measured on another task does not count."
    )
    task_mix: dict[Text, Positive] = Field(
        default_factory=dict,
        max_length=50,
        description="Your traffic by task: each task label's share of the output tokens you will generate (any positive weights; they are normalised), as the offer's per-task figures (record 1.3 runs[].per_task) name the tasks. The fit weighs each task's paired speedup by it (weighted harmonic mean: the time your mix takes) rather than taking the mixed run's one figure.",
    )
    sampling: SamplingPolicy | None = Field(
        default=None, description="The sampling policy you will use. Evidence sampled differently does not count."
    )
    scope: Literal["generation-only", "end-to-end"] | None = Field(
        default=None, description="The interval your requirements are about. Evidence timed over another interval does not count."
    )
    pinned_identity: dict[IdentityField, Text] = Field(
        default_factory=dict,
        description="Identity the offered configuration must have, field by field (for example target.model: meta-llama/Llama-3.3-70B-Instruct, hardware.accelerator: NVIDIA H100 SXM5 80GB). Evidence from another model, revision, number format, runtime or hardware is about a different offer. (Every identity field must be stated anyway: see the identity-incomplete rule.)",
    )
    lossy_acceptance_allowed: bool = Field(
        default=False,
        description="Whether relaxed (lossy) acceptance is acceptable to you. When false, an offer using it does not meet your requirements.",
    )
    baseline: ComparisonBaseline = Field(
        default_factory=ComparisonBaseline, description="What counts as the comparison baseline for speedups and for quality shares."
    )
    price: Price | None = Field(
        default=None,
        description="What you pay for the hardware, so each offer's cost per million output tokens can be given at every measured load, and the cheapest load within your latency limits compared with the baseline's. Without a price no cost is given.",
    )

    @model_validator(mode="after")
    def _requires_something(self) -> RequirementsProfile:
        # Lossless acceptance is asked by default; a profile asking only that (the blank form with
        # a buyer's name) would let any lossless offer "meet every requirement".
        t, s = self.throughput, self.sampling
        asked = (
            self.latency_limits
            or t.per_request_tokens_per_s is not None
            or t.aggregate_tokens_per_s is not None
            or self.quality
            or self.tasks
            or self.task_mix
            or self.scope is not None
            or self.pinned_identity
            or (s is not None and any(v is not None for v in (s.temperature, s.top_p, s.top_k, s.n)))
        )
        if not asked:
            raise ValueError(
                "the profile requires nothing to judge an offer by: state latency_limits or throughput "
                "(with the loads you will run), quality, tasks, task_mix, sampling, scope or pinned_identity"
            )
        return self

    @model_validator(mode="after")
    def _loads_stated(self) -> RequirementsProfile:
        by_load = self.latency_limits or self.throughput.per_request_tokens_per_s or self.throughput.aggregate_tokens_per_s
        loads = self.loads
        if by_load and not (loads.concurrency or loads.concurrency_bands or loads.request_rates):
            raise ValueError("latency or throughput requirements need at least one load (loads.concurrency, concurrency_bands or request_rates)")
        if self.price is not None and self.requirements_version == "1.0":
            raise ValueError('a price needs requirements_version "1.1"')
        return self


class RequirementsError(Exception):
    """The requirements file cannot be used (exit 2): every problem, one line each, naming the
    file, line and column, and the place in the profile."""

    def __init__(self, lines: list[str]):
        super().__init__("\n".join(lines))
        self.lines = lines


PROFILE_SCHEMA_FILE = "requirements.schema.json"


def profile_problems(loaded: LoadedFile) -> tuple[RequirementsProfile | None, list[SchemaProblem]]:
    """The validated profile, or every schema problem in file order (one parse problem at most)."""
    if loaded.problem is not None:
        p = loaded.problem
        return None, [SchemaProblem((), p.message, p.line, p.column)]
    try:
        return RequirementsProfile.model_validate(loaded.data), []
    except ValidationError as exc:
        return None, schema_problems(exc.errors(include_url=False), loaded, PROFILE_SCHEMA_FILE)


def load_requirements(path: str) -> tuple[RequirementsProfile, str]:
    """Read and validate a profile, with the SHA-256 of its bytes; UnreadableFile or RequirementsError on failure."""
    return _validated(path, load_file(path))


def load_requirements_bytes(path: str, raw: bytes) -> tuple[RequirementsProfile, str]:
    """The same for bytes already read (a PDF embeds exactly the bytes it judged); `path` names them."""
    return _validated(path, load_bytes(path, raw))


def _validated(path: str, loaded: LoadedFile) -> tuple[RequirementsProfile, str]:
    model, problems = profile_problems(loaded)
    if model is None:
        raise RequirementsError([problem_line(path, p) for p in problems])
    return model, loaded.sha256


def problem_line(path: str, p: SchemaProblem) -> str:
    """FILE[:LINE:COL]: [POINTER: ]MESSAGE, as `sdeval validate` places a finding."""
    where = path + (f":{p.line}:{p.column}" if p.line is not None else "")
    return f"{where}: {pointer(p.path) + ': ' if p.path else ''}{p.message}"
