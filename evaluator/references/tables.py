"""The normalisation tables: how a name as a source or a record writes it becomes the canonical
value a key is matched on. They ship with the rule catalog (TABLES_VERSION is the catalog's
version), so a changed table is a changed catalog and `archive rejudge` sees what it changes.

A name no table knows is kept, lower-cased with its spaces made hyphens: it then matches only
itself, never something merely similar.
"""

from __future__ import annotations

import re

from .. import RULE_CATALOG_VERSION

TABLES_VERSION = RULE_CATALOG_VERSION

# Canonical model id <- the names sources and records use (the Hugging Face id, InferenceX's
# short prefix and display name, MLPerf's model column). Quantised checkpoints of the same weights
# (nvidia/DeepSeek-R1-FP4) are the same model: the precision is its own key field.
MODELS: dict[str, tuple[str, ...]] = {
    "deepseek-r1": (
        "dsr1",
        "deepseek-r1",
        "deepseek-ai/deepseek-r1",
        "deepseek-r1-0528",
        "deepseek-ai/deepseek-r1-0528",
        "nvidia/deepseek-r1-fp4",
        "nvidia/deepseek-r1-0528-fp4",
        "nvidia/deepseek-r1-0528-fp4-v2",
        "deepseek-ai/deepseek-r1-0528-fp8",
    ),
    "deepseek-v3": ("dsv3", "deepseek-v3", "deepseek-ai/deepseek-v3", "deepseek-v3-0324", "deepseek-ai/deepseek-v3-0324"),
    "gpt-oss-120b": ("gptoss", "gpt-oss-120b", "openai/gpt-oss-120b", "gpt-oss"),
    "llama-3.3-70b-instruct": ("llama3.3-70b", "llama-3.3-70b-instruct", "meta-llama/llama-3.3-70b-instruct", "llama3.3-70b-instruct"),
    "llama-3.1-8b-instruct": ("llama3.1-8b", "llama-3.1-8b-instruct", "meta-llama/llama-3.1-8b-instruct", "meta-llama/meta-llama-3.1-8b-instruct"),
    "qwen3.6-27b": ("qwen3.6-27b", "qwen/qwen3.6-27b"),
}
# A DeepSeek-R1 revision InferenceX and MLPerf do not tell apart: both run the 0528 weights under
# the name "DeepSeek-R1" (InferenceX-app model constants; MLPerf v6.1 deepseek-r1).

# Accelerator SKU <- words found in its name (checked longest first, so "gb200" is not "b200").
ACCELERATORS: tuple[tuple[str, str], ...] = (
    ("gb300", "gb300"),
    ("gb200", "gb200"),
    ("gb10", "gb10"),
    ("b300", "b300"),
    ("b200", "b200"),
    ("h200", "h200"),
    ("h100", "h100"),
    ("h20", "h20"),
    ("l40s", "l40s"),
    ("a100", "a100"),
    ("mi355x", "mi355x"),
    ("mi325x", "mi325x"),
    ("mi300x", "mi300x"),
    ("vr200", "vr200"),
    ("vr-nvl72", "vr200"),
    ("vera rubin", "vr200"),
)

# Serving framework <- names. Disaggregated Dynamo serving is its own framework, as InferenceX keys it.
FRAMEWORKS: dict[str, tuple[str, ...]] = {
    "trt": ("trt", "tensorrt-llm", "trt-llm", "trtllm", "tensorrt llm", "tensorrt"),
    "vllm": ("vllm",),
    "sglang": ("sglang",),
    "dynamo-trt": ("dynamo-trt",),
    "dynamo-sglang": ("dynamo-sglang",),
    "dynamo-vllm": ("dynamo-vllm",),
    "mori-sglang": ("mori-sglang",),
    "atom": ("atom",),
    "llama.cpp": ("llama.cpp", "llamacpp", "llama-server"),
}

# Precision <- the number format of the weights as written.
PRECISIONS: dict[str, tuple[str, ...]] = {
    "fp4": ("fp4", "nvfp4", "mxfp4", "fp4-nvfp4"),
    "fp8": ("fp8", "fp8-e4m3", "e4m3", "float8"),
    "bf16": ("bf16", "bfloat16"),
    "fp16": ("fp16", "float16", "half"),
    "int4": ("int4", "int4-awq", "awq", "w4a16"),
    "int8": ("int8", "w8a8"),
}

# Speculative method <- the record's proposer methods and the sources' words. EAGLE versions are
# one family in InferenceX's spec_method; a record's eagle-3 is matched as eagle-3, never as eagle.
SPEC_METHODS: dict[str, tuple[str, ...]] = {
    "none": ("none", "off", ""),
    "mtp": ("mtp", "nextn", "multi-token-prediction"),
    "eagle": ("eagle",),
    "eagle-2": ("eagle-2", "eagle2"),
    "eagle-3": ("eagle-3", "eagle3"),
    "draft-model": ("draft-model", "draft", "draft_model"),
    "ngram": ("ngram", "n-gram"),
    "suffix": ("suffix",),
    "medusa": ("medusa",),
}

TABLES = {"models": MODELS, "accelerators": dict(ACCELERATORS), "frameworks": FRAMEWORKS, "precisions": PRECISIONS, "spec_methods": SPEC_METHODS}


def _plain(name: str) -> str:
    return re.sub(r"\s+", "-", name.strip().lower())


def _lookup(table: dict[str, tuple[str, ...]], name: str | None) -> str | None:
    if name is None or not str(name).strip():
        return None
    plain = _plain(str(name))
    for canonical, names in table.items():
        if plain == canonical or plain in names:
            return canonical
    return plain


def model_id(name: str | None) -> str | None:
    """'deepseek-ai/DeepSeek-R1-0528', 'DeepSeek-R1', 'dsr1' -> 'deepseek-r1'."""
    return _lookup(MODELS, name)


def accelerator_sku(name: str | None) -> str | None:
    """'NVIDIA B200-SXM-180GB', 'NVIDIA B200', 'b200' -> 'b200'; 'NVIDIA GB200' -> 'gb200'."""
    if name is None or not str(name).strip():
        return None
    low = str(name).lower()
    for word, sku in ACCELERATORS:
        if re.search(rf"(?<![a-z0-9]){re.escape(word)}(?![0-9])", low):
            return sku
    return _plain(str(name))


def framework(name: str | None) -> str | None:
    """'TensorRT-LLM' -> 'trt'; a MLPerf framework cell ('TensorRT 10.11, CUDA 12.9') by its first name."""
    if name is None or not str(name).strip():
        return None
    first = re.split(r"[,;(]", str(name))[0].strip()
    plain = _plain(first)
    for canonical, names in FRAMEWORKS.items():
        if plain == canonical or plain in names or any(plain.startswith(n + "-") for n in names if len(n) > 3):
            return canonical
    return plain


def precision(name: str | None) -> str | None:
    return _lookup(PRECISIONS, name)


def spec_method(name: str | None) -> str | None:
    return _lookup(SPEC_METHODS, name)
